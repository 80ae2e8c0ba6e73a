/*
** ifs_set_cache.c — needle sets kept by list (see ifs_set_cache.h).
**
** An entry holds a list's key, its needles one after another each after
** its length (four bytes), so that the bytes name the list (["ab", "c"]
** is not ["a", "bc"]), and the set built over that key: the set keeps
** where its needles are, and the key is the text its searches are given.
** A look-up builds the key in a scratch buffer, hashes it and compares it
** with the entries of that hash.  A miss on a short list only records its
** hash among recent ones (ifs_seen: a second miss keeps it); on a long one,
** or a short one seen before, it replaces the entry used least recently, so
** a list used on every row (a refusal detector) stays while the rows' own
** lists come and go, and the entry the call before used is never the one
** replaced.
**
** Entry point: ifs_set_cache_get().
*/
#include "ifs_set_cache.h"
#include <string.h>

typedef struct entry {
  uint64_t hash;
  uint64_t last;           /* the call that last used it (0: empty) */
  char *key;
  size_t kn;
  ifs_needle_set *set;
} entry;

/* Short lists' first sightings remembered (ifs_seen): 64, four to a set. */
#define SEEN_SETS 16
#define SEEN_WAYS 4

struct ifs_set_cache {
  entry e[IFS_SET_CACHE_ENTRIES];
  uint64_t calls;
  ifs_seen seen;           /* short lists asked for once */
  ifs_buf key;             /* the list being looked up */
  ifs_span *spans;         /* its needles in the key */
  size_t spans_cap;
  ifs_heap *heap;          /* the sets are its blocks */
#ifdef IFS_TESTING
  int same_hash;           /* every list's hash taken as 0 */
#endif
};

ifs_set_cache *ifs_set_cache_new(ifs_heap *heap) {
  ifs_set_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->heap = heap;
  ifs_buf_init(&c->key);
  ifs_seen_init(&c->seen, SEEN_SETS, SEEN_WAYS);
  return c;
}

static void entry_clear(entry *e) {
  ifs_needle_set_free(e->set);
  ifs_free(e->key);
  memset(e, 0, sizeof *e);
}

void ifs_set_cache_free(ifs_set_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < IFS_SET_CACHE_ENTRIES; i++) entry_clear(&c->e[i]);
  ifs_buf_free(&c->key);
  ifs_seen_free(&c->seen);
  ifs_free(c->spans);
  ifs_free(c);
}

/* The list's key (bytes long) in c->key and its needles' spans in it, in
** c->spans. */
static ifs_status make_key(ifs_set_cache *c, const char *text, const ifs_span *span, size_t k,
                           size_t bytes) {
  if (k > c->spans_cap) {
    ifs_span *sp = ifs_realloc(c->spans, k * sizeof *sp);
    if (!sp) return IFS_NOMEM;
    c->spans = sp;
    c->spans_cap = k;
  }
  ifs_buf_clear(&c->key);
  if (ifs_buf_reserve(&c->key, bytes)) return IFS_NOMEM;
  char *at = c->key.p;
  for (size_t i = 0; i < k; i++) {
    uint32_t len = (uint32_t)span[i].len;
    memcpy(at, &len, sizeof len);
    at += sizeof len;
    c->spans[i].at = (size_t)(at - c->key.p);
    c->spans[i].len = span[i].len;
    memcpy(at, text + span[i].at, span[i].len);
    at += span[i].len;
  }
  c->key.len = bytes;
  return IFS_OK;
}

static entry *find(ifs_set_cache *c, uint64_t h) {
  for (size_t i = 0; i < IFS_SET_CACHE_ENTRIES; i++) {
    entry *e = &c->e[i];
    if (e->last && e->hash == h && e->kn == c->key.len && memcmp(e->key, c->key.p, e->kn) == 0)
      return e;
  }
  return NULL;
}

static entry *least_recent(ifs_set_cache *c) {
  entry *v = &c->e[0];
  for (size_t i = 1; i < IFS_SET_CACHE_ENTRIES; i++)
    if (c->e[i].last < v->last) v = &c->e[i];
  return v;
}

/* Keeps the list in c->key with its set (likely: as ifs_set_cache_get
** takes), in place of the least recent: *kept. */
static ifs_status insert(ifs_set_cache *c, uint64_t h, size_t k, int likely, entry **kept) {
  char *key = ifs_malloc(c->key.len);
  if (!key) return IFS_NOMEM;
  memcpy(key, c->key.p, c->key.len);
  ifs_needle_set *set;
  ifs_status st = ifs_needle_set_new(c->heap, key, c->spans, k, likely ? k : 0, &set);
  if (st) {
    ifs_free(key);
    return st;
  }
  entry *e = least_recent(c);
  entry_clear(e);
  e->hash = h;
  e->key = key;
  e->kn = c->key.len;
  e->set = set;
  *kept = e;
  return IFS_OK;
}

ifs_status ifs_set_cache_get(ifs_set_cache *c, const char *text, const ifs_span *span, size_t k,
                             int likely, const ifs_needle_set **set, const char **set_text) {
  *set = NULL;
  *set_text = NULL;
  size_t bytes = 0;
  for (size_t i = 0; i < k && bytes <= IFS_SET_CACHE_LIST_MAX; i++)
    bytes += sizeof(uint32_t) + span[i].len;
  if (k == 0 || bytes > IFS_SET_CACHE_LIST_MAX) return IFS_OK;
  if (make_key(c, text, span, k, bytes)) return IFS_NOMEM;
  uint64_t h = ifs_hash_bytes(c->key.p, c->key.len);
#ifdef IFS_TESTING
  if (c->same_hash) h = 0;
#endif
  entry *e = find(c, h);
  if (!e && k < IFS_SET_CACHE_EAGER) {   /* a short list: kept the second time */
    int before;
    if (ifs_seen_add(&c->seen, h, &before)) return IFS_NOMEM;
    if (!before) return IFS_OK;
  }
  if (!e) {
    ifs_status st = insert(c, h, k, likely, &e);
    if (st) return st;
  }
  e->last = ++c->calls;
  *set = e->set;
  *set_text = e->key;
  return IFS_OK;
}

#ifdef IFS_TESTING
void ifs_test_set_cache_same_hash(ifs_set_cache *c) { c->same_hash = 1; }
#endif
