/*
** ifs_set_cache.h — needle sets kept by the list they search for.
**
** A constraints text seen once is compiled for its row and dropped, and
** so was its needle set: a table whose every row has its own constraints
** with a refusal list of fifty phrases in each built that list's set again
** on every row, at many times the cost of searching with it.  This cache
** keeps a few sets by their needles' bytes, so that rows whose texts differ
** elsewhere (their own words to include, an id, a limit) share the set of
** a list they have in common.
*/
#ifndef IFS_SET_CACHE_H
#define IFS_SET_CACHE_H

#include "ifs_common.h"
#include "ifs_needle_set.h"

typedef struct ifs_set_cache ifs_set_cache;

/* Entries of a cache, and the largest list (its needles' bytes) one keeps:
** a larger list's set is the caller's to build for its row.  A list of
** fewer than IFS_SET_CACHE_EAGER needles is kept the second time it is
** asked for (64 first sightings are remembered): the first time, searching
** for its needles one by one costs less than building its set (a case's
** own words to include, new on every row, are never built). */
#define IFS_SET_CACHE_ENTRIES 8
#define IFS_SET_CACHE_LIST_MAX ((size_t)64 << 10)
#define IFS_SET_CACHE_EAGER 32

/* A cache whose sets are heap's blocks (NULL: each of its own); NULL when
** out of memory. */
ifs_set_cache *ifs_set_cache_new(ifs_heap *heap);
void ifs_set_cache_free(ifs_set_cache *c);

/* The set of the k needles text[span[i].at ..] (lowercased, as for
** ifs_needle_set_new; likely: expected found, a must_include list, for a
** set built now), from the cache or built and kept now: *set and the
** text its searches are given (*set_text) stay valid until the call after
** the next (a row may take two lists).  IFS_OK with *set NULL when the list
** is not kept: empty, too big, or short and new (then it is remembered);
** IFS_NOMEM. */
ifs_status ifs_set_cache_get(ifs_set_cache *c, const char *text, const ifs_span *span, size_t k,
                             int likely, const ifs_needle_set **set, const char **set_text);

#ifdef IFS_TESTING
/* Test hook: every list's hash taken as the same, so that a look-up rests
** on comparing keys. */
void ifs_test_set_cache_same_hash(ifs_set_cache *c);
#endif

#endif
