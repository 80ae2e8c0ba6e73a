/*
** ifs_list_cache.h — compiled needle lists kept by their JSON text.
**
** A table whose every row has its own constraints text, each with the same
** refusal list of fifty phrases, read that list's JSON and made each
** phrase's str() and lowercase again on every row: more than the search
** itself; so did each case's own words, coming back on each run of the
** table.  This cache keeps lists' compiled forms by the bytes of their
** JSON array, '[' to ']', so that the JSON reader takes a list it has seen
** whole (ifs_json_parse_known) and the compiler copies its needles instead
** of making them, and a text seen once searches with the list's set.  A kept plan of a list found in many
** texts refers to it here, its JSON and its set, instead of keeping them.
*/
#ifndef IFS_LIST_CACHE_H
#define IFS_LIST_CACHE_H

#include "ifs_common.h"
#include "ifs_needle_set.h"

typedef struct ifs_list_cache ifs_list_cache;

/* One needle of a compiled list: where its str() and its lowercase are in
** the list's text (the same bytes when the str() is its own lowercase). */
typedef struct ifs_list_needle {
  uint32_t arg_at, arg_len, low_at, low_len;
} ifs_list_needle;

/* A compiled list: its needles' text, as the compiler wrote it, and the
** needles in their order.  Of a list found: slot, which of the cache's
** entries it is, and kept, when it was kept there (the two name this list
** for as long as the cache holds it: ifs_list_cache_json); finds, how often
** it has been found since (this time included); context, whether its text
** holds byte CC or CF (only then may a needle meet a context lowercase),
** as the cache found when it kept the list; strict, whether its JSON text is
** valid UTF-8 as given (ifs_utf8_is_valid: a text holding it and ASCII
** besides needs no internal form). */
typedef struct ifs_list {
  const char *text;
  size_t tn;
  const ifs_list_needle *needles;
  size_t k;
  size_t slot;
  uint64_t kept, finds;
  int context, strict;
} ifs_list;

/* Entries of a cache (a table whose cases each have their own words to
** include: thousands of lists, each coming back once per run of the table);
** the largest JSON text and needles' text one keeps; the bytes all entries
** may hold with their sets (one of the largest lists holds about 4.4 MB
** with its set; a case's ten words, about 2.5 KB).  A list of fewer than
** IFS_LIST_CACHE_EAGER needles is kept the second time it is offered.  The
** bytes a look-up hashes (a list of no more is not kept), and the most
** lists kept whose first bytes hash alike. */
#define IFS_LIST_CACHE_ENTRIES 4096
#define IFS_LIST_CACHE_MAX ((size_t)1 << 20)
#define IFS_LIST_CACHE_BYTES ((size_t)16 << 20)
#define IFS_LIST_CACHE_EAGER 32
#define IFS_LIST_CACHE_KEY 32
#define IFS_LIST_CACHE_ALIKE 8

/* A cache whose lists and sets are heap's blocks (NULL: each of its own);
** NULL when out of memory. */
ifs_list_cache *ifs_list_cache_new(ifs_heap *heap);
void ifs_list_cache_free(ifs_list_cache *c);

/* The length of a kept list's JSON text that s[0..n) starts with, with
** that list in *list; 0 when none.  A list found stays valid until the
** next ifs_list_cache_offer that is not told it is held. */
size_t ifs_list_cache_find(ifs_list_cache *c, const char *s, size_t n, ifs_list *list);

/* ifs_list_cache_find() told where the list s[0..n) starts with likely is
** (at and kept, as a list found before was: ifs_list_cache_json): that
** entry is compared first, without hashing s or walking a chain of cold
** entries (a row whose plan the row before named knows its lists). */
size_t ifs_list_cache_find_at(ifs_list_cache *c, size_t at, uint64_t kept, const char *s,
                              size_t n, ifs_list *list);

/* The needle set of a list found (ifs_list_cache_find), built the first
** time it is asked for (likely: the list's needles are expected found, a
** must_include list's, as ifs_needle_set_new takes), and the text its
** searches are given (*set_text): valid as long as the list.  IFS_OK, or
** IFS_NOMEM (then *set is NULL). */
ifs_status ifs_list_cache_set(ifs_list_cache *c, const ifs_list *list, int likely,
                              const ifs_needle_set **set, const char **set_text);

/* The JSON text of a list found before (at: its slot; and kept), while the
** cache holds that list still; NULL once it has been replaced.  A kept plan
** refers to a list it copied by these two, instead of keeping its bytes. */
const char *ifs_list_cache_json(const ifs_list_cache *c, size_t at, uint64_t kept);

/* Offers a list just compiled from json[0..jn) (a valid JSON array): kept
** (copied) when it comes back or is long, in place of the entry offered or
** found least recently, and of as many more as the cache's bytes need;
** never in place of the lists found that the caller holds still,
** held[0..nheld) (k 0: none), which stay valid (any other list found does
** not).  Not kept when it fits only in their place.  IFS_OK, or
** IFS_NOMEM. */
ifs_status ifs_list_cache_offer(ifs_list_cache *c, const char *json, size_t jn,
                                const ifs_list *list, const ifs_list *held, size_t nheld);

#ifdef IFS_TESTING
/* Test hook: the cache's bound in bytes, in place of IFS_LIST_CACHE_BYTES. */
void ifs_test_list_cache_bound(ifs_list_cache *c, size_t bytes);

/* Test hook: the bytes the cache counts for its entries, and how many it
** holds (*kept); (size_t)-1 when the count is not their sum, or a link
** names a list not held or not named by it. */
size_t ifs_test_list_cache_bytes(const ifs_list_cache *c, size_t *kept);

/* Test hook: how many finds looked their list up by its hash (every
** ifs_list_cache_find; an ifs_list_cache_find_at only when not told
** right). */
size_t ifs_test_list_cache_lookups(const ifs_list_cache *c);

/* Test hook: the entry of the list found cold after the list of entry
** `slot` was, the last time, while both are held; (size_t)-1 when there is
** none. */
size_t ifs_test_list_cache_after(const ifs_list_cache *c, size_t slot);
#endif

#endif
