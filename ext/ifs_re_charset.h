/*
** ifs_re_charset.h — code point sets, sre's character properties and its
** case folding, for the regex translator's phases (see ifs_re_tree.h).
**
** A set (rset) is a growable list of code point ranges, sorted, disjoint
** and merged once normalized.  Allocation failure is sticky in s->oom: the
** operations then do nothing, and the caller checks oom once at the end.
*/
#ifndef IFS_RE_CHARSET_H
#define IFS_RE_CHARSET_H

#include "ifs_re_tree.h"

/* A sorted list of disjoint code point ranges. */
typedef struct rset { uint32_t (*r)[2]; size_t n, cap; int oom; } rset;

void ifs_rs_free(rset *s);
void ifs_rs_push(rset *s, uint32_t lo, uint32_t hi);  /* any order; then normalize */
void ifs_rs_normalize(rset *s);                       /* sorts, merges */
int ifs_rs_has(const rset *s, uint32_t c);            /* s normalized */
void ifs_rs_subtract(rset *s, const rset *d);         /* both normalized */
void ifs_rs_complement(rset *s);                      /* in [0, 0x10FFFF] */

static inline int is_surrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

/* Python's str.isidentifier() (str.isspace() and unicodedata.decimal()
** are ifs_text.h's ifs_isspace and ifs_decimal_value). */
int ifs_re_py_isidentifier(const uint32_t *s, size_t n);

/* sre's lowercase of c and whether c is cased, in Unicode (uni) or ASCII
** mode. */
uint32_t ifs_re_mode_lower(int uni, uint32_t c);
int ifs_re_mode_iscased(int uni, uint32_t c);
/* Whether [a, b] holds a cased code point. */
int ifs_re_range_has_cased(int uni, uint32_t a, uint32_t b);
/* Whether PCRE2's caseless matching of literal c is exactly sre's under
** these flags (0 without IGNORECASE). */
int ifs_re_pcre2_caseless_ok(uint32_t flags, uint32_t c);

/* The ranges of a category (\d \s \w; the C_NOT_ ones give the same
** table, to be complemented) in Unicode or ASCII mode. */
void ifs_re_cat_table(int cat, int uni, const uint32_t (**t)[2], size_t *n);

/* The characters a case-insensitive literal c matches (added to out). */
void ifs_re_literal_class(int uni, uint32_t c, rset *out);

/* Whether re._compiler's _optimize_charset builds a bitmap for this IN
** node (the frames it costs count toward Python's recursion limit). */
int ifs_re_set_needs_bitmap(const node *x, uint32_t flags);

/* An IN node's literals and ranges under `flags`, made explicit for an
** engine without sre's case folding: *plain the code points (normalized),
** *exclude those that one of its categories holds but sre's folded test
** does not (see ifs_re_emit.c's put_set_text).  Check oom on both. */
void ifs_re_set_folded(const node *x, uint32_t flags, rset *plain, rset *exclude);

/* The code points a one-character node (LITERAL, NOT_LITERAL, ANY, IN)
** matches under `flags` (IGNORECASE included), added to s (normalized). */
void ifs_re_node_set(const node *x, uint32_t flags, rset *s);

#endif
