/*
** ifs_list_cache.c — compiled needle lists by their JSON text (see
** ifs_list_cache.h).
**
** An entry is one allocation: the JSON text, the needles and their text;
** and the needles' set, built when a plan first searches with it.
** A look-up compares the text at hand with each entry's JSON (the first
** bytes differ at once for all but the list it is); being asked for a
** list of a constraints text's top-level object, it cannot hash first, as
** the array's end is not known until it is read.  An offer of a short
** list only records its hash (ifs_seen) the first time; a long list, or
** one seen before, replaces the entry least recently used, and before it
** the entries least recently used go until the new one fits the cache's
** bytes (IFS_LIST_CACHE_BYTES), but never one the caller holds.  A set
** counts once built: it goes over the bound until the next offer.
**
** Entry points: ifs_list_cache_find(), ifs_list_cache_offer().
*/
#include "ifs_list_cache.h"
#include <string.h>

typedef struct entry {
  uint64_t last;           /* when it was last found or kept (0: empty) */
  uint64_t kept;           /* when it was kept: no two entries ever share it */
  uint64_t finds;          /* since */
  char *json;
  size_t jn;
  ifs_list list;           /* its text and needles, after the JSON */
  ifs_needle_set *set;     /* built when first asked for (NULL: not yet) */
  size_t bytes;            /* its block and its set */
} entry;

/* Short lists' first offers remembered (ifs_seen): 64, four to a set. */
#define SEEN_SETS 16
#define SEEN_WAYS 4

struct ifs_list_cache {
  entry e[IFS_LIST_CACHE_ENTRIES];
  uint64_t clock;          /* counts finds and keeps */
  size_t bytes;            /* of all entries */
  size_t bound;            /* IFS_LIST_CACHE_BYTES (a test may set less) */
  ifs_seen seen;
};

ifs_list_cache *ifs_list_cache_new(void) {
  ifs_list_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->bound = IFS_LIST_CACHE_BYTES;
  ifs_seen_init(&c->seen, SEEN_SETS, SEEN_WAYS);
  return c;
}

static void entry_clear(ifs_list_cache *c, entry *e) {
  c->bytes -= e->bytes;
  ifs_needle_set_free(e->set);
  ifs_free(e->json);
  memset(e, 0, sizeof *e);
}

void ifs_list_cache_free(ifs_list_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++) entry_clear(c, &c->e[i]);
  ifs_seen_free(&c->seen);
  ifs_free(c);
}

size_t ifs_list_cache_find(ifs_list_cache *c, const char *s, size_t n, ifs_list *list) {
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++) {
    entry *e = &c->e[i];
    if (e->last && e->jn <= n && memcmp(e->json, s, e->jn) == 0) {
      e->last = ++c->clock;
      *list = e->list;
      list->slot = i;
      list->kept = e->kept;
      list->finds = ++e->finds;
      return e->jn;
    }
  }
  return 0;
}

ifs_status ifs_list_cache_set(ifs_list_cache *c, const ifs_list *list,
                              const ifs_needle_set **set, const char **set_text) {
  entry *e = &c->e[list->slot];
  *set_text = e->list.text;
  if (!e->set) {
    size_t k = e->list.k;
    ifs_span *span = ifs_malloc(k * sizeof *span);
    if (!span) return IFS_NOMEM;
    for (size_t i = 0; i < k; i++) {
      span[i].at = e->list.needles[i].low_at;
      span[i].len = e->list.needles[i].low_len;
    }
    ifs_status st = ifs_needle_set_new(e->list.text, span, k, &e->set);
    ifs_free(span);
    if (st) return st;
    size_t set_bytes = ifs_needle_set_bytes(e->set);
    e->bytes += set_bytes;
    c->bytes += set_bytes;
  }
  *set = e->set;
  return IFS_OK;
}

const char *ifs_list_cache_json(const ifs_list_cache *c, size_t at, uint64_t kept) {
  if (at >= IFS_LIST_CACHE_ENTRIES) return NULL;
  const entry *e = &c->e[at];
  return e->last && e->kept == kept ? e->json : NULL;
}

static int holds(const entry *e, const char *json, size_t jn) {
  return e->last && e->jn == jn && memcmp(e->json, json, jn) == 0;
}

/* Whether e holds one of the lists held[0..nheld) (k 0: none). */
static int is_held(const ifs_list_cache *c, const entry *e, const ifs_list *held,
                   size_t nheld) {
  for (size_t i = 0; i < nheld; i++)
    if (held[i].k && &c->e[held[i].slot] == e && held[i].kept == e->kept) return 1;
  return 0;
}

/* The entry found or kept least recently (an empty one first; with
** kept_only, of those holding a list) that holds none of held[]; NULL
** when there is none. */
static entry *least_recent(ifs_list_cache *c, int kept_only, const ifs_list *held,
                           size_t nheld) {
  entry *v = NULL;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++) {
    entry *e = &c->e[i];
    if ((kept_only && !e->last) || is_held(c, e, held, nheld)) continue;
    if (!v || e->last < v->last) v = e;
  }
  return v;
}

/* An entry for a list of `bytes`: the lists found or kept least recently
** dropped until it fits the bound, none of held[]; NULL (nothing dropped)
** when it fits only in their place. */
static entry *make_room(ifs_list_cache *c, size_t bytes, const ifs_list *held,
                        size_t nheld) {
  size_t held_bytes = 0;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++)
    if (is_held(c, &c->e[i], held, nheld)) held_bytes += c->e[i].bytes;
  if (held_bytes + bytes > c->bound) return NULL;
  while (c->bytes + bytes > c->bound) entry_clear(c, least_recent(c, 1, held, nheld));
  return least_recent(c, 0, held, nheld);
}

/* The bytes of a copy of the JSON text and the list in one block: JSON,
** needles (aligned), text. */
static size_t block_bytes(size_t jn, const ifs_list *list) {
  return ((jn + 3) & ~(size_t)3) + list->k * sizeof(ifs_list_needle) + list->tn + 1;
}

static char *copy_block(const char *json, size_t jn, const ifs_list *list, ifs_list *copy) {
  size_t needles_at = (jn + 3) & ~(size_t)3;
  size_t text_at = needles_at + list->k * sizeof(ifs_list_needle);
  char *b = ifs_malloc(block_bytes(jn, list));
  if (!b) return NULL;
  memcpy(b, json, jn);
  ifs_list_needle *nd = (ifs_list_needle *)(void *)(b + needles_at);
  memcpy(nd, list->needles, list->k * sizeof *nd);
  if (list->tn) memcpy(b + text_at, list->text, list->tn);
  copy->needles = nd;
  copy->k = list->k;
  copy->text = b + text_at;
  copy->tn = list->tn;
  copy->slot = 0;   /* (found: its place and when it was kept) */
  copy->kept = copy->finds = 0;
  return b;
}

ifs_status ifs_list_cache_offer(ifs_list_cache *c, const char *json, size_t jn,
                                const ifs_list *list, const ifs_list *held, size_t nheld) {
  if (jn > IFS_LIST_CACHE_MAX || list->tn > IFS_LIST_CACHE_MAX || list->k == 0) return IFS_OK;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++)
    if (holds(&c->e[i], json, jn)) return IFS_OK;   /* both lists of a text */
  if (list->k < IFS_LIST_CACHE_EAGER) {   /* a short list: kept the second time */
    int before;
    if (ifs_seen_add(&c->seen, ifs_hash_bytes(json, jn), &before)) return IFS_NOMEM;
    if (!before) return IFS_OK;
  }
  ifs_list copy;
  char *b = copy_block(json, jn, list, &copy);
  if (!b) return IFS_NOMEM;
  size_t bytes = block_bytes(jn, list);
  entry *e = make_room(c, bytes, held, nheld);
  if (!e) {
    ifs_free(b);
    return IFS_OK;
  }
  entry_clear(c, e);
  e->json = b;
  e->jn = jn;
  e->list = copy;
  e->bytes = bytes;
  c->bytes += bytes;
  e->last = e->kept = ++c->clock;
  return IFS_OK;
}

#ifdef IFS_TESTING
void ifs_test_list_cache_bound(ifs_list_cache *c, size_t bytes) { c->bound = bytes; }

size_t ifs_test_list_cache_bytes(const ifs_list_cache *c, size_t *kept) {
  size_t sum = 0;
  *kept = 0;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++) {
    const entry *e = &c->e[i];
    if (!e->last) continue;
    ++*kept;
    sum += block_bytes(e->jn, &e->list) + (e->set ? ifs_needle_set_bytes(e->set) : 0);
  }
  return sum == c->bytes ? sum : (size_t)-1;
}
#endif
