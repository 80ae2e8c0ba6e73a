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
** one seen before, replaces the entry least recently used.
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
} entry;

/* Short lists' first offers remembered (ifs_seen): 64, four to a set. */
#define SEEN_SETS 16
#define SEEN_WAYS 4

struct ifs_list_cache {
  entry e[IFS_LIST_CACHE_ENTRIES];
  uint64_t clock;          /* counts finds and keeps */
  ifs_seen seen;
};

ifs_list_cache *ifs_list_cache_new(void) {
  ifs_list_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  ifs_seen_init(&c->seen, SEEN_SETS, SEEN_WAYS);
  return c;
}

static void entry_clear(entry *e) {
  ifs_needle_set_free(e->set);
  ifs_free(e->json);
  memset(e, 0, sizeof *e);
}

void ifs_list_cache_free(ifs_list_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < IFS_LIST_CACHE_ENTRIES; i++) entry_clear(&c->e[i]);
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

static entry *least_recent(ifs_list_cache *c) {
  entry *v = &c->e[0];
  for (size_t i = 1; i < IFS_LIST_CACHE_ENTRIES; i++)
    if (c->e[i].last < v->last) v = &c->e[i];
  return v;
}

/* A copy of the JSON text and the list in one block: JSON, needles
** (aligned), text. */
static char *copy_block(const char *json, size_t jn, const ifs_list *list, ifs_list *copy) {
  size_t needles_at = (jn + 3) & ~(size_t)3;
  size_t text_at = needles_at + list->k * sizeof(ifs_list_needle);
  char *b = ifs_malloc(text_at + list->tn + 1);
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
                                const ifs_list *list) {
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
  entry *e = least_recent(c);
  entry_clear(e);
  e->json = b;
  e->jn = jn;
  e->list = copy;
  e->last = e->kept = ++c->clock;
  return IFS_OK;
}
