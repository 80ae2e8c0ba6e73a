/*
** ifs_regex.h — Python's re.search on PCRE2.
**
** A pattern in Python's dialect (internal UTF-8) is translated to an
** equivalent PCRE2 pattern, compiled with UTF|UCP, newline LF, JIT when
** available, and cached per connection (an LRU keyed by pattern text).
** Match data and JIT stack live in the cache and are reused.  A budget of
** match steps for the whole search and for each start position (counted,
** not timed) turns catastrophic backtracking into IFS_LIMIT.
*/
#ifndef IFS_REGEX_H
#define IFS_REGEX_H

#include "ifs_common.h"

typedef struct ifs_regex_cache ifs_regex_cache;

/* NULL on out-of-memory. */
ifs_regex_cache *ifs_regex_cache_new(void);
void ifs_regex_cache_free(ifs_regex_cache *c);

/* Whether re.search(pattern, subject) is not None, in *matched; both in
** internal UTF-8.  IFS_OK; IFS_INVALID when Python's re would raise on
** the pattern; IFS_LIMIT when the match budget ran out or the pattern's
** PCRE2 form is beyond PCRE2's sizes; IFS_NOMEM. */
ifs_status ifs_regex_search(ifs_regex_cache *c, const char *pat, size_t pn,
                            const char *subj, size_t sn, int *matched);

/* The same for a subject the caller has already found to be strict UTF-8
** (ifs_utf8_is_valid), which spares a pass over it. */
ifs_status ifs_regex_search_utf8(ifs_regex_cache *c, const char *pat, size_t pn,
                                 const char *subj, size_t sn, int *matched);

/* Why a search answered IFS_LIMIT: the search keeps it for the test hook
** ifs_test_regex_last_stop. */
enum ifs_regex_stop {
  IFS_STOP_NONE,       /* it did not */
  IFS_STOP_POSITION,   /* one start position needed more than its cap */
  IFS_STOP_BUDGET,     /* the whole search, more than the budget */
  IFS_STOP_CLOCK,      /* the last resort: seconds of CPU */
  IFS_STOP_SIZE,       /* the pattern is beyond PCRE2's sizes */
  IFS_STOP_OTHER       /* PCRE2's heap limit */
};

#ifdef IFS_TESTING
/* Test hook: regular patterns are answered by a DFA first (on, the
** default; see ifs_redfa.h) or by PCRE2 alone (off). */
void ifs_test_regex_use_dfa(ifs_regex_cache *c, int on);

/* Test hook: *has = 1 when the pattern (valid, for strict UTF-8 subjects)
** has a DFA, 0 when PCRE2 alone answers it.  IFS_OK or IFS_NOMEM. */
ifs_status ifs_test_regex_has_dfa(ifs_regex_cache *c, const char *pat, size_t pn, int *has);

/* Test hook: the match budget of this cache's searches (see ifs_regex.c):
** `total` steps for a whole search (before its part per byte of text) and
** `position` for one start position; 0 restores a default. */
void ifs_test_regex_budget(ifs_regex_cache *c, uint64_t total, uint64_t position);

/* Test hook: why the last search answered IFS_LIMIT (enum ifs_regex_stop). */
int ifs_test_regex_last_stop(const ifs_regex_cache *c);

/* Test hook: the cache's bounds, in patterns and bytes (at least one
** pattern is always kept); 0 restores a default. */
void ifs_test_regex_cache_bounds(ifs_regex_cache *c, uint32_t patterns, size_t bytes);

/* Test hook: the patterns the cache holds, the bytes it counts for them and
** how many patterns it has translated and compiled so far. */
void ifs_test_regex_cache_stats(const ifs_regex_cache *c, uint32_t *patterns, size_t *bytes,
                                uint64_t *compiled);

/* Test hook: 1 when the cache is consistent: each entry found by its
** pattern through the index, each index slot naming an entry once, the
** bytes the sum of the entries' as entry_bytes counts them now. */
int ifs_test_regex_cache_ok(ifs_regex_cache *c);

/* Test hook: the last-resort clock of this cache's searches, in CPU seconds
** (an emulator runs the same counted work several times slower); 0
** restores the default. */
void ifs_test_regex_cpu_limit(ifs_regex_cache *c, double seconds);
#endif

/* The translation alone, for subjects without surrogates: the PCRE2
** pattern text (compiled with the fixed options of ifs_regex.c) appended
** to out.  IFS_OK, IFS_INVALID (Python raises), IFS_LIMIT (a translation
** over 16 MB) or IFS_NOMEM. */
ifs_status ifs_regex_translate(const char *pat, size_t pn, ifs_buf *out);

#endif
