/*
** ifs_regex.h — Python's re.search on PCRE2.
**
** A pattern in Python's dialect (internal UTF-8) is translated to an
** equivalent PCRE2 pattern, compiled with UTF|UCP, newline LF, JIT when
** available, and cached per connection (an LRU keyed by pattern text).
** Match data and JIT stack live in the cache and are reused.  A budget of
** match steps for the whole search (all start positions together; counted,
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

#ifdef IFS_TESTING
/* Test hook: regular patterns are answered by a DFA first (on, the
** default; see ifs_redfa.h) or by PCRE2 alone (off). */
void ifs_test_regex_use_dfa(ifs_regex_cache *c, int on);

/* Test hook: *has = 1 when the pattern (valid, for strict UTF-8 subjects)
** has a DFA, 0 when PCRE2 alone answers it.  IFS_OK or IFS_NOMEM. */
ifs_status ifs_test_regex_has_dfa(ifs_regex_cache *c, const char *pat, size_t pn, int *has);
#endif

/* The translation alone, for subjects without surrogates: the PCRE2
** pattern text (compiled with the fixed options of ifs_regex.c) appended
** to out.  IFS_OK, IFS_INVALID (Python raises), IFS_LIMIT (a translation
** over 16 MB) or IFS_NOMEM. */
ifs_status ifs_regex_translate(const char *pat, size_t pn, ifs_buf *out);

#endif
