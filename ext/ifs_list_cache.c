/*
** ifs_list_cache.c — compiled needle lists by their JSON text (see
** ifs_list_cache.h).
**
** An entry is one block of the cache's heap (ifs_heap.h): the JSON text,
** the needles and their text; and the needles' set, another block, built
** when a plan first searches with it (so a case's set lies after its list
** when its first row builds it).  The
** entries sit in an array that doubles as it fills, up to
** IFS_LIST_CACHE_ENTRIES; an entry's place there is its slot, by which a
** kept plan names it.
**
** Finding: asked for a list at the start of the rest of a constraints
** text, a look-up cannot hash the list, as the array's end is not known
** until it is read.  It hashes the text's first KEY_BYTES (every list kept
** has more), follows that hash's chain and compares the JSON of each entry
** on it.  A chain holds at most IFS_LIST_CACHE_ALIKE entries (a list more
** takes the place of one of them, at random), so that lists alike in their
** first bytes, or made to collide, cannot make a look-up compare more.
** A caller that knows where the list likely is (a plan kept by its lists
** names them by slot and kept) compares that entry first: no hash, and no
** chain of cold entries walked (ifs_list_cache_find_at).
**
** Asking ahead: a table of texts seen once, read again in its order,
** finds each case's own words once a run, cold, in the same order each
** run.  Each list found cold links to the list found cold after it; its
** next find asks for that list's entry and block, which the next row
** reads, a row ahead (follow_cold).  A link names its list by its slot and
** its block's address; a list is named by one link at most, and knows
** which (named_by), so that a list dropped takes the links to it and from
** it along, and every link names a list the cache holds.
**
** Keeping: an offer of a short list only records its hash (ifs_seen) the
** first time; a long list, or one seen before, takes a free entry.  When
** there is none, or the cache's bytes (IFS_LIST_CACHE_BYTES) need it,
** entries go, picked at random, but not one among the latest finds, nor
** one the caller holds.  A random drop keeps many of a table's lists when
** they come back in turn and outnumber the cache (dropping the least
** recently used would keep none the next row needs); a list found on
** nearly every row (a refusal list) is always among the latest.  A set
** counts once built: it goes over the bound until the next offer.
**
** Entry points: ifs_list_cache_find() (and _find_at()), ifs_list_cache_offer().
*/
#include "ifs_list_cache.h"
#include "ifs_text.h"
#include <string.h>

#define KEY_BYTES IFS_LIST_CACHE_KEY
#define FIRST_ENTRIES 16
#define NONE UINT32_MAX

/* What asking for a list's lines takes, without reading its entry (cold
** too): its entry and its block (JSON, needles, their text).  (Its set is
** asked for at its find, with time to come in before the search.) */
typedef struct cold_link {
  const char *block;       /* NULL: none */
  uint32_t slot, block_bytes;
} cold_link;

typedef struct entry {
  uint64_t last;           /* when it was last found or kept (0: empty) */
  uint64_t kept;           /* when it was kept: no two entries ever share it */
  uint64_t finds;          /* since */
  char *json;
  size_t jn;
  ifs_list list;           /* its text and needles, after the JSON */
  ifs_needle_set *set;     /* built when first asked for (NULL: not yet) */
  size_t bytes;            /* its block and its set */
  uint32_t hash;           /* of its JSON's first KEY_BYTES bytes */
  uint32_t next;           /* the next entry of its chain, or of the free ones */
  cold_link after;         /* the list found cold after it, the last time */
  uint32_t named_by;       /* the entry whose link names it (NONE: none) */
  uint32_t set_hot;        /* its set's hot bytes: asked for without reading the set */
} entry;

/* Short lists' first offers remembered (ifs_seen): twice as many as
** entries, so that few are forgotten before they come back. */
#define SEEN_SETS (IFS_LIST_CACHE_ENTRIES / 2)
#define SEEN_WAYS 4

struct ifs_list_cache {
  entry *e;                /* cap entries, */
  size_t cap, used;        /* used of them ever taken (the rest never were) */
  uint32_t *chain;         /* 2 * cap heads, by hash */
  uint32_t free;           /* the first free entry below used */
  size_t n;                /* entries holding a list */
  uint64_t clock;          /* counts finds and keeps */
  uint64_t rng;            /* picks the entries that go (xorshift) */
  size_t bytes;            /* of all entries */
  size_t bound;            /* IFS_LIST_CACHE_BYTES (a test may set less) */
  uint32_t last_cold;      /* the list found cold last (NONE: none yet) */
  ifs_seen seen;
  ifs_heap *heap;          /* the entries' blocks and sets are its */
#ifdef IFS_TESTING
  size_t lookups;          /* chains looked up by finds */
#endif
};

ifs_list_cache *ifs_list_cache_new(ifs_heap *heap) {
  ifs_list_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->heap = heap;
  c->free = c->last_cold = NONE;
  c->rng = 0x9E3779B97F4A7C15u;
  c->bound = IFS_LIST_CACHE_BYTES;
  ifs_seen_init(&c->seen, SEEN_SETS, SEEN_WAYS);
  return c;
}

static uint32_t key_hash(const char *s) { return (uint32_t)ifs_hash_bytes(s, KEY_BYTES); }

static uint32_t *chain_head(const ifs_list_cache *c, uint32_t hash) {
  return &c->chain[hash & (2 * c->cap - 1)];
}

/* The entry holding a list that s[0..n) starts with (whole: a list that is
** s[0..n) whole), or NONE. */
static uint32_t lookup(const ifs_list_cache *c, const char *s, size_t n, int whole) {
  if (n <= KEY_BYTES || !c->n) return NONE;
  uint32_t h = key_hash(s);
  for (uint32_t i = *chain_head(c, h); i != NONE; i = c->e[i].next) {
    const entry *e = &c->e[i];
    if (e->hash == h && (whole ? e->jn == n : e->jn <= n) && memcmp(e->json, s, e->jn) == 0)
      return i;
  }
  return NONE;
}

/* Entry i's link, if any, undone: it names no list, and no list is named
** by it. */
static void unlink_after(ifs_list_cache *c, uint32_t i) {
  cold_link *x = &c->e[i].after;
  if (!x->block) return;
  c->e[x->slot].named_by = NONE;
  x->block = NULL;
}

/* Empties entry i (holding a list) and frees it for the next list, and
** the links to it and from it with it. */
static void entry_clear(ifs_list_cache *c, uint32_t i) {
  entry *e = &c->e[i];
  uint32_t *p = chain_head(c, e->hash);
  while (*p != i) p = &c->e[*p].next;
  *p = e->next;
  c->bytes -= e->bytes;
  c->n--;
  unlink_after(c, i);
  if (e->named_by != NONE) unlink_after(c, e->named_by);
  ifs_needle_set_free(e->set);
  ifs_heap_release(e->json);
  memset(e, 0, sizeof *e);
  e->next = c->free;
  c->free = i;
}

void ifs_list_cache_free(ifs_list_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->used; i++)
    if (c->e[i].last) {
      ifs_needle_set_free(c->e[i].set);
      ifs_heap_release(c->e[i].json);
    }
  ifs_free(c->e);
  ifs_free(c->chain);
  ifs_seen_free(&c->seen);
  ifs_free(c);
}

/* A list found within this many finds is in cache still (a refusal list
** found on every row); one found longer ago (a case's own words, back once
** a run of its table) is read cold. */
#define RECENT_FINDS 8

/* At most this many bytes of a list's block or needles' text are asked
** for at once (past that the CPU's own prefetching keeps up). */
#define PREFETCH_MAX 4096

/* The bytes of a copy of the JSON text and the list in one block: JSON,
** needles (aligned), text. */
static size_t block_bytes(size_t jn, const ifs_list *list) {
  return ((jn + 3) & ~(size_t)3) + list->k * sizeof(ifs_list_needle) + list->tn + 1;
}

/* Entry from's link made to name entry to (both holding lists), and only
** it; whatever link named `to` before forgets it. */
static void link_to(ifs_list_cache *c, uint32_t from, uint32_t to) {
  entry *f = &c->e[from], *t = &c->e[to];
  if (f->after.block && f->after.slot == to) return;   /* as the last time */
  unlink_after(c, from);
  if (t->named_by != NONE) unlink_after(c, t->named_by);
  f->after.block = t->json;
  f->after.block_bytes = (uint32_t)block_bytes(t->jn, &t->list);
  f->after.slot = to;
  t->named_by = from;
}

/* A list found cold, entry i: it follows the list found cold before in
** that one's link, and the list that followed it the last time, named by
** its own link, is asked for, a row ahead of its find.  Texts seen once of
** a table read again in its order (each case's own words in each case's
** constraints) then find each case's list in cache. */
static void follow_cold(ifs_list_cache *c, uint32_t i) {
  entry *e = &c->e[i];
  if (c->last_cold < c->used && c->last_cold != i && c->e[c->last_cold].last)
    link_to(c, c->last_cold, i);
  c->last_cold = i;
  const cold_link *x = &e->after;
  if (!x->block) return;
  ifs_prefetch(&c->e[x->slot], sizeof(entry));
  ifs_prefetch(x->block, x->block_bytes < PREFETCH_MAX ? x->block_bytes : PREFETCH_MAX);
}

/* The list of entry i found, s[0..n) starting with its JSON (see
** ifs_list_cache_find). */
static size_t found_entry(ifs_list_cache *c, uint32_t i, ifs_list *list) {
  entry *e = &c->e[i];
  if (c->clock - e->last > RECENT_FINDS) {
    /* its set and text, which the row's search reads after the compile,
    ** come in meanwhile */
    if (e->set) ifs_needle_set_prefetch_bytes(e->set, e->set_hot);
    ifs_prefetch(e->list.text, e->list.tn < PREFETCH_MAX ? e->list.tn : PREFETCH_MAX);
    follow_cold(c, i);
  }
  e->last = ++c->clock;
  *list = e->list;
  list->slot = i;
  list->kept = e->kept;
  list->finds = ++e->finds;
  return e->jn;
}

size_t ifs_list_cache_find(ifs_list_cache *c, const char *s, size_t n, ifs_list *list) {
#ifdef IFS_TESTING
  c->lookups++;
#endif
  uint32_t i = lookup(c, s, n, 0);
  return i == NONE ? 0 : found_entry(c, i, list);
}

size_t ifs_list_cache_find_at(ifs_list_cache *c, size_t at, uint64_t kept, const char *s,
                              size_t n, ifs_list *list) {
  const entry *e = at < c->used ? &c->e[at] : NULL;
  if (e && e->last && e->kept == kept && e->jn <= n && memcmp(e->json, s, e->jn) == 0)
    return found_entry(c, (uint32_t)at, list);
  return ifs_list_cache_find(c, s, n, list);
}

ifs_status ifs_list_cache_set(ifs_list_cache *c, const ifs_list *list, int likely,
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
    ifs_status st = ifs_needle_set_new(c->heap, e->list.text, span, k, likely ? k : 0, &e->set);
    ifs_free(span);
    if (st) return st;
    size_t hot = ifs_needle_set_hot_bytes(e->set);
    e->set_hot = hot < UINT32_MAX ? (uint32_t)hot : UINT32_MAX;
    size_t set_bytes = ifs_needle_set_bytes(e->set);
    e->bytes += set_bytes;
    c->bytes += set_bytes;
  }
  *set = e->set;
  return IFS_OK;
}

const char *ifs_list_cache_json(const ifs_list_cache *c, size_t at, uint64_t kept) {
  if (at >= c->used) return NULL;
  const entry *e = &c->e[at];
  return e->last && e->kept == kept ? e->json : NULL;
}

/* Whether entry i holds one of the lists held[0..nheld) (k 0: none). */
static int is_held(const ifs_list_cache *c, size_t i, const ifs_list *held, size_t nheld) {
  for (size_t j = 0; j < nheld; j++)
    if (held[j].k && held[j].slot == i && held[j].kept == c->e[i].kept) return 1;
  return 0;
}

/* The entry to go (see the top of the file): one holding a list, none of
** held[], picked at random, but not one of the lists found most recently
** (the last eighth of the finds and keeps, at least the last) while there
** is another; NONE when every list is held. */
static uint32_t pick_victim(ifs_list_cache *c, const ifs_list *held, size_t nheld) {
  uint64_t window = c->n / 8 ? c->n / 8 : 1, recent = c->clock - window;
  uint32_t v = NONE;
  for (int tries = 0; tries < 16; tries++) {
    uint32_t i = (uint32_t)(ifs_xorshift64(&c->rng) % c->used);
    if (!c->e[i].last || is_held(c, i, held, nheld)) continue;
    if (c->e[i].last <= recent) return i;
    v = i;
  }
  for (uint32_t i = 0; i < c->used; i++)   /* mostly free or recent: look at each */
    if (c->e[i].last && !is_held(c, i, held, nheld)) {
      if (c->e[i].last <= recent) return i;
      v = i;
    }
  return v;
}

/* Doubles the entries (from FIRST_ENTRIES) and their chains' heads.
** IFS_NOMEM leaves the cache as it was. */
static ifs_status grow(ifs_list_cache *c) {
  size_t cap = c->cap ? 2 * c->cap : FIRST_ENTRIES;
  entry *e = ifs_realloc(c->e, cap * sizeof *e);
  if (!e) return IFS_NOMEM;
  c->e = e;
  uint32_t *chain = ifs_malloc(2 * cap * sizeof *chain);
  if (!chain) return IFS_NOMEM;
  memset(e + c->cap, 0, (cap - c->cap) * sizeof *e);
  ifs_free(c->chain);
  c->chain = chain;
  c->cap = cap;
  memset(chain, 0xFF, 2 * cap * sizeof *chain);   /* NONE */
  for (uint32_t i = 0; i < c->used; i++)
    if (e[i].last) {
      uint32_t *head = chain_head(c, e[i].hash);
      e[i].next = *head;
      *head = i;
    }
  return IFS_OK;
}

/* A free entry, the cache grown for one if need be (NONE: it is full). */
static ifs_status take_free(ifs_list_cache *c, uint32_t *slot) {
  *slot = NONE;
  if (c->free != NONE) {
    *slot = c->free;
    c->free = c->e[*slot].next;
    return IFS_OK;
  }
  if (c->used == c->cap) {
    if (c->cap == IFS_LIST_CACHE_ENTRIES) return IFS_OK;
    if (grow(c)) return IFS_NOMEM;
  }
  *slot = (uint32_t)c->used++;
  return IFS_OK;
}

/* The bytes of held[]'s entries (each once). */
static size_t held_bytes(const ifs_list_cache *c, const ifs_list *held, size_t nheld) {
  size_t sum = 0;
  for (size_t j = 0; j < nheld; j++) {
    if (!held[j].k || !ifs_list_cache_json(c, held[j].slot, held[j].kept)) continue;
    if (j && held[0].k && held[0].slot == held[j].slot) continue;
    sum += c->e[held[j].slot].bytes;
  }
  return sum;
}

/* An entry for a list of `bytes`: lists dropped (pick_victim()) until it
** fits the bound and an entry is free, none of held[]; NONE (nothing
** dropped) when it fits only in their place. */
static ifs_status make_room(ifs_list_cache *c, size_t bytes, const ifs_list *held,
                            size_t nheld, uint32_t *slot) {
  *slot = NONE;
  if (held_bytes(c, held, nheld) + bytes > c->bound) return IFS_OK;
  uint32_t v;
  while (c->bytes + bytes > c->bound && (v = pick_victim(c, held, nheld)) != NONE)
    entry_clear(c, v);
  if (take_free(c, slot)) return IFS_NOMEM;
  if (*slot == NONE) {   /* every entry holds a list */
    if ((v = pick_victim(c, held, nheld)) == NONE) return IFS_OK;
    entry_clear(c, v);
    return take_free(c, slot);
  }
  return IFS_OK;
}

/* When the chain that a list of hash h would join is full: one of its
** entries, none of held[], picked at random, to go; else NONE. */
static uint32_t crowded(ifs_list_cache *c, uint32_t h, const ifs_list *held, size_t nheld) {
  uint32_t on[IFS_LIST_CACHE_ALIKE];
  size_t n = 0, free_to_go = 0;
  for (uint32_t i = *chain_head(c, h); i != NONE; i = c->e[i].next, n++)
    if (!is_held(c, i, held, nheld) && free_to_go < IFS_LIST_CACHE_ALIKE) on[free_to_go++] = i;
  if (n < IFS_LIST_CACHE_ALIKE || !free_to_go) return NONE;
  return on[ifs_xorshift64(&c->rng) % free_to_go];
}

/* json[0..jn) and the list copied into one block of c's heap
** (block_bytes()), and *copy, the list as it is there. */
static char *copy_block(ifs_list_cache *c, const char *json, size_t jn, const ifs_list *list,
                        ifs_list *copy) {
  size_t needles_at = (jn + 3) & ~(size_t)3;
  size_t text_at = needles_at + list->k * sizeof(ifs_list_needle);
  char *b = ifs_heap_alloc(c->heap, block_bytes(jn, list));
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
  copy->context = ifs_may_meet_context(list->text, list->tn);
  copy->strict = ifs_utf8_is_valid(json, jn);
  return b;
}

ifs_status ifs_list_cache_offer(ifs_list_cache *c, const char *json, size_t jn,
                                const ifs_list *list, const ifs_list *held, size_t nheld) {
  if (jn > IFS_LIST_CACHE_MAX || jn <= KEY_BYTES || list->tn > IFS_LIST_CACHE_MAX ||
      list->k == 0)
    return IFS_OK;
  if (lookup(c, json, jn, 1) != NONE) return IFS_OK;   /* both lists of a text */
  if (list->k < IFS_LIST_CACHE_EAGER) {   /* a short list: kept the second time */
    int before;
    if (ifs_seen_add(&c->seen, ifs_hash_bytes(json, jn), &before)) return IFS_NOMEM;
    if (!before) return IFS_OK;
  }
  ifs_list copy;
  char *b = copy_block(c, json, jn, list, &copy);
  if (!b) return IFS_NOMEM;
  size_t bytes = block_bytes(jn, list);
  uint32_t slot;
  ifs_status rc = make_room(c, bytes, held, nheld, &slot);
  if (rc || slot == NONE) {
    ifs_heap_release(b);
    return rc;
  }
  uint32_t h = key_hash(json), crowd = crowded(c, h, held, nheld);
  if (crowd != NONE) entry_clear(c, crowd);
  entry *e = &c->e[slot];
  e->json = b;
  e->jn = jn;
  e->list = copy;
  e->bytes = bytes;
  e->hash = h;
  e->named_by = NONE;
  uint32_t *head = chain_head(c, e->hash);
  e->next = *head;
  *head = slot;
  c->n++;
  c->bytes += bytes;
  e->last = e->kept = ++c->clock;
  return IFS_OK;
}

#ifdef IFS_TESTING
void ifs_test_list_cache_bound(ifs_list_cache *c, size_t bytes) { c->bound = bytes; }

/* Whether entry i's links are as the top of the file says: its link names
** a list held, named by it, with its block; the link that names it, if
** any, is that entry's. */
static int links_hold(const ifs_list_cache *c, size_t i) {
  const entry *e = &c->e[i];
  const cold_link *x = &e->after;
  if (x->block) {
    const entry *t = &c->e[x->slot];
    if (!t->last || t->named_by != i || x->block != t->json ||
        x->block_bytes != block_bytes(t->jn, &t->list))
      return 0;
  }
  return e->named_by == NONE ||
         (c->e[e->named_by].last && c->e[e->named_by].after.block &&
          c->e[e->named_by].after.slot == i);
}

size_t ifs_test_list_cache_bytes(const ifs_list_cache *c, size_t *kept) {
  size_t sum = 0;
  *kept = 0;
  for (size_t i = 0; i < c->used; i++) {
    const entry *e = &c->e[i];
    if (!e->last) continue;
    ++*kept;
    sum += block_bytes(e->jn, &e->list) + (e->set ? ifs_needle_set_bytes(e->set) : 0);
    if (!links_hold(c, i)) return (size_t)-1;
  }
  return sum == c->bytes && *kept == c->n ? sum : (size_t)-1;
}

size_t ifs_test_list_cache_lookups(const ifs_list_cache *c) { return c->lookups; }

size_t ifs_test_list_cache_after(const ifs_list_cache *c, size_t slot) {
  const cold_link *x = &c->e[slot].after;
  return x->block ? x->slot : (size_t)-1;
}
#endif
