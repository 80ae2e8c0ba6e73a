/*
** ifs_needle_set.h — many needles, one pass over the text.
**
** A must_include / must_exclude list of dozens of phrases (a refusal
** detector, say) costs one pass over the response per phrase when each is
** searched for on its own (ifs_needle.h).  A set answers all of them from
** one pass, with the same meaning: needle.lower() in text.lower(), for a
** text with neither U+0130 nor U+03A3.
**
** The pass is a Teddy-style filter (after Hyperscan's): every prefix a
** match can start with is put in one of sixteen buckets (eight when there
** are at most twelve prefixes), and for each of the first four bytes of a
** position two 16-entry tables, indexed by the byte's low and high nibble,
** give the buckets that allow it; the AND over the four bytes is nonzero
** only where some prefix may start.  Vector shuffles look up sixteen
** positions at once (thirty-two with AVX2 and eight buckets, sixty-four
** with AVX-512, with half the shuffles for eight buckets).
** Where some pass, the vector loops test the four bytes after the prefix
** too, with tables of what follows each bucket's prefixes: a four-byte
** prefix from a common word ("prov" of "I can't provide") is in most
** answers, eight bytes seldom are.  So a needle's prefix is the four bytes
** that, with the bytes after them, English text holds least often (by a
** Markov chain of byte classes: ifs_english_table.h), with four bytes after
** them where it has such.
** A position that passes is looked up in a hash table of the prefixes,
** and each needle with that prefix is verified as ifs_needle_at() does.  A
** needle found is done with, and once all needles of a bucket are, the
** bucket leaves the tables.
**
** Needles the caller expects found (a must_include list's words: each
** found stops the filter for a look-up) of at most eight ASCII bytes are,
** with AVX-512 VBMI, decided by an exact pass instead: a bucket of each
** one's own, whose tables match all its bytes, one pass over the text with
** no stop, and at the end the buckets that matched somewhere.
**
** A set of more than 128 needles (a blocklist) would put dozens of
** prefixes in each bucket, which then lets through most positions; it is
** searched by shift-or instead, in the manner of Hyperscan's FDR: each
** prefix with up to four bytes of the needle after it is a literal, one
** table look-up a byte (by the byte and five bits of the one before) tells
** which of eight buckets of literals may end there, and where some may,
** the prefix is looked up as above.
**
** Prefixes are the text's side of a match: for each character of the
** needle, each character that lowers to it (k: k, K and KELVIN SIGN),
** encoded and cut to four bytes.  Tables and keys fold bit 5 of every byte
** (b | 0x20), so one prefix serves both cases of an ASCII letter.
*/
#ifndef IFS_NEEDLE_SET_H
#define IFS_NEEDLE_SET_H

#include "ifs_common.h"
#include "ifs_heap.h"

typedef struct ifs_needle_set ifs_needle_set;

/* Where a needle is in a text: text[at .. at + len). */
typedef struct ifs_span {
  size_t at, len;
} ifs_span;

/* At most this many needles in a set. */
#define IFS_NEEDLE_SET_MAX (((size_t)1 << 24) - 1)

/* *set: a set of k needles, text[span[i].at ..] each already lowercased.
** The set keeps where they are, not their bytes: each search is given the
** same text (or a copy of it, which may be elsewhere).  The first likely
** needles are expected in most texts (a must_include list's words): with
** AVX-512 VBMI, the exact pass decides those of them it can.  IFS_LIMIT
** (and no set) past its bounds: more than IFS_NEEDLE_SET_MAX needles, or
** one not within the text's first 4 GiB; IFS_NOMEM when out of memory.
** The set is one block of heap's (NULL: of its own). */
ifs_status ifs_needle_set_new(ifs_heap *heap, const char *text, const ifs_span *span, size_t k,
                              size_t likely, ifs_needle_set **set);
void ifs_needle_set_free(ifs_needle_set *s);

/* Bytes the set holds (for cache accounting). */
size_t ifs_needle_set_bytes(const ifs_needle_set *s);

/* The first of them that every search reads: all, unless no needle is
** left for the filter (the exact pass decides them all), whose part of the
** set comes last. */
size_t ifs_needle_set_hot_bytes(const ifs_needle_set *s);

/* Asks the CPU to bring what every search reads into its cache (to call
** some time before the search: a set used once per row is often cold). */
void ifs_needle_set_prefetch(const ifs_needle_set *s);

/* The same for a set whose hot bytes are given (ifs_needle_set_hot_bytes):
** a small set is asked for without reading its header, itself perhaps
** cold. */
void ifs_needle_set_prefetch_bytes(const ifs_needle_set *s, size_t bytes);

/* For a text (internal UTF-8) with neither U+0130 nor U+03A3, ascii when it
** is pure ASCII, and the needles' text as given to ifs_needle_set_new:
** found[i] = 1 when needle i is in text.lower(), 0 when not,
** -1 when undecided (verification hit its cap, the set's or that of a
** one-needle search it made: search for that needle on its own,
** ifs_needle_find, which has its own way out). */
void ifs_needle_set_find(const ifs_needle_set *s, const char *needles, const char *text,
                         size_t n, int ascii, signed char *found);

#ifdef IFS_TESTING
/* Test hook: the same with the filter run by a chosen loop, 0 the byte loop
** (the reference), 1 SSSE3 (NEON on arm64), 2 AVX2, 3 AVX-512, 4 AVX-512
** with VBMI (or the best one below it that the CPU has). */
void ifs_test_needle_set_find_level(const ifs_needle_set *s, const char *needles,
                                    const char *text, size_t n, int ascii, signed char *found,
                                    int level);

/* Test hook: how many bytes of the lowered needle low[0..len) come before
** the four its prefix is, in a big set (searched by shift-or) or not. */
size_t ifs_test_needle_set_prefix_skip(const char *low, size_t len, int big);

/* Test hook: 1 when the set's prefixes are in eight buckets, which the
** AVX2 loop tests 32 positions at a time. */
int ifs_test_needle_set_narrow(const ifs_needle_set *s);

/* Test hook: how many of the set's needles the exact pass decides (0:
** none, or this CPU does not run it for such a set). */
unsigned ifs_test_needle_set_exact(const ifs_needle_set *s);

/* Test hook: 1 when this CPU runs the exact pass for a set of k needles,
** all of them expected found (only_likely) or not: AVX-512 VBMI runs it for
** any, AVX2 alone for eight or more expected found. */
int ifs_test_needle_set_exact_runs(size_t k, int only_likely);

/* Test hook: where the folds the exact pass keeps end, in bytes from the
** set's start (0: it keeps none). */
size_t ifs_test_needle_set_folds_end(const ifs_needle_set *s);


/* Test hook: 1 when the set is big, searched by shift-or (every level the
** same loop). */
int ifs_test_needle_set_big(const ifs_needle_set *s);

/* Test hook: the same search, for a big set: a sum over its shift-or candidates
** (position and buckets), which every loop must find alike. */
uint64_t ifs_test_needle_set_shift_or_seen(const ifs_needle_set *s, const char *needles,
                                           const char *text, size_t n, int ascii,
                                           signed char *found, int level);

/* Test hook: the same search (the best loop): the bytes of text that the
** needles the exact pass let through were searched for again in. */
size_t ifs_test_needle_set_searched_again(const ifs_needle_set *s, const char *needles,
                                         const char *text, size_t n, int ascii,
                                         signed char *found);
#endif

#endif
