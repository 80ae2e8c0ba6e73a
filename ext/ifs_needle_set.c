/*
** ifs_needle_set.c — many needles in one pass (see ifs_needle_set.h).
**
** Building: each needle's prefixes (its characters from where English text
** holds them least often, prefix_skip(), each replaced by every character
** that lowers to it, encoded, cut to PREFIX_MAX bytes, folded); the
** distinct prefixes sorted and cut into BUCKETS buckets (NARROW_BUCKETS
** for a few), one prefix length to a bucket (a short prefix leaves the
** later bytes free, which would loosen a bucket of longer ones); the
** nibble tables, and the ext tables of the bytes after the prefixes; a
** hash table of the prefixes, each with the list of needles it starts.
** A set is one block: what every search reads first, then what only the
** filter reads (set_alloc), so that a set the exact pass decides whole is
** asked for ahead of its row without the filter's part.
**
** Searching: the filter finds positions where some live bucket allows all
** (up to) four bytes, and, in the vector loops, the four after them (with
** AVX-512 VBMI, the first four by byte tables the search makes from the
** nibble tables); there
** the prefixes of the lengths those buckets hold are looked up and their
** needles verified.  Verification is capped, as in
** ifs_needle.c, so that no text makes a search quadratic: past the cap the
** needles not yet decided are left to the caller.
**
** With AVX-512 VBMI, up to eight needles the caller expects found (a
** must_include list's words), short and ASCII, have no prefixes: one pass
** of exact tables, with no stop, decides them first ("the exact pass").
** In a set of such needles alone it takes up to sixteen, long ones by
** their first eight bytes and words not ASCII (Cyrillic, Chinese) by the
** bytes of their characters' forms, and verifies where it lets them
** through.  With AVX2 alone, the same pass runs for a set of eight or more
** such needles alone (a case's own words), by each byte's low four bits,
** every match verified (exact_avx2).
**
** A big set (more than BIG_NEEDLES: a blocklist of hundreds of phrases)
** would put dozens of prefixes in each bucket, whose tables then let a
** fifth to a third of the positions through.  It is searched by shift-or instead
** ("big sets" below): each prefix with up to four bytes after it is a
** literal, and a table of eight buckets indexed by each byte and the one
** before it finds where a literal may end (eight bytes a step with SSE2,
** those places queued and looked up after every 32 steps); there the
** literal is looked up, in a bitmap of the big set's own, then in the hash
** table, which holds a big set's pairs by their literals.
**
** Entry points: ifs_needle_set_new(), ifs_needle_set_find().
*/
#include "ifs_needle_set.h"
#include "ifs_needle.h"
#include "ifs_text.h"
#include "ifs_english_table.h"
#include <stddef.h>
#include <string.h>
#include "ifs_simd.h"
#if IFS_X86_SIMD   /* SSSE3, AVX2, AVX-512 loops, chosen at run time; NEON on arm64; else bytes */
#define SSSE3_TARGET __attribute__((target("ssse3")))
#define AVX2_TARGET __attribute__((target("avx2")))
#define AVX512_TARGET __attribute__((target("avx512f,avx512bw")))
#define VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#endif

#define PREFIX_MAX 4     /* bytes of a position the filter tests */
#define BUCKETS 16
/* A set of few prefixes (a case's own ten words) is put in eight buckets:
** its tables then fit one 16-byte lane, the AVX2 loop tests 32 positions a
** step instead of 16, and the AVX-512 loop makes half the shuffles.  Two
** prefixes sharing a bucket let through a mix of their bytes; of twelve,
** at most four buckets hold two, and the second tables turn most of those
** mixes down. */
#define NARROW_BUCKETS 8
#define NARROW_PREFIXES 12
#define NO_LINK UINT32_MAX

typedef struct set_needle {
  uint32_t at, len;        /* its lowered text: the needles' text + at */
  uint32_t skip;           /* bytes before its prefix (in the text too) */
  uint16_t buckets;        /* the buckets holding its prefixes (0: none) */
  unsigned char ascii;     /* the lowered needle is pure ASCII */
} set_needle;

/* What a candidate position needs first, in sixteen bytes (a small set's
** table fits a few cache lines): a (prefix, needle) pair of the hash
** table, with the head, up to eight bytes of the lowered needle (in any
** script whose two cases differ in a few bits: fill_head), to turn most
** candidates down before the needle is read (and to answer for an ASCII
** needle it holds whole, without reading it).  The head starts up to
** HEAD_BACK bytes before the prefix, so that a prefix taken from a
** needle's end ("ical" of "unethical") is not its only test; in a big
** set, where the pair is found by its whole literal of five to eight
** bytes, right after that literal (up to AFTER_MAX bytes), so that it tests
** what the literal does not ("where" of "research where").  info: the
** needle's index + 1 in bits 0-23 (0: an empty slot), the prefix's length
** - 1 in 24-25; the head's length in 26-29 and how far before the prefix
** it starts in 30-31, or a head after the literal: its length + 8 in
** 26-29 and the literal's length - 5 in 30-31. */
typedef struct entry {
  uint64_t head;
  uint32_t key;            /* the prefix, folded */
  uint32_t info;
} entry;

#define HEAD_BACK 3   /* at most (two bits) */
#define AFTER_MAX 7   /* (its length + 8 in four bits) */

static uint32_t entry_needle(const entry *e) { return (e->info & 0xFFFFFF) - 1; }
static unsigned entry_plen(const entry *e) { return (e->info >> 24 & 3) + 1; }
static unsigned entry_head_len(const entry *e) {
  unsigned len = e->info >> 26 & 15;
  return len > 8 ? len - 8 : len;
}

/* Where the head starts, from the prefix's first byte. */
static ptrdiff_t entry_head_offset(const entry *e) {
  ptrdiff_t two = (ptrdiff_t)(e->info >> 30);
  return (e->info >> 26 & 15) > 8 ? 5 + two : -two;
}

#define FILTER_BITS 2048   /* a bitmap of the prefixes' hashes */

/* A big set's shift-or table (see "big sets"). */
#define SHIFT_OR_BUCKETS 8
#define DOMAIN_BITS 13   /* a byte, folded, and the low five bits of the byte before */
/* A big set's bitmap of its literals' hashes: a thousand phrases' pairs
** would set half of FILTER_BITS; this one turns down nearly every
** candidate whose literal is in no phrase before the table is read. */
#define BIG_FILTER_BITS 16384

typedef struct shift_or {
  uint64_t reach[1u << DOMAIN_BITS];
  uint64_t filter[BIG_FILTER_BITS / 64];
  unsigned char len[SHIFT_OR_BUCKETS];   /* the length of each bucket's literals */
  uint16_t lens[1u << SHIFT_OR_BUCKETS]; /* per set of buckets, bit m: some holds m bytes */
} shift_or;

/* A distinct prefix; key holds its folded bytes, the first in the low
** byte, zero past len. */
typedef struct prefix {
  uint32_t key;
  unsigned char len, bucket;
  uint32_t first;          /* its first needle link */
  uint32_t solo;           /* its needle when it has one (NO_LINK: several) */
} prefix;

typedef struct needle_link {
  uint32_t needle, next;
} needle_link;

/* Per prefix byte, the buckets allowing each low and each high nibble:
** bits of buckets 0-7 in bytes 0-15, of buckets 8-15 in bytes 16-31 (the
** two lanes of an AVX2 register, or two SSE registers). */
typedef struct tables {
  unsigned char lo[PREFIX_MAX][32], hi[PREFIX_MAX][32];
} tables;

#if IFS_X86_SIMD
/* The same tables by whole bytes, for the AVX-512 VBMI loop: per prefix
** byte, per eight buckets, the buckets allowing each byte (its low seven
** bits: entry i allows what bytes i and i | 0x80 do).  Made from the nibble
** tables by the search that uses them. */
typedef struct byte_tables {
  _Alignas(64) unsigned char b[PREFIX_MAX][2][128];
} byte_tables;
#endif

/* What only the filter reads: its tables, and what its candidates are
** checked by first.  Last in a set's block, so that a set whose needles
** the exact pass decides is asked for without it (hot_bytes). */
typedef struct filter_part {
  tables t;                          /* (a big set leaves both empty) */
  tables ext;                        /* for the four bytes after a prefix */
  uint64_t filter[FILTER_BITS / 64]; /* (a big set's is in big) */
  unsigned char bucket_len[BUCKETS]; /* the length of a bucket's prefixes, */
  uint32_t bucket_first[BUCKETS + 1];/* and where they are in prefixes[] */
  uint32_t live_all[BUCKETS];        /* needles with a prefix in the bucket, */
  uint32_t live_ascii[BUCKETS];      /* and those of them that are ASCII */
  unsigned dead_in_ascii;            /* bit b: none of bucket b's is ASCII */
} filter_part;

struct ifs_needle_set {
  size_t k, np, bytes;
  size_t hot_bytes;                  /* the first of them every search reads */
  unsigned lens;                     /* bit L: some prefix has L bytes */
  int narrow;                        /* all prefixes in buckets 0-7 */
  shift_or *big;                     /* a big set's table (NULL: the filter's) */
  uint32_t slot_mask;
  size_t left_all, left_ascii;       /* needles a search starts without an */
  signed char *start_all;            /* answer for; per needle, the answer */
  signed char *start_ascii;          /* it starts with (-1: none yet) */
  set_needle *needles;
  struct exact_part *exact;          /* (NULL: none) */
  filter_part *f;
  prefix *prefixes;
  needle_link *links;
  entry *entries;                    /* open addressing, slot_mask + 1 */
};

/* ---- the exact pass ---------------------------------------------------- */

/* With AVX-512 VBMI, a few needles are decided without the filter.  A
** case's own words to include are mostly in its answer, and each one found
** stops the filter: a look-up, its buckets made again, the loop entered
** again, and branches no row teaches the next (in a C program over
** generated answers of 1.7 kB, a case's ten words took about 620 ns a
** row, about 85 ns of it for each word found).
**
** A needle of at most EXACT_BYTES bytes, each ASCII and lowered from ASCII
** characters alone (not k, which KELVIN SIGN lowers to), neither NUL nor
** DEL, is matched by a bucket of its own: for each of the eight bytes from
** a position, the bytes whose lowercase is the needle's byte there (every
** byte, past the needle's end).  The pass reads each byte folded to six
** bits, (c & 0x1F) | (c >> 1 & 0x20) (exact_fold), which puts a letter's
** two cases together and every other byte with one more (space with NUL,
** a digit with a control character, _ with DEL): a needle of letters is
** matched exactly, one with another byte is verified (FITS_MAYBE).  In
** text not ASCII, a byte not ASCII is read by its low five bits, as no
** letter is (C3 alike with # and ETX), which lets a needle not ASCII in
** (below).  The
** set keeps the buckets allowing each folded byte's low four bits and its
** high two, 32 bytes for each of the eight (a bucket of two needles lets
** through mixes of them), and the search makes each one's 64-byte table
** from them: a case's set is read cold with its row, and a kilobyte of
** byte tables was sixteen of the lines it waited for.  The text is folded
** into a buffer on the stack, a chunk at a time (the bytes past the text
** DEL), and the pass looks up the eight
** bytes of 64 positions at a time there (one vpermb each; vpermi2b on the
** text's bytes, a 128-byte table, issues one every two cycles here), ANDs
** them, and ORs every step's result into one register: at the end, the
** buckets that matched anywhere.  No stop, and no branch but the loop's
** and a verified bucket's first match's (below).  A text with neither
** U+0130 nor U+03A3 (as every set search has) lowers to ASCII only from
** ASCII, so a match of the bytes is a match in text.lower().
**
** It costs about as much as the filter's pass with nothing found, so it
** takes only needles the caller expects found (a must_include list's: the
** first `likely` of the set), the first EXACT_BUCKETS of them it decides
** whole (letters, but k); those have no prefixes, and the filter looks for
** the rest.  In that C program, the case's words took 0.72 to 0.73 of the
** time with the pass (seven of the ten decided by it, on average), and ten
** words seldom there 2.2 to 2.7 times as long (about 110 ns a row to 250
** in a quiet hour).
**
** In a set of such needles alone (a must_include list's own), the pass
** takes more, so that in ASCII text the filter has nothing left to look
** for and makes no pass: a needle longer than EXACT_BYTES by its first
** EXACT_BYTES bytes; one holding another byte than a letter; one holding
** k, whose miss decides in ASCII text only; and up to EXACT_NEEDLES, two
** to a bucket past EXACT_BUCKETS (the long ones first).  A match of a long
** needle's bytes, or of a bucket of two (which lets through a mix of the
** two), or of a needle with a byte not a letter (folded alike with
** another), is verified where it is, by a branch that only such a
** bucket's matches take (exact_settle): a needle found there leaves its
** bucket, whose tables the pass makes again for the other needle, if any
** (then a word of letters is decided by the bucket's matches alone).  A
** bucket verified at every match holds no needle not found there; past a
** check for each 64 bytes (and sixteen more), its needles left are
** searched for (ifs_needle.h) from the match not verified.  A miss of a
** needle with k in text not ASCII is settled by a search for the needle on
** its own.  A case's ten words, two of them long ("furthermore"), took
** 0.86 to 0.92 of the time of the pass and the filter's (same C program,
** generated answers and the corpus's), before the first match was noted;
** verifying at each match, rather than searching from the first, took
** the generated rows' searches away (0.99 of the time of those shapes).
**
** Such a set also gives the pass a needle with characters not ASCII in its
** first EXACT_BYTES bytes when each of them has all its forms (the
** characters lowering to it) of its own length in UTF-8, so that a match
** lines up byte by byte (not omega, which OHM SIGN lowers to, nor sharp s,
** whose capital takes three bytes): at each byte, the bytes of those forms
** there (exact_folds), read by their low five bits, and every match
** verified (FITS_WIDE).  Those needles take the buckets last, so that two
** of them share one, which in ASCII text, where they cannot be, is taken
** out (out_in_ascii); their folds are kept for exact_retable, which would
** otherwise look up their forms (a tenth of the time, made at each
** retable).  Where the filter stopped at each such word found, the case's
** words took 0.94 of the time over the corpus's answers (same C program,
** 582 ns a row against 620, medians of ten runs in turn).
**
** With AVX2 alone there is no vpermb: the pass looks each byte up by its
** low four bits (vpshufb) in the lo tables, which no match decides, so it
** verifies every match of every bucket (exact_avx2), and runs only for a
** set of at least EXACT_BUCKETS needles all expected found (a case's own
** words), where it leaves the filter nothing to look for (exact_pass_runs). */
#define EXACT_BYTES 8
#define EXACT_BUCKETS 8
#define EXACT_NEEDLES (2 * EXACT_BUCKETS)

typedef struct exact_part {
  unsigned char lo[EXACT_BYTES][16];   /* per needle byte and a folded byte's low four */
  unsigned char hi[EXACT_BYTES][16];   /* bits, the buckets allowing it, and per its high
                                          two (hi[.][0..3]; see above) */
  uint32_t needle[EXACT_NEEDLES];      /* the needles it decides, */
  unsigned char bucket[EXACT_NEEDLES]; /* each one's bucket, */
  unsigned char how[EXACT_NEEDLES];    /* and how it fits (FITS_*: verified if FITS_MAYBE); */
  uint16_t in_bucket[EXACT_BUCKETS];   /* each bucket's needles (bit i: needle[i]) */
  unsigned char maybe;                 /* the buckets whose match is verified */
  unsigned char out_in_ascii;          /* the buckets of needles not ASCII alone */
  uint16_t kept;                       /* bit i: needle[i] is not ASCII and shares a bucket */
  uint16_t again;                      /* bit i: how[i] has FITS_ASCII (a miss in text not
                                          ASCII is searched for again) */
  uint16_t n;                          /* needles */
  const uint64_t (*folds)[EXACT_BYTES];/* the kept needles' exact_folds(), in order (after
                                          this part, read with it), for exact_retable */
} exact_part;

/* What a search's exact pass learns where its verified buckets match
** (exact_settle): needles found there, and from where a bucket that ran
** out of checks is searched for. */
typedef struct exact_state {
  const exact_part *e;          /* the set's */
  size_t next[EXACT_BUCKETS];   /* per bucket, the first position not verified */
  unsigned watch;               /* the buckets verified where they match */
  unsigned found;               /* the needles found there (bit i: e->needle[i]) */
  unsigned decides;             /* buckets left one needle that their match decides */
  const unsigned char *left[EXACT_BUCKETS];  /* a narrowed bucket's needle left: */
  size_t left_len[EXACT_BUCKETS];            /* the tables are made again for it (from */
  const uint64_t *left_folds[EXACT_BUCKETS]; /* its folds, when not NULL) */
  unsigned gave_up;             /* buckets out of checks: searched for from next[b] */
  size_t checks, work, work_max;/* verifications left; characters compared, the cap */
  int verify_all;               /* every bucket's match verified (exact_avx2): none decides */
} exact_state;

typedef struct search search;   /* (below) */
#if IFS_X86_SIMD
static unsigned exact_settle(search *x, exact_state *st, const uint64_t *at, unsigned hit,
                             size_t q);
#endif

/* ---- building ----------------------------------------------------------- */

/* A prefix of one needle, before the distinct ones are gathered, packed
** so that sorting the numbers sorts by length, then bytes, then needle:
** length in bits 61-63, the bytes in reading order in 29-60, the needle in
** 0-28 (a set holds fewer than NEEDLES_MAX). */
#define NEEDLES_MAX (IFS_NEEDLE_SET_MAX + 1)   /* (an entry holds the index + 1 in 24 bits) */

typedef struct raw_list {
  uint64_t *p;
  size_t n, cap;
} raw_list;

/* The bytes of a key in reading order. */
static uint32_t key_order(uint32_t key) {
  return (key & 0xFF) << 24 | (key >> 8 & 0xFF) << 16 | (key >> 16 & 0xFF) << 8 | key >> 24;
}

static uint64_t raw_pack(uint32_t key, unsigned len, uint32_t needle) {
  return (uint64_t)len << 61 | (uint64_t)key_order(key) << 29 | needle;
}

static unsigned raw_len(uint64_t x) { return (unsigned)(x >> 61); }
static uint32_t raw_key(uint64_t x) { return key_order((uint32_t)(x >> 29)); }
static uint32_t raw_needle(uint64_t x) { return (uint32_t)(x & (NEEDLES_MAX - 1)); }

static ifs_status raw_add(raw_list *r, uint32_t key, unsigned len, uint32_t needle) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    uint64_t *p = ifs_realloc(r->p, cap * sizeof *p);
    if (!p) return IFS_NOMEM;
    r->p = p;
    r->cap = cap;
  }
  r->p[r->n++] = raw_pack(key, len, needle);
  return IFS_OK;
}

/* Shellsort (Ciura's gaps): no allocation, few moves for a few hundred. */
static void raw_sort(uint64_t *a, size_t n) {
  static const size_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
  for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
    size_t h = gaps[g];
    for (size_t i = h; i < n; i++) {
      uint64_t x = a[i];
      size_t j = i;
      for (; j >= h && a[j - h] > x; j -= h) a[j] = a[j - h];
      a[j] = x;
    }
  }
}


/* The folded key of len bytes at b. */
static uint32_t fold_key(const unsigned char *b, size_t len) {
  uint32_t key = 0;
  for (size_t i = 0; i < len; i++) key |= (uint32_t)(b[i] | 0x20) << (8 * i);
  return key;
}

/* The distinct folded encodings of the characters that lower to cp (a
** letter's two cases fold to one); how many. */
typedef struct sources {
  unsigned char len[3], b[3][4];
} sources;

static size_t sources_of(uint32_t cp, sources *s) {
  uint32_t src[3];
  size_t k = ifs_lower_preimages(cp, src), n = 0;
  for (size_t i = 0; i < k; i++) {
    unsigned char b[4];
    size_t len = ifs_utf8_put(b, src[i]);
    for (size_t j = 0; j < len; j++) b[j] |= 0x20;
    size_t d = 0;
    while (d < n && !(s->len[d] == len && memcmp(s->b[d], b, len) == 0)) d++;
    if (d < n) continue;
    s->len[n] = (unsigned char)len;
    memcpy(s->b[n], b, len);
    n++;
  }
  return n;
}

/* Where a needle's prefix starts: the window that costs a search least.
** A window starts where only ASCII letters other than k come before it,
** since the text holds such a letter in one byte (its two cases; KELVIN
** SIGN lowers to k), so the match starts that many bytes earlier.
**
** In a set of at most BIG_NEEDLES, the vector loops' second tables test
** the (up to four) bytes after a prefix.  A window in many answers makes the
** first stage pass and the second read; if the bytes after it are common
** too, the loop stops for a look-up, which costs about as much as eight such
** passes (measured on model answers and on generated rows).  So a window's
** cost is its odds in text plus eight times the odds of it with the bytes
** after it, both from a Markov chain of byte classes over English text
** (ifs_english_table.h): "t et" of "not ethical" is rare, "not " is not.
** Where the needle ends less than four bytes after a window, its bucket's
** second tables let any byte through there, for every prefix of the bucket:
** each byte missing costs as much as a window of odds 2^-8 (TAIL_COST), so
** a window with four bytes after it comes first unless all are common.
**
** In a big set, searched by shift-or, a candidate is a window with the
** four bytes after it, each position's byte tested with the low bits of
** the one before: the eight rarest bytes count, whatever their order (the
** sum of each byte's commonness; the Markov chain did worse on sets of 300),
** a byte that is not ASCII, or is k, counting as a common one (the literal
** stops before it).  A window across two words (spans_words) counts
** SPAN_BONUS rarer: two words side by side are rarer than their letters
** say ("nt small" of "important small", not "importan", which many answers
** hold). */
#define BIG_NEEDLES 128
#define STOP_COST 8   /* a stop for a look-up, in first-stage passes */
#define TAIL_COST 16  /* a byte missing after a window, in half-bits of odds */

/* 2^58 times the odds of a cost in half-bits (2^-cost/2): a fixed-point
** number that the sums below cannot overflow. */
static uint64_t odds_of(unsigned half_bits) {
  const uint64_t one = (uint64_t)1 << 58, one_over_root2 = 0x2D413CCCFE77992ull;
  unsigned shift = half_bits / 2;
  if (shift >= 58) return 0;
  return (half_bits & 1 ? one_over_root2 : one) >> shift;
}

/* The half-bits of bytes u[from .. to) following u[from - 1] (from > 0). */
static unsigned chain_cost(const unsigned char *u, size_t from, size_t to) {
  unsigned c = 0;
  for (size_t i = from; i < to; i++) c += ifs_en_next[ifs_en_class[u[i - 1]]][ifs_en_class[u[i]]];
  return c;
}

/* 1 when a window may start at d (see above). */
static int window_may_start(const unsigned char *u, size_t d) {
  return d == 0 || (u[d - 1] < 0x80 && u[d - 1] != 'k');
}

/* The window of least cost with the bytes after it (a set of at most
** BIG_NEEDLES). */
static size_t least_likely_window(const unsigned char *u, size_t len) {
  size_t best = 0;
  uint64_t best_cost = UINT64_MAX;
  for (size_t d = 0; d + PREFIX_MAX <= len && window_may_start(u, d); d++) {
    size_t end = d + PREFIX_MAX, after = len - end < PREFIX_MAX ? len - end : PREFIX_MAX;
    unsigned window = ifs_en_start[ifs_en_class[u[d]]] + chain_cost(u, d + 1, end);
    uint64_t cost = odds_of(window) + STOP_COST * odds_of(window + chain_cost(u, end, end + after)) +
                    (PREFIX_MAX - after) * odds_of(TAIL_COST);
    if (cost < best_cost) {
      best_cost = cost;
      best = d;
    }
  }
  return best;
}

/* How common a byte is in text, roughly, on a log scale (space 16, e 13,
** q 5; Cyrillic lead bytes 15). */
static inline unsigned commonness(unsigned char c) {
  static const unsigned char letters[26] = {
    12, 8, 9, 10, 13, 9, 9, 11, 11, 5, 7, 10, 9, 11, 12, 9, 5, 11, 11, 12, 9, 8, 9, 5, 9, 5};
  if ((unsigned)(c - 'a') < 26u) return letters[c - 'a'];
  if (c == ' ') return 16;
  if (c == '.' || c == ',' || c == '\n') return 8;
  if (c >= '0' && c <= '9') return 7;
  if (c == 0xD0 || c == 0xD1) return 15;
  if (c >= 0x80 && c < 0xC0) return 9;
  return 6;
}

#define LITERAL_MAX 8   /* a big set's literal: a prefix and up to four bytes after it */
#define SPAN_BONUS 8    /* half a space's commonness */

/* 1 when the literal window at u + d holds a space between its third and
** sixth bytes, with no space next to it and a byte of the needle after it. */
static int spans_words(const unsigned char *u, size_t len, size_t d) {
  for (size_t i = 2; i <= LITERAL_MAX - 3 && d + i + 1 < len; i++)
    if (u[d + i] == ' ' && u[d + i - 1] != ' ' && u[d + i + 1] != ' ') return 1;
  return 0;
}

/* The window of the rarest bytes with the four after it (a big set). */
static size_t rarest_literal_window(const unsigned char *u, size_t len) {
  size_t best = 0, best_cost = SIZE_MAX;
  for (size_t d = 0; d + PREFIX_MAX <= len && window_may_start(u, d); d++) {
    size_t cost = 0;
    for (size_t i = 0; i < LITERAL_MAX; i++) {
      unsigned char c = d + i < len ? u[d + i] : 0x80;
      cost += i >= PREFIX_MAX && (c >= 0x80 || c == 'k') ? commonness(' ') : commonness(c);
    }
    if (spans_words(u, len, d)) cost -= SPAN_BONUS;
    if (cost < best_cost) {
      best_cost = cost;
      best = d;
    }
  }
  return best;
}

static size_t prefix_skip(const char *low, size_t len, int big) {
  const unsigned char *u = (const unsigned char *)low;
  if (len <= PREFIX_MAX) return 0;
  return big ? rarest_literal_window(u, len) : least_likely_window(u, len);
}

/* Adds every prefix a match of needle j (low[0..len)) can hold skip bytes
** on: for each character from there, each character lowering to it.  A
** needle with a character nothing lowers to has none (it is in no such
** text). */
static ifs_status add_prefixes(raw_list *r, uint32_t j, const char *low, size_t len, size_t skip) {
  sources src[PREFIX_MAX];
  size_t nsrc[PREFIX_MAX], nch = 0, i = 0;
  if (len == 0) return IFS_OK;   /* found at once, no prefix */
  low += skip;
  len -= skip;
  while (i < len && nch < PREFIX_MAX) {
    unsigned char c = (unsigned char)low[i];
    if (c < 0x80 && c != 'k') {   /* ASCII but k: itself, and its other case */
      src[nch].len[0] = 1;
      src[nch].b[0][0] = (unsigned char)(c | 0x20);
      nsrc[nch] = 1;
      i++;
    } else {
      nsrc[nch] = sources_of(ifs_decode(low, len, &i), &src[nch]);
    }
    if (nsrc[nch] == 0) return IFS_OK;
    nch++;
  }
  size_t pick[PREFIX_MAX] = {0};
  for (;;) {   /* an odometer over the sources of the characters used */
    unsigned char b[PREFIX_MAX + 4];
    size_t bl = 0, used = 0;
    while (used < nch && bl < PREFIX_MAX) {
      const sources *s = &src[used];
      memcpy(b + bl, s->b[pick[used]], s->len[pick[used]]);
      bl += s->len[pick[used]];
      used++;
    }
    if (bl > PREFIX_MAX) bl = PREFIX_MAX;
    uint32_t key = 0;
    for (size_t x = 0; x < bl; x++) key |= (uint32_t)b[x] << (8 * x);
    if (raw_add(r, key, (unsigned)bl, j)) return IFS_NOMEM;
    size_t d = used;
    for (;;) {
      if (d == 0) return IFS_OK;
      d--;
      if (++pick[d] < nsrc[d]) break;
      pick[d] = 0;
    }
  }
}

/* A prefix's hash: the high half of a 64-bit product, in which every bit
** of the key counts (the low bits of a 32-bit product see only the key's
** low bits, and prefixes differing in their last byte would share a slot). */
static uint32_t hash_key(uint32_t key, unsigned len) {
  return (uint32_t)(((uint64_t)(key ^ len * 0x85EBCA77u) * 0x9E3779B97F4A7C15ull) >> 32);
}

/* nbuckets buckets for the prefixes (sorted by length, then bytes): each
** prefix its own when there are few; else each length gets buckets in
** proportion to its prefixes (at least one), and its sorted run is cut
** evenly, so that prefixes sharing first bytes share a bucket. */
static void assign_buckets(ifs_needle_set *s, size_t nbuckets) {
  if (s->np <= nbuckets) {
    for (size_t i = 0; i < s->np; i++) s->prefixes[i].bucket = (unsigned char)i;
    return;
  }
  size_t count[PREFIX_MAX + 1] = {0}, nb[PREFIX_MAX + 1] = {0}, given = 0;
  for (size_t i = 0; i < s->np; i++) count[s->prefixes[i].len]++;
  for (int L = 1; L <= PREFIX_MAX; L++)
    if (count[L]) { nb[L] = 1; given++; }
  while (given < nbuckets) {   /* the next bucket to the most crowded length */
    int best = 0;
    for (int L = 1; L <= PREFIX_MAX; L++)
      if (count[L] > nb[L] && (!best || count[L] * nb[best] > count[best] * nb[L])) best = L;
    if (!best) break;
    nb[best]++;
    given++;
  }
  size_t i = 0, base = 0;
  for (int L = 1; L <= PREFIX_MAX; L++) {
    for (size_t j = 0; j < count[L]; j++, i++)
      s->prefixes[i].bucket = (unsigned char)(base + j * nb[L] / count[L]);
    base += nb[L];
  }
}

/* ANDs (or ORs) the sixteen bytes of a bucket's lane with a byte. */
static void lane_and(unsigned char *lane, unsigned char m) {
  uint64_t w[2], mm = 0x0101010101010101ull * m;
  memcpy(w, lane, 16);
  w[0] &= mm;
  w[1] &= mm;
  memcpy(lane, w, 16);
}

static void lane_or(unsigned char *lane, unsigned char m) {
  uint64_t w[2], mm = 0x0101010101010101ull * m;
  memcpy(w, lane, 16);
  w[0] |= mm;
  w[1] |= mm;
  memcpy(lane, w, 16);
}

/* Lets byte c through bucket b at position k, folded (bit 5 may be clear
** in the text). */
static inline void add_byte_bits(tables *t, unsigned b, unsigned k, unsigned char c) {
  unsigned lane = (b >> 3) * 16, f = c | 0x20u;
  unsigned char bit = (unsigned char)(1u << (b & 7));
  t->lo[k][lane + (f & 15)] |= bit;
  t->hi[k][lane + (f >> 4)] |= bit;
  t->hi[k][lane + ((f >> 4) & ~2u)] |= bit;
}

/* Lets any byte through bucket b at position k. */
static inline void add_any_bits(tables *t, unsigned b, unsigned k) {
  unsigned lane = (b >> 3) * 16;
  unsigned char bit = (unsigned char)(1u << (b & 7));
  lane_or(t->lo[k] + lane, bit);
  lane_or(t->hi[k] + lane, bit);
}

/* Lets prefix p's bytes through its bucket, and any byte past a short
** prefix (also at each find, in rebuild_bucket: kept short). */
static inline void add_prefix_bits(tables *t, const prefix *p) {
  unsigned k = 0;
  for (uint32_t key = p->key; k < p->len; k++, key >>= 8)
    add_byte_bits(t, p->bucket, k, (unsigned char)key);
  for (; k < PREFIX_MAX; k++) add_any_bits(t, p->bucket, k);
}

/* The nibble tables and the per-bucket facts (a bucket's prefixes are
** consecutive: assign_buckets cuts the sorted list in runs). */
static void fill_tables(ifs_needle_set *s) {
  unsigned used = 0;
  for (size_t i = 0; i < s->np; i++) {
    const prefix *p = &s->prefixes[i];
    s->f->bucket_len[p->bucket] = p->len;
    s->lens |= 1u << p->len;
    used |= 1u << p->bucket;
    if (!s->big) add_prefix_bits(&s->f->t, p);   /* a big set searches by shift-or */
  }
  s->narrow = used >> NARROW_BUCKETS == 0;
  for (unsigned b = 0, i = 0; b <= BUCKETS; b++) {
    while (i < s->np && s->prefixes[i].bucket < b) i++;
    s->f->bucket_first[b] = i;
  }
  for (size_t j = 0; j < s->k; j++) {
    const set_needle *nd = &s->needles[j];
    for (unsigned bs = nd->buckets; bs; bs &= bs - 1) {
      unsigned b = (unsigned)__builtin_ctz(bs);
      s->f->live_all[b]++;
      s->f->live_ascii[b] += nd->ascii;
    }
    /* the empty needle is in every text; one without prefixes (a character
    ** nothing lowers to) in none, nor one that is not ASCII in ASCII text */
    s->start_all[j] = (signed char)(nd->len == 0 ? 1 : !nd->buckets ? 0 : -1);
    s->start_ascii[j] = (signed char)(s->start_all[j] >= 0 ? s->start_all[j] : nd->ascii ? -1 : 0);
    s->left_all += s->start_all[j] < 0;
    s->left_ascii += s->start_ascii[j] < 0;
  }
  for (unsigned b = 0; b < BUCKETS; b++)
    if (s->f->live_all[b] && !s->f->live_ascii[b]) s->f->dead_in_ascii |= 1u << b;
}

/* The bits of a head's byte b in which the bytes of the characters
** lowering to its character may differ from it: bit 5 of an ASCII letter
** (its two cases), bit 0 of a lead byte and bits 0, 4 and 5 of a
** continuation byte, which cover the two cases of Latin, Greek, Cyrillic
** and Armenian letters (ä Ä: C3 A4, C3 84; р Р: D1 80, D0 A0; ё Ё: D1 91,
** D0 81); a character whose other forms differ elsewhere ends the head. */
static unsigned char head_vary(unsigned char b) {
  if (b >= 0xC0) return 0x01;
  if (b >= 0x80) return 0x31;
  return (b | 0x20) >= 'a' && (b | 0x20) <= 'z' ? 0x20 : 0;
}

/* The forms of the character at low[*at] (of a lowered needle, whose
** text ends at len): the encodings of the characters lowering to it, when
** all have its length (so that a match holds each of its bytes where the
** needle does), with *at moved past it; how many (0 when some other
** length lowers to it, as KELVIN SIGN does to k, or nothing does).  An
** ASCII letter's other case is left out: it differs in bit 5 alone, which
** heads and tables ignore. */
static size_t char_forms(const char *low, size_t len, size_t *at, unsigned char form[3][4]) {
  size_t i = *at;
  unsigned char c = (unsigned char)low[i];
  if (c < 0x80) {   /* the common case: itself and its other case, which folds to it */
    form[0][0] = c;
    *at = i + 1;
    return c != 'k';   /* KELVIN SIGN lowers to k */
  }
  uint32_t cp = ifs_decode(low, len, at), src[3];
  size_t k = ifs_lower_preimages(cp, src);
  for (size_t f = 0; f < k; f++)
    if (ifs_utf8_put(form[f], src[f]) != *at - i) return 0;
  return k;
}

/* The needle's first bytes (lowered already; the bytes before the prefix
** are ASCII other than k), as far as every match holds them in the same
** bytes but for their head_vary() bits, at most eight, each with those
** bits set; how many.  A character of other forms ends it. */
static unsigned fill_head(uint64_t *head, const char *low, size_t len) {
  const unsigned char *u = (const unsigned char *)low;
  size_t n = 0;
  *head = 0;
  while (n < len && n < 8 && u[n] < 0x80 && u[n] != 'k') {   /* the common case */
    *head |= (uint64_t)(u[n] | head_vary(u[n])) << (8 * n);
    n++;
  }
  while (n < len) {
    unsigned char form[3][4];
    size_t next = n, k = char_forms(low, len, &next, form);
    if (!k || next > 8) break;
    for (size_t f = 0; f < k; f++)
      for (size_t j = n; j < next; j++)
        if ((form[f][j - n] ^ u[j]) & ~head_vary(u[j])) return (unsigned)n;
    for (; n < next; n++) *head |= (uint64_t)(u[n] | head_vary(u[n])) << (8 * n);
  }
  return (unsigned)n;
}

/* Lets through p's bucket in the ext tables the bytes that follow p in a
** needle (low[0..len), from its prefix on), in every form of their
** characters, as far as each character's forms have its length (a match
** then holds them at the same offsets); any byte past that. */
static void add_ext_bits(tables *ext, const prefix *p, const char *low, size_t len) {
  size_t i = 0;
  if (p->len == PREFIX_MAX) {
    const unsigned char *u = (const unsigned char *)low;
    while (i < len && i < 2 * PREFIX_MAX && u[i] < 0x80 && u[i] != 'k') {   /* the common case */
      if (i >= PREFIX_MAX) add_byte_bits(ext, p->bucket, (unsigned)(i - PREFIX_MAX), u[i]);
      i++;
    }
    while (i < len && i < 2 * PREFIX_MAX) {
      unsigned char form[3][4];
      size_t from = i, k = char_forms(low, len, &i, form);
      if (!k) { i = from; break; }
      for (size_t f = 0; f < k; f++)
        for (size_t j = from; j < i && j < 2 * PREFIX_MAX; j++)
          if (j >= PREFIX_MAX) add_byte_bits(ext, p->bucket, (unsigned)(j - PREFIX_MAX), form[f][j - from]);
    }
  }
  for (size_t j = i < PREFIX_MAX ? PREFIX_MAX : i; j < 2 * PREFIX_MAX; j++)
    add_any_bits(ext, p->bucket, (unsigned)(j - PREFIX_MAX));
}

/* ---- big sets: shift-or ------------------------------------------------
**
** Each (prefix, needle) pair is a literal: the prefix's folded bytes and,
** after a prefix of four, up to four more of the needle while they are
** ASCII other than k (a match holds each in its own byte, in either case).
** A bucket holds literals of one length, so that where one may end, where
** it starts is known: each length present gets a bucket, and the rest go
** to the commonest length.  A bucket lets through any mix of its literals'
** bytes, so a literal goes to the bucket of its length whose pass rate in
** English text it raises least (literal_bucket): literals sharing bytes
** share a bucket, and a text mixing the start of one family of phrases
** with the end of another passes neither family's bucket.
**
** A position's domain is its byte folded and the low five bits of the byte
** before (which folding keeps).  reach[d] has, in lane m - 1 - i, bucket
** b's bit clear when some literal of b (of m bytes) has domain d at its
** byte i (at byte 0, for any byte before it); lanes past a bucket's
** literals have its bit clear for every domain.  A running state shifted
** right a lane at each byte, with the byte's reach ORed in, has in lane 0
** a bucket's bit clear where all of some literal's bytes may be there,
** ending at that byte: a candidate (Hyperscan's FDR, with a stride of one).
** Lane i of the state stands for the position i bytes on, so eight bytes'
** reaches, each shifted left by its offset and ORed into a 128-bit state,
** give the eight positions' candidates at once and, in the upper half,
** what the next eight inherit: no chain of shifts from byte to byte.
**
** A pair's slot in the hash table is that of its whole literal, not of
** its prefix: where a literal may end, the pairs looked at are those of
** that literal (of the phrases sharing a first word, only those sharing
** the bytes after it too). */

/* The literal of entry e (of needle nd in the needles' text) in lit; its
** length.  Bytes after the prefix only when the needle's own four bytes
** there are ASCII other than k: then every match holds the prefix in four
** bytes and what follows right after (a prefix of KELVIN SIGN, or of a
** letter whose other case is longer, covers fewer of the needle's bytes). */
static unsigned literal_of(const entry *e, const set_needle *nd, const char *text,
                           unsigned char lit[LITERAL_MAX]) {
  unsigned m = entry_plen(e);
  for (unsigned i = 0; i < m; i++) lit[i] = (unsigned char)(e->key >> (8 * i));
  const unsigned char *at = (const unsigned char *)text + nd->at + nd->skip;
  size_t len = nd->len - nd->skip, plain = 0;
  while (plain < len && plain < LITERAL_MAX && at[plain] < 0x80 && at[plain] != 'k') plain++;
  if (plain < PREFIX_MAX) return m;
  for (size_t i = PREFIX_MAX; i < plain; i++) lit[m++] = (unsigned char)(at[i] | 0x20);
  return m;
}

/* A literal (folded, as the text's bytes are: each ORed with 0x20) as a
** number, byte i in bits 8i to 8i + 7. */
static uint64_t literal_word(const unsigned char *lit, unsigned m) {
  uint64_t w = 0;
  for (unsigned i = 0; i < m; i++) w |= (uint64_t)lit[i] << (8 * i);
  return w;
}

/* A literal's hash, every byte counting in every bit (a prefix's hash
** would see only the low bytes of a word). */
static uint32_t literal_hash(uint64_t w, unsigned m) {
  uint64_t y = (w ^ m) * 0x9E3779B97F4A7C15ull;
  y = (y ^ y >> 32) * 0xD6E8FEB86659FD93ull;
  return (uint32_t)(y >> 32);
}

/* ---- the hash table of pairs ------------------------------------------ */

/* e's head (its key and needle already set): in a big set, after its
** literal of m bytes when that has five or more and bytes follow it; else
** from up to HEAD_BACK bytes before the prefix. */
static void fill_entry_head(const ifs_needle_set *s, entry *e, const char *text, size_t m) {
  const set_needle *nd = &s->needles[entry_needle(e)];
  if (s->big) {
    size_t from = nd->skip + m;
    if (m >= 5 && from < nd->len) {
      unsigned len = fill_head(&e->head, text + nd->at + from, nd->len - from);
      if (len > AFTER_MAX) {
        len = AFTER_MAX;
        e->head &= ((uint64_t)1 << (8 * AFTER_MAX)) - 1;
      }
      if (len) {
        e->info |= (uint32_t)(len + 8) << 26 | (uint32_t)(m - 5) << 30;
        return;
      }
    }
  }
  size_t back = nd->skip < HEAD_BACK ? nd->skip : HEAD_BACK, from = nd->skip - back;
  unsigned len = fill_head(&e->head, text + nd->at + from, nd->len - from);
  e->info |= (uint32_t)len << 26 | (uint32_t)back << 30;
}

/* The hash table of (prefix, needle) pairs, and the bitmap of their
** hashes: a pair's slot is that of its prefix, or in a big set of its
** literal. */
static void fill_entries(ifs_needle_set *s, const char *text) {
  for (size_t i = 0; i < s->np; i++) {
    const prefix *p = &s->prefixes[i];
    for (uint32_t li = p->first; li != NO_LINK; li = s->links[li].next) {
      uint32_t j = s->links[li].needle;
      entry e;
      e.key = p->key;
      e.info = (j + 1) | (uint32_t)(p->len - 1) << 24;
      unsigned char lit[LITERAL_MAX];
      unsigned m = s->big ? literal_of(&e, &s->needles[j], text, lit) : 0;
      fill_entry_head(s, &e, text, m);
      uint32_t h = s->big ? literal_hash(literal_word(lit, m), m) : hash_key(p->key, p->len),
               at = h & s->slot_mask;
      if (s->big) s->big->filter[h / 64 % (BIG_FILTER_BITS / 64)] |= (uint64_t)1 << (h % 64);
      else s->f->filter[h / 64 % (FILTER_BITS / 64)] |= (uint64_t)1 << (h % 64);
      while (s->entries[at].info) at = (at + 1) & s->slot_mask;
      s->entries[at] = e;
      if (!s->big) {
        const set_needle *nd = &s->needles[j];
        add_ext_bits(&s->f->ext, p, text + nd->at + nd->skip, nd->len - nd->skip);
      }
    }
  }
}

/* ---- big sets: the shift-or table ------------------------------------- */

/* Buckets for literals of each length (count[m] of them from first[m]),
** given how many literals have each length. */
static void shift_or_buckets(shift_or *t, const size_t lits[LITERAL_MAX + 1],
                             unsigned char first[LITERAL_MAX + 1],
                             unsigned char count[LITERAL_MAX + 1]) {
  unsigned used = 0, top = 1;
  for (unsigned m = 1; m <= LITERAL_MAX; m++) {
    count[m] = lits[m] > 0;
    used += count[m];
    if (lits[m] > lits[top]) top = m;
  }
  count[top] = (unsigned char)(count[top] + SHIFT_OR_BUCKETS - used);
  for (unsigned m = 1, b = 0; m <= LITERAL_MAX; m++) {
    first[m] = (unsigned char)b;
    for (unsigned i = 0; i < count[m]; i++) t->len[b++] = (unsigned char)m;
  }
}

/* The domain of a byte c after the byte before (see "big sets"). */
static unsigned shift_or_domain(unsigned c, unsigned before) {
  return (c | 0x20) | (before & 0x1F) << 8;
}

/* A literal of m bytes as the table tests it: each byte's domain, and the
** odds that a position of English text holds it (byte 0 after any byte; the
** others after the literal's byte before, the odds of the pair), by the
** Markov chain of ifs_english_table.h. */
typedef struct literal_lanes {
  unsigned m;
  unsigned domain[LITERAL_MAX];
  double odds[LITERAL_MAX];
} literal_lanes;

static void literal_lanes_of(const unsigned char *lit, unsigned m, literal_lanes *l) {
  l->m = m;
  for (unsigned i = 0; i < m; i++) {
    unsigned c = ifs_en_class[lit[i]], half_bits = ifs_en_start[c];
    if (i) {
      unsigned before = ifs_en_class[lit[i - 1]];
      half_bits = ifs_en_start[before] + ifs_en_next[before][c];
    }
    l->domain[i] = shift_or_domain(lit[i], i ? lit[i - 1] : 0);
    l->odds[i] = (double)odds_of(half_bits) / (double)((uint64_t)1 << 58);
  }
}

/* What literal l adds to the odds of bucket b's lane for its byte i: that
** byte's odds, unless the table allows its domain there already. */
static double added_odds(const shift_or *t, unsigned b, const literal_lanes *l, unsigned i) {
  return t->reach[l->domain[i]] >> (8 * (l->m - 1 - i) + b) & 1 ? l->odds[i] : 0;
}

/* The odds of the domains each bucket's lanes allow, and of a position
** passing a bucket: the product over its lanes, as if they were
** independent (a lane's odds capped at 1). */
typedef struct bucket_odds {
  double lane[SHIFT_OR_BUCKETS][LITERAL_MAX];
} bucket_odds;

static double capped(double x) { return x < 1 ? x : 1; }

/* The bucket for literal l, greedily: of those of its length, the one
** whose odds of a pass it raises least. */
static unsigned literal_bucket(const shift_or *t, const bucket_odds *o, const literal_lanes *l,
                               const unsigned char first[LITERAL_MAX + 1],
                               const unsigned char count[LITERAL_MAX + 1]) {
  unsigned m = l->m, best = first[m];
  double best_rise = 0;
  for (unsigned b = first[m]; count[m] > 1 && b < first[m] + count[m]; b++) {
    double before = 1, after = 1;
    for (unsigned i = 0; i < m; i++) {
      double now = o->lane[b][m - 1 - i];
      before *= capped(now);
      after *= capped(now + added_odds(t, b, l, i));
    }
    if (b == first[m] || after - before < best_rise) {
      best_rise = after - before;
      best = b;
    }
  }
  return best;
}

static void allow(shift_or *t, unsigned lane, unsigned b, unsigned byte, unsigned before) {
  t->reach[shift_or_domain(byte, before)] &= ~((uint64_t)1 << (8 * lane + b));
}

static void fill_shift_or(ifs_needle_set *s, const char *text) {
  shift_or *t = s->big;
  size_t lits[LITERAL_MAX + 1] = {0};
  unsigned char lit[LITERAL_MAX], first[LITERAL_MAX + 1], count[LITERAL_MAX + 1];
  for (uint32_t at = 0; at <= s->slot_mask; at++) {
    const entry *e = &s->entries[at];
    if (e->info) lits[literal_of(e, &s->needles[entry_needle(e)], text, lit)]++;
  }
  shift_or_buckets(t, lits, first, count);
  for (unsigned ends = 0; ends < (1u << SHIFT_OR_BUCKETS); ends++) {
    t->lens[ends] = 0;
    for (unsigned b = 0; b < SHIFT_OR_BUCKETS; b++)
      if (ends >> b & 1) t->lens[ends] |= (uint16_t)(1u << t->len[b]);
  }
  memset(t->reach, 0xFF, sizeof t->reach);
  bucket_odds odds;
  memset(&odds, 0, sizeof odds);
  unsigned used = 0;
  for (uint32_t at = 0; at <= s->slot_mask; at++) {
    const entry *e = &s->entries[at];
    if (!e->info) continue;
    unsigned m = literal_of(e, &s->needles[entry_needle(e)], text, lit);
    literal_lanes lanes;
    literal_lanes_of(lit, m, &lanes);
    unsigned b = literal_bucket(t, &odds, &lanes, first, count);
    used |= 1u << b;
    for (unsigned i = 0; i < m; i++) odds.lane[b][m - 1 - i] += added_odds(t, b, &lanes, i);
    for (unsigned before = 0; before < 32; before++) allow(t, m - 1, b, lit[0], before);
    for (unsigned i = 1; i < m; i++) allow(t, m - 1 - i, b, lit[i], lit[i - 1]);
  }
  uint64_t free_lanes = 0;   /* (an empty bucket never has a candidate) */
  for (unsigned b = 0; b < SHIFT_OR_BUCKETS; b++)
    for (unsigned lane = t->len[b]; (used >> b & 1) && lane < LITERAL_MAX; lane++)
      free_lanes |= (uint64_t)1 << (8 * lane + b);
  for (size_t d = 0; d < (1u << DOMAIN_BITS); d++) t->reach[d] &= ~free_lanes;
}

static int exact_pass_runs(size_t k, int only_likely);

/* How the exact pass takes a needle: */
#define FITS 1          /* whole, and a match or a miss decides */
#define FITS_MAYBE 2    /* a match is verified (longer than EXACT_BYTES, a byte not a
                           letter, or a character not ASCII) */
#define FITS_ASCII 4    /* a miss in text not ASCII is searched for again (a byte lowered from KELVIN SIGN) */
#define FITS_SHARED 8   /* two to its bucket: a match is verified until one is found */
#define FITS_WIDE 16    /* a character not ASCII: in ASCII text, not there */

/* How the exact pass can take the lowered needle low[0..len): FITS and the
** other flags, or 0 when it cannot (NUL or DEL, or a character not ASCII
** that some character of another length lowers to, in its first
** EXACT_BYTES bytes: the pass matches byte by byte). */
static unsigned exact_fits(const char *low, size_t len) {
  if (len == 0) return 0;
  unsigned fits = FITS | (len > EXACT_BYTES ? FITS_MAYBE : 0);
  for (size_t i = 0; i < len && i < EXACT_BYTES;) {
    unsigned char c = (unsigned char)low[i];
    uint32_t src[3];
    if (c == 0 || c == 0x7F) return 0;
    if (c >= 0x80) {
      uint32_t cp = ifs_decode(low, len, &i);
      size_t n = ifs_lower_preimages(cp, src);
      if (n == 0) return 0;   /* (in no text: the filter's start answers it) */
      for (size_t j = 0; j < n; j++)
        if (ifs_utf8_len(src[j]) != ifs_utf8_len(cp)) return 0;
      fits |= FITS_MAYBE | FITS_WIDE;
      continue;
    }
    i++;
    if (c < 'a' || c > 'z') fits |= FITS_MAYBE;   /* folded alike with another byte */
    size_t n = ifs_lower_preimages(c, src);
    for (size_t j = 0; j < n; j++)
      if (src[j] >= 0x80) fits |= FITS_ASCII;
  }
  return fits;
}

/* The needles the exact pass decides, in pick[] (in order), and how[]
** each: its flags, and its bucket in bits 8 up.  Of the first likely
** needles, those that fit, up to EXACT_BUCKETS of them, each whole; in a
** set of those alone (see above), up to EXACT_NEEDLES, any way.  None in
** a big set, or where the pass does not run (exact_pass_runs).  How
** many. */
static unsigned exact_needles(const char *text, const ifs_span *span, size_t k, size_t likely,
                              uint32_t pick[EXACT_NEEDLES], unsigned how[EXACT_NEEDLES]) {
  int only_likely = likely >= k;
  if (k > BIG_NEEDLES || !exact_pass_runs(k, only_likely)) return 0;
  unsigned n = 0, most = only_likely ? EXACT_NEEDLES : EXACT_BUCKETS;
  for (size_t j = 0; j < k && j < likely && n < most; j++) {
    unsigned f = exact_fits(text + span[j].at, span[j].len);
    if (f == FITS || (f && only_likely)) {
      pick[n] = (uint32_t)j;
      how[n++] = f;
    }
  }
  /* buckets in turn to the needles decided whole, then to the verified
  ** ones, those not ASCII last; the last 2 * shared two to a bucket (so
  ** that a bucket of two not ASCII is out in ASCII text) */
  unsigned order[EXACT_NEEDLES], o = 0;
  static const unsigned tiers[] = {0, FITS_MAYBE, FITS_MAYBE | FITS_WIDE};
  for (unsigned tier = 0; tier < 3; tier++)
    for (unsigned i = 0; i < n; i++)
      if ((how[i] & (FITS_MAYBE | FITS_WIDE)) == tiers[tier]) order[o++] = i;
  unsigned shared = n > EXACT_BUCKETS ? n - EXACT_BUCKETS : 0, alone = n - 2 * shared;
  for (unsigned t = 0; t < n; t++)
    how[order[t]] |= t < alone ? t << 8 : FITS_SHARED | (alone + (t - alone) / 2) << 8;
  return n;
}

/* A byte as the exact pass reads it (see above): an ASCII one in six
** bits, one not ASCII in five. */
static unsigned exact_fold(unsigned c) {
  return c < 0x80 ? (c & 0x1F) | (c >> 1 & 0x20) : c & 0x1F;
}

/* The folded bytes that may stand at each of the first EXACT_BYTES bytes
** of a match of the lowered needle low[0..len), one that exact_fits()
** takes (bit v of allow[i]: folded byte v): the bytes of each character
** lowering to the needle's character there (an ASCII letter's capital
** folds alike; KELVIN SIGN is left to FITS_ASCII); past its end, any. */
static void exact_folds(const unsigned char *low, size_t len, uint64_t allow[EXACT_BYTES]) {
  for (size_t at = 0; at < EXACT_BYTES; at++) allow[at] = at < len ? 0 : ~(uint64_t)0;
  for (size_t i = 0; i < len && i < EXACT_BYTES;) {
    if (low[i] < 0x80) {
      allow[i] |= (uint64_t)1 << exact_fold(low[i]);
      i++;
      continue;
    }
    size_t at = i;
    uint32_t src[3];
    size_t n = ifs_lower_preimages(ifs_decode((const char *)low, len, &i), src);
    for (size_t j = 0; j < n; j++) {
      unsigned char b[4];
      size_t bytes = ifs_utf8_put(b, src[j]);
      for (size_t o = 0; o < bytes && at + o < EXACT_BYTES; o++)
        allow[at + o] |= (uint64_t)1 << exact_fold(b[o]);
    }
  }
}

/* The low four bits of any folded byte a set of them allows (bit v:
** folded byte v), as bits 0-15. */
static unsigned low_fours(uint64_t allow) {
  return (unsigned)(allow | allow >> 16 | allow >> 32 | allow >> 48) & 0xFFFF;
}

/* Bucket bit of e allows the lowered needle low[0..len) by its first
** EXACT_BYTES bytes (exact_folds; a set of folded bytes is kept as its
** low four bits' and its high two's, which allow their every pair). */
static void exact_add(exact_part *e, const unsigned char *low, size_t len, unsigned char bit) {
  uint64_t allow[EXACT_BYTES];
  exact_folds(low, len, allow);
  for (size_t at = 0; at < EXACT_BYTES; at++) {
    for (unsigned h = 0; h < 4; h++)
      if (allow[at] >> 16 * h & 0xFFFF) e->hi[at][h] |= bit;
    for (unsigned lows = low_fours(allow[at]); lows; lows &= lows - 1)
      e->lo[at][__builtin_ctz(lows)] |= bit;
  }
}

/* 1 when a needle taken so (how) keeps its folds for exact_retable: one not
** ASCII sharing a bucket (its characters' forms would be looked up again). */
static int keeps_folds(unsigned how) {
  return (how & (FITS_WIDE | FITS_SHARED)) == (FITS_WIDE | FITS_SHARED);
}

/* The needles of how[0 .. n) that keep their folds. */
static unsigned kept_folds(const unsigned *how, unsigned n) {
  unsigned kept = 0;
  for (unsigned i = 0; i < n; i++) kept += (unsigned)keeps_folds(how[i]);
  return kept;
}

/* The exact pass's tables for the needles of pick[0 .. n), each in its
** bucket (how[]), and the folds kept (kept_folds(), at folds). */
static void fill_exact(exact_part *e, const char *text, const ifs_span *span,
                       const uint32_t *pick, const unsigned *how, unsigned n,
                       uint64_t (*folds)[EXACT_BYTES]) {
  memset(e, 0, sizeof *e);
  e->folds = (const uint64_t (*)[EXACT_BYTES])folds;
  unsigned kept = 0;
  unsigned wide = 0, ascii = 0;   /* buckets holding a needle not ASCII; an ASCII one */
  for (e->n = 0; e->n < n; e->n++) {
    uint32_t j = pick[e->n];
    unsigned b = how[e->n] >> 8;
    unsigned char bit = (unsigned char)(1u << b);
    e->needle[e->n] = j;
    e->bucket[e->n] = (unsigned char)b;
    e->in_bucket[b] |= (uint16_t)(1u << e->n);
    e->how[e->n] = (unsigned char)(how[e->n] & (FITS_MAYBE | FITS_ASCII | FITS_SHARED | FITS_WIDE));
    if (how[e->n] & (FITS_MAYBE | FITS_SHARED)) e->maybe |= bit;
    if (how[e->n] & FITS_ASCII) e->again |= (uint16_t)(1u << e->n);
    if (how[e->n] & FITS_WIDE) wide |= bit; else ascii |= bit;
    exact_add(e, (const unsigned char *)text + span[j].at, span[j].len, bit);
    if (keeps_folds(how[e->n])) {
      exact_folds((const unsigned char *)text + span[j].at, span[j].len, folds[kept++]);
      e->kept |= (uint16_t)(1u << e->n);
    }
  }
  e->out_in_ascii = (unsigned char)(wide & ~ascii);
}

/* 8 or 64 bytes up from at. */
static size_t align8(size_t at) { return (at + 7) & ~(size_t)7; }
static size_t align64(size_t at) { return (at + 63) & ~(size_t)63; }

/* Lays out the set in one block of heap's, for np prefixes, nl links and,
** when exact, an exact part with nfolds folds kept: first what every
** search reads (header, the answers it starts with, needles, exact part
** and its folds, which a retable reads at once), then the filter's part
** (filter_part, entries, prefixes, links, a big set's table). */
static ifs_needle_set *set_alloc(ifs_heap *heap, size_t k, size_t np, size_t nl, int exact,
                                 size_t nfolds, uint64_t (**folds)[EXACT_BYTES]) {
  size_t slots = 16;
  while (slots < 2 * nl) slots *= 2;
  size_t at_start = sizeof(ifs_needle_set);
  size_t at_needles = align8(at_start + 2 * k);
  size_t at_exact = align64(at_needles + k * sizeof(set_needle));
  size_t at_folds = at_exact + (exact ? sizeof(exact_part) : 0);   /* read with it */
  size_t at_filter = align64(at_folds + (exact ? nfolds * sizeof(uint64_t[EXACT_BYTES]) : 0));
  size_t at_entries = align8(at_filter + sizeof(filter_part));
  size_t at_prefixes = align8(at_entries + slots * sizeof(entry));
  size_t at_links = at_prefixes + np * sizeof(prefix);
  size_t at_big = align64(at_links + nl * sizeof(needle_link));
  size_t bytes = k > BIG_NEEDLES ? at_big + sizeof(shift_or) : at_links + nl * sizeof(needle_link);
  char *block = ifs_heap_alloc(heap, bytes);
  if (!block) return NULL;
  ifs_needle_set *s = (ifs_needle_set *)(void *)block;
  memset(s, 0, sizeof *s);
  s->bytes = s->hot_bytes = bytes;
  s->k = k;
  s->np = np;
  s->slot_mask = (uint32_t)(slots - 1);
  s->start_all = (signed char *)(block + at_start);
  s->start_ascii = s->start_all + k;
  s->needles = (set_needle *)(void *)(block + at_needles);
  s->f = (filter_part *)(void *)(block + at_filter);
  memset(s->f, 0, sizeof *s->f);
  s->entries = (entry *)(void *)(block + at_entries);
  s->prefixes = (prefix *)(void *)(block + at_prefixes);
  s->links = (needle_link *)(void *)(block + at_links);
  memset(s->entries, 0, slots * sizeof(entry));
  if (k > BIG_NEEDLES) {
    s->big = (shift_or *)(void *)(block + at_big);
    memset(s->big->filter, 0, sizeof s->big->filter);
  } else if (exact) {
    s->exact = (exact_part *)(void *)(block + at_exact);
    *folds = (uint64_t (*)[EXACT_BYTES])(void *)(block + at_folds);
  }
  return s;
}

/* 1 when raw prefix i starts a new distinct prefix (the list is sorted). */
static int new_prefix(const raw_list *r, size_t i) {
  return i == 0 || r->p[i] >> 29 != r->p[i - 1] >> 29;
}

ifs_status ifs_needle_set_new(ifs_heap *heap, const char *text, const ifs_span *span, size_t k,
                              size_t likely, ifs_needle_set **set) {
  *set = NULL;
  if (k >= NEEDLES_MAX) return IFS_LIMIT;
  for (size_t j = 0; j < k; j++)
    if (span[j].at > UINT32_MAX || span[j].len > UINT32_MAX - span[j].at) return IFS_LIMIT;
  raw_list r = {NULL, 0, 0};
  uint32_t *skip = ifs_malloc(k * sizeof *skip);
  if (!skip) return IFS_NOMEM;
  uint32_t exact[EXACT_NEEDLES];   /* (no prefixes: the filter leaves them out) */
  unsigned exact_how[EXACT_NEEDLES];
  unsigned nexact = exact_needles(text, span, k, likely, exact, exact_how), next = 0;
  for (size_t j = 0; j < k; j++) {
    skip[j] = 0;
    if (next < nexact && exact[next] == j) {
      next++;
      continue;
    }
    skip[j] = (uint32_t)prefix_skip(text + span[j].at, span[j].len, k > BIG_NEEDLES);
    if (add_prefixes(&r, (uint32_t)j, text + span[j].at, span[j].len, skip[j])) {
      ifs_free(r.p);
      ifs_free(skip);
      return IFS_NOMEM;
    }
  }
  raw_sort(r.p, r.n);
  /* distinct prefixes, and distinct (prefix, needle) links */
  size_t np = 0, nl = 0;
  for (size_t i = 0; i < r.n; i++) {
    np += new_prefix(&r, i);
    nl += new_prefix(&r, i) || r.p[i] != r.p[i - 1];
  }
  uint64_t (*folds)[EXACT_BYTES] = NULL;
  ifs_needle_set *s =
      set_alloc(heap, k, np, nl, nexact != 0, kept_folds(exact_how, nexact), &folds);
  if (!s) {
    ifs_free(r.p);
    ifs_free(skip);
    return IFS_NOMEM;
  }
  for (size_t j = 0; j < k; j++) {
    set_needle *nd = &s->needles[j];
    nd->at = (uint32_t)span[j].at;
    nd->len = (uint32_t)span[j].len;
    nd->skip = skip[j];
    nd->buckets = 0;
    nd->ascii = (unsigned char)ifs_is_ascii(text + nd->at, nd->len);
  }
  ifs_free(skip);
  size_t p = 0, l = 0;
  for (size_t i = 0; i < r.n; i++) {
    if (new_prefix(&r, i)) {
      s->prefixes[p].key = raw_key(r.p[i]);
      s->prefixes[p].len = (unsigned char)raw_len(r.p[i]);
      s->prefixes[p].first = NO_LINK;
      p++;
    } else if (r.p[i] == r.p[i - 1]) {
      continue;
    }
    /* links are pushed in front: a prefix's needles end up in reverse */
    s->links[l].needle = raw_needle(r.p[i]);
    s->links[l].next = s->prefixes[p - 1].first;
    s->prefixes[p - 1].solo = s->prefixes[p - 1].first == NO_LINK ? raw_needle(r.p[i]) : NO_LINK;
    s->prefixes[p - 1].first = (uint32_t)l;
    l++;
  }
  ifs_free(r.p);
  assign_buckets(s, s->np <= NARROW_PREFIXES ? NARROW_BUCKETS : BUCKETS);
  for (size_t i = 0; i < s->np; i++)
    for (uint32_t li = s->prefixes[i].first; li != NO_LINK; li = s->links[li].next)
      s->needles[s->links[li].needle].buckets |= (uint16_t)(1u << s->prefixes[i].bucket);
  fill_tables(s);
  fill_entries(s, text);
  if (s->big) fill_shift_or(s, text);
  if (s->exact) fill_exact(s->exact, text, span, exact, exact_how, nexact, folds);
  /* no needle left for the filter in any text: its part is never read */
  if (!s->left_all) s->hot_bytes = (size_t)((const char *)s->f - (const char *)s);
  *set = s;
  return IFS_OK;
}

void ifs_needle_set_free(ifs_needle_set *s) { ifs_heap_release(s); }

size_t ifs_needle_set_bytes(const ifs_needle_set *s) { return s ? s->bytes : 0; }

size_t ifs_needle_set_hot_bytes(const ifs_needle_set *s) { return s ? s->hot_bytes : 0; }

/* A small set is asked for whole (its hot bytes): a row finding a few of
** its needles reads its entries, needles and prefixes, each line a miss in
** a cold plan.  Of a bigger one, its header, answers, filter's part and
** (if small) table. */
#define PREFETCH_WHOLE 8192

void ifs_needle_set_prefetch(const ifs_needle_set *s) {
  ifs_needle_set_prefetch_bytes(s, s->hot_bytes);
}

void ifs_needle_set_prefetch_bytes(const ifs_needle_set *s, size_t bytes) {
  if (bytes <= PREFETCH_WHOLE) {
    ifs_prefetch(s, bytes);
    return;
  }
  ifs_prefetch(s, sizeof *s);
  ifs_prefetch(s->start_all, 2 * s->k);
  ifs_prefetch(s->f, sizeof *s->f);
  size_t entries = ((size_t)s->slot_mask + 1) * sizeof(entry);
  if (entries <= 4096)   /* candidates land anywhere in a small table */
    ifs_prefetch(s->entries, entries);
}

/* ---- the filter ------------------------------------------------------- */

/* Buckets whose prefixes allow the bytes at q (bytes past the text allow
** all): the byte loop, and the reference for the vector loops. */
static unsigned filter_at(const tables *t, const unsigned char *h, size_t n, size_t q) {
  unsigned m = 0xFFFF;
  for (size_t k = 0; k < PREFIX_MAX && q + k < n; k++) {
    unsigned b = h[q + k];
    unsigned lo = t->lo[k][b & 15] | (unsigned)t->lo[k][16 + (b & 15)] << 8;
    unsigned hi = t->hi[k][b >> 4] | (unsigned)t->hi[k][16 + (b >> 4)] << 8;
    m &= lo & hi;
  }
  return m;
}

/* A vector loop scans blocks of 16 positions from q while all their bytes
** are in the text; it returns the first block with a candidate, and in
** *bits the positions of its candidates, or where it stopped and 0.  A
** block with some is tested again on the four bytes after each position
** (the ext tables) where those are in the text too; that only turns
** candidates down, so a loop without it (the byte loop) answers the same. */
#define BLOCK 16
#define BLOCK_READ (BLOCK + PREFIX_MAX - 1)
#define EXT_READ (BLOCK + 2 * PREFIX_MAX - 1)   /* with the bytes after the prefixes */

#if IFS_X86_SIMD
#define LOAD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))

/* Buckets 0-7 (*r0) and 8-15 (*r1) that tables tt allow at each of the 16
** positions from p. */
SSSE3_TARGET static inline void buckets_ssse3(const tables *tt, const unsigned char *p,
                                              __m128i *r0, __m128i *r1) {
  const __m128i nib = _mm_set1_epi8(0x0F);
  *r0 = *r1 = _mm_set1_epi8(-1);
  for (int k = 0; k < PREFIX_MAX; k++) {   /* the tables stay in L1 */
    __m128i x = LOAD16(p + k);
    __m128i lo = _mm_and_si128(x, nib), hi = _mm_and_si128(_mm_srli_epi16(x, 4), nib);
    *r0 = _mm_and_si128(*r0, _mm_and_si128(_mm_shuffle_epi8(LOAD16(tt->lo[k]), lo),
                                           _mm_shuffle_epi8(LOAD16(tt->hi[k]), hi)));
    *r1 = _mm_and_si128(*r1, _mm_and_si128(_mm_shuffle_epi8(LOAD16(tt->lo[k] + 16), lo),
                                           _mm_shuffle_epi8(LOAD16(tt->hi[k] + 16), hi)));
  }
}

SSSE3_TARGET static unsigned nonzero_ssse3(__m128i r0, __m128i r1) {
  const __m128i zero = _mm_setzero_si128();
  return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(r0, r1), zero)) & 0xFFFF;
}

SSSE3_TARGET static size_t block_ssse3(const tables *t, const tables *ext,
                                       const unsigned char *h, size_t n, size_t q,
                                       unsigned *bits) {
  for (; q + BLOCK_READ <= n; q += BLOCK) {
    __m128i r0, r1, e0, e1;
    buckets_ssse3(t, h + q, &r0, &r1);
    unsigned m = nonzero_ssse3(r0, r1);
    if (m && q + EXT_READ <= n) {   /* the bytes after the prefixes */
      buckets_ssse3(ext, h + q + PREFIX_MAX, &e0, &e1);
      m = nonzero_ssse3(_mm_and_si128(r0, e0), _mm_and_si128(r1, e1));
    }
    if (m) { *bits = m; return q; }
  }
  *bits = 0;
  return q;
}

/* The buckets that nibble tables tl and th (a lane each) allow for each
** byte of x. */
AVX2_TARGET static inline __m256i lookup_avx2(__m256i tl, __m256i th, __m256i x) {
  const __m256i nib = _mm256_set1_epi8(0x0F);
  return _mm256_and_si256(_mm256_shuffle_epi8(tl, _mm256_and_si256(x, nib)),
                          _mm256_shuffle_epi8(th, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
}

/* The AVX2 loop in two shapes, chosen by narrow (a constant at each call,
** so that each is compiled on its own): sixteen buckets, each table whole,
** 16 positions a step (the same 16 text bytes in both lanes: buckets 0-7
** left, 8-15 right); or a narrow set's eight, each table's left lane in
** both lanes, 32 positions a step. */
#define NARROW 32
#define AVX2_INLINE AVX2_TARGET static inline __attribute__((always_inline))

AVX2_INLINE __m256i table_avx2(const unsigned char *table, int narrow) {
  return narrow ? _mm256_broadcastsi128_si256(LOAD16(table)) : IFS_LOAD32(table);
}

/* The buckets allowing the byte at each position of a step from p. */
AVX2_INLINE __m256i buckets_avx2(__m256i tl, __m256i th, const unsigned char *p, int narrow) {
  return lookup_avx2(tl, th, narrow ? IFS_LOAD32(p) : _mm256_broadcastsi128_si256(LOAD16(p)));
}

/* The buckets that the ext tables, read from memory (held in registers,
** they would be loaded again at every step with candidates), allow for
** byte k after each position of a step from a - PREFIX_MAX. */
AVX2_INLINE __m256i ext_avx2(const tables *ext, int k, const unsigned char *a, int narrow) {
  return buckets_avx2(table_avx2(ext->lo[k], narrow), table_avx2(ext->hi[k], narrow), a + k,
                      narrow);
}

/* The positions of a step where some bucket of r allows a prefix. */
AVX2_INLINE unsigned nonzero_avx2(__m256i r, int narrow) {
  unsigned m = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(r, _mm256_setzero_si256()));
  return narrow ? m : (m | m >> 16) & 0xFFFF;
}

AVX2_INLINE size_t loop_avx2(const tables *t, const tables *ext, const unsigned char *h,
                             size_t n, size_t q, uint64_t *bits, int narrow) {
  const size_t step = narrow ? NARROW : BLOCK;
  const __m256i l0 = table_avx2(t->lo[0], narrow), l1 = table_avx2(t->lo[1], narrow),
                l2 = table_avx2(t->lo[2], narrow), l3 = table_avx2(t->lo[3], narrow),
                h0 = table_avx2(t->hi[0], narrow), h1 = table_avx2(t->hi[1], narrow),
                h2 = table_avx2(t->hi[2], narrow), h3 = table_avx2(t->hi[3], narrow);
  for (; q + step + PREFIX_MAX - 1 <= n; q += step) {
    __m256i r = _mm256_and_si256(
        _mm256_and_si256(buckets_avx2(l0, h0, h + q, narrow),
                         buckets_avx2(l1, h1, h + q + 1, narrow)),
        _mm256_and_si256(buckets_avx2(l2, h2, h + q + 2, narrow),
                         buckets_avx2(l3, h3, h + q + 3, narrow)));
    unsigned m = nonzero_avx2(r, narrow);
    if (m && q + step + 2 * PREFIX_MAX - 1 <= n) {   /* the bytes after the prefixes */
      const unsigned char *a = h + q + PREFIX_MAX;
      __m256i e = _mm256_and_si256(
          _mm256_and_si256(ext_avx2(ext, 0, a, narrow), ext_avx2(ext, 1, a, narrow)),
          _mm256_and_si256(ext_avx2(ext, 2, a, narrow), ext_avx2(ext, 3, a, narrow)));
      m = nonzero_avx2(_mm256_and_si256(r, e), narrow);
    }
    if (m) { *bits = m; return q; }
  }
  *bits = 0;
  return q;
}

AVX2_TARGET static size_t block_avx2(const tables *t, const tables *ext, const unsigned char *h,
                                     size_t n, size_t q, uint64_t *bits) {
  return loop_avx2(t, ext, h, n, q, bits, 0);
}

AVX2_TARGET static size_t narrow_block_avx2(const tables *t, const tables *ext,
                                            const unsigned char *h, size_t n, size_t q,
                                            uint64_t *bits) {
  return loop_avx2(t, ext, h, n, q, bits, 1);
}

/* AVX-512: 64 positions a step, each 16-byte lane a copy of the AVX2 loop's
** (buckets 0-7 and 8-15 in two registers, the tables repeated in every
** lane); the step's candidates come out as one 64-bit mask. */
#define WIDE 64
#define WIDE_EXT_READ (WIDE + 2 * PREFIX_MAX - 1)

#define AVX512_INLINE AVX512_TARGET static inline __attribute__((always_inline))

/* The 64 bytes from p, of which the first left are the text's: those past
** them read as zeros, their memory untouched (a masked load). */
AVX512_INLINE __m512i tail_avx512(const unsigned char *p, size_t left) {
  return _mm512_maskz_loadu_epi8(left >= WIDE ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1, p);
}

/* Buckets 0-7 (*a) and, unless narrow, 8-15 (*b) that tables tt allow at
** each of the 64 positions from p (the tables read from memory: held in
** registers, they would be loaded again at every block with candidates,
** which costs more).  left: the text's bytes from p when a step would
** read past them (those past read as zeros), else SIZE_MAX.  Unrolled:
** GCC keeps the loop otherwise, a branch and two register moves per prefix
** byte. */
AVX512_INLINE void buckets_avx512(const tables *tt, const unsigned char *p, __m512i *a,
                                  __m512i *b, int narrow, size_t left) {
  const __m512i nib = _mm512_set1_epi8(0x0F);
  *a = *b = _mm512_set1_epi8(-1);
#pragma GCC unroll 4
  for (int k = 0; k < PREFIX_MAX; k++) {
    __m512i x = left == SIZE_MAX ? _mm512_loadu_si512((const void *)(p + k))
                                 : tail_avx512(p + k, left > (size_t)k ? left - (size_t)k : 0);
    __m512i lo = _mm512_and_si512(x, nib), hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), nib);
    *a = _mm512_and_si512(*a, _mm512_and_si512(
        _mm512_shuffle_epi8(_mm512_broadcast_i32x4(LOAD16(tt->lo[k])), lo),
        _mm512_shuffle_epi8(_mm512_broadcast_i32x4(LOAD16(tt->hi[k])), hi)));
    if (!narrow)
      *b = _mm512_and_si512(*b, _mm512_and_si512(
          _mm512_shuffle_epi8(_mm512_broadcast_i32x4(LOAD16(tt->lo[k] + 16)), lo),
          _mm512_shuffle_epi8(_mm512_broadcast_i32x4(LOAD16(tt->hi[k] + 16)), hi)));
  }
  if (narrow) *b = _mm512_setzero_si512();
}

/* The candidates of the step at p whose prefixes' bytes buckets a and b
** allow: bits of the positions where some bucket allows the bytes after
** them too.  left: as above, for the prefix's bytes (the bytes after it
** then have left - PREFIX_MAX). */
AVX512_INLINE uint64_t second_stage_avx512(const tables *ext, const unsigned char *p,
                                           size_t left, int narrow, __m512i a, __m512i b) {
  __m512i any = _mm512_or_si512(a, b), ea, eb;
  uint64_t m = _mm512_test_epi8_mask(any, any);
  if (!m) return 0;
  /* the second stage's tables read here, not held in registers from the
  ** loop's start: with the first stage's there (all sixteen of the VBMI
  ** loop's), some of those would be left in memory, read at every step */
  __asm__("" : "+r"(ext));
  buckets_avx512(ext, p + PREFIX_MAX, &ea, &eb, narrow,
                 left == SIZE_MAX ? SIZE_MAX : left > PREFIX_MAX ? left - PREFIX_MAX : 0);
  any = _mm512_or_si512(_mm512_and_si512(a, ea), _mm512_and_si512(b, eb));
  return _mm512_test_epi8_mask(any, any);
}

/* The candidates of the step at p. */
AVX512_INLINE uint64_t step_avx512(const tables *t, const tables *ext, const unsigned char *p,
                                   size_t left, int narrow) {
  __m512i a, b;
  buckets_avx512(t, p, &a, &b, narrow, left);
  return second_stage_avx512(ext, p, left, narrow, a, b);
}

/* The AVX-512 loop in two shapes, as the AVX2 one: sixteen buckets, or a
** narrow set's eight (half the shuffles a step).  Its last steps read the
** text's end by masked loads, the bytes past it as zeros, which a bucket
** may let through (a verification then turns the position down) or not:
** no match reaches past the text, so no match is lost.  Returns n when no
** step has candidates. */
AVX512_INLINE size_t loop_avx512(const tables *t, const tables *ext, const unsigned char *h,
                                 size_t n, size_t q, uint64_t *bits, int narrow) {
  for (; q + WIDE_EXT_READ <= n; q += WIDE) {
    uint64_t m = step_avx512(t, ext, h + q, SIZE_MAX, narrow);
    if (m) { *bits = m; return q; }
  }
  for (; q < n; q += WIDE) {
    uint64_t m = step_avx512(t, ext, h + q, n - q, narrow);
    if (n - q < WIDE) m &= ((uint64_t)1 << (n - q)) - 1;
    if (m) { *bits = m; return q; }
  }
  *bits = 0;
  return n;
}

AVX512_TARGET static size_t block_avx512(const tables *t, const tables *ext,
                                         const unsigned char *h, size_t n, size_t q,
                                         uint64_t *bits) {
  return loop_avx512(t, ext, h, n, q, bits, 0);
}

AVX512_TARGET static size_t narrow_block_avx512(const tables *t, const tables *ext,
                                                const unsigned char *h, size_t n, size_t q,
                                                uint64_t *bits) {
  return loop_avx512(t, ext, h, n, q, bits, 1);
}

/* AVX-512 VBMI: the first stage by byte tables.  vpermi2b looks up a byte
** in a table of 128 bytes: a prefix byte's buckets come from one look-up
** for each eight, where the nibbles take two shuffles and three operations
** to split the byte, and the first stage is most of a step's work (a step
** of sixteen buckets in about two thirds of the cycles, measured alone on
** an AMD EPYC; 512-bit loads of the text, not the look-ups, then bound it).
** The index is the byte's low seven bits, so each entry allows what the
** two bytes it stands for allow: a byte of the text is let through
** whenever the nibble tables let it through, and more only where
** verification turns the position down.  The second stage keeps the
** nibble tables: it runs only at steps with candidates. */
#define VBMI_INLINE VBMI_TARGET static inline __attribute__((always_inline))

/* The low and the high nibble of bytes 0-63, which index nibble tables to
** make byte tables (those of bytes 64-127: the same low nibbles, the high
** ones + 4). */
static const unsigned char low_nibble[64] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5,
    6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const unsigned char high_nibble[64] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};

/* The groups of eight buckets in mask (bit 0: buckets 0-7, bit 1: 8-15)
** of byte tables bt, from nibble tables t: entry i of a prefix byte is
** lo[i & 15] & (hi[i >> 4] | hi[(i >> 4) | 8]), the high nibbles of i and
** of i | 0x80 merged first, in one 16-byte lane. */
AVX512_TARGET static void fill_byte_tables(const tables *t, byte_tables *bt, unsigned mask) {
  const __m512i lo_idx = _mm512_loadu_si512((const void *)low_nibble);
  const __m512i hi_idx[2] = {_mm512_loadu_si512((const void *)high_nibble),
                             _mm512_add_epi8(_mm512_loadu_si512((const void *)high_nibble),
                                             _mm512_set1_epi8(4))};
  const __m128i upper = _mm_setr_epi8(8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15);
  for (unsigned g = 0; g < 2; g++) {
    if (!(mask >> g & 1)) continue;
    for (int k = 0; k < PREFIX_MAX; k++) {
      __m128i hi16 = LOAD16(t->hi[k] + 16 * g);
      __m512i hi = _mm512_broadcast_i32x4(_mm_or_si128(hi16, _mm_shuffle_epi8(hi16, upper)));
      __m512i lo_bits = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(LOAD16(t->lo[k] + 16 * g)), lo_idx);
      for (int half = 0; half < 2; half++)
        _mm512_store_si512((void *)(bt->b[k][g] + 64 * half),
                           _mm512_and_si512(lo_bits, _mm512_shuffle_epi8(hi, hi_idx[half])));
    }
  }
}

/* Bucket b out of byte tables bt: its bit cleared in the first byte's
** table, in the stores' width, which the loop's loads then take from. */
AVX512_TARGET static void kill_byte_bucket(byte_tables *bt, unsigned b) {
  __m512i keep = _mm512_set1_epi8((char)~(1u << (b & 7)));
  unsigned char *tb = bt->b[0][b >> 3];
  _mm512_store_si512((void *)tb, _mm512_and_si512(_mm512_load_si512((const void *)tb), keep));
  _mm512_store_si512((void *)(tb + 64),
                     _mm512_and_si512(_mm512_load_si512((const void *)(tb + 64)), keep));
}

/* Buckets 0-7 (*a) and, unless narrow, 8-15 (*b) that byte tables bt
** allow at each of the 64 positions from p; left as in buckets_avx512. */
VBMI_INLINE void bytes_vbmi(const byte_tables *bt, const unsigned char *p, __m512i *a, __m512i *b,
                            int narrow, size_t left) {
  *a = *b = _mm512_set1_epi8(-1);
#pragma GCC unroll 4
  for (int k = 0; k < PREFIX_MAX; k++) {
    __m512i x = left == SIZE_MAX ? _mm512_loadu_si512((const void *)(p + k))
                                 : tail_avx512(p + k, left > (size_t)k ? left - (size_t)k : 0);
    /* one load for both look-ups (each overwrites its copy of the index):
    ** GCC loads it again for the second, and loads are what a step waits on */
    __asm__("" : "+v"(x));
    *a = _mm512_and_si512(*a, _mm512_permutex2var_epi8(
                                  _mm512_load_si512((const void *)bt->b[k][0]), x,
                                  _mm512_load_si512((const void *)(bt->b[k][0] + 64))));
    if (!narrow)
      *b = _mm512_and_si512(*b, _mm512_permutex2var_epi8(
                                    _mm512_load_si512((const void *)bt->b[k][1]), x,
                                    _mm512_load_si512((const void *)(bt->b[k][1] + 64))));
  }
  if (narrow) *b = _mm512_setzero_si512();
}

/* step_avx512() with the first stage by byte tables. */
VBMI_INLINE uint64_t step_vbmi(const byte_tables *bt, const tables *ext, const unsigned char *p,
                               size_t left, int narrow) {
  __m512i a, b;
  bytes_vbmi(bt, p, &a, &b, narrow, left);
  return second_stage_avx512(ext, p, left, narrow, a, b);
}

/* The text's last steps (masked loads), apart from the loop so that its
** registers hold the sixteen tables. */
VBMI_TARGET static __attribute__((noinline)) size_t tail_vbmi(const byte_tables *bt,
                                                              const tables *ext,
                                                              const unsigned char *h, size_t n,
                                                              size_t q, uint64_t *bits,
                                                              int narrow) {
  for (; q < n; q += WIDE) {
    uint64_t m = narrow ? step_vbmi(bt, ext, h + q, n - q, 1) : step_vbmi(bt, ext, h + q, n - q, 0);
    if (n - q < WIDE) m &= ((uint64_t)1 << (n - q)) - 1;
    if (m) { *bits = m; return q; }
  }
  *bits = 0;
  return n;
}

/* loop_avx512() with step_vbmi(). */
VBMI_INLINE size_t loop_vbmi(const byte_tables *bt, const tables *ext, const unsigned char *h,
                             size_t n, size_t q, uint64_t *bits, int narrow) {
  for (; q + WIDE_EXT_READ <= n; q += WIDE) {
    uint64_t m = step_vbmi(bt, ext, h + q, SIZE_MAX, narrow);
    if (m) { *bits = m; return q; }
  }
  return tail_vbmi(bt, ext, h, n, q, bits, narrow);
}

VBMI_TARGET static size_t block_vbmi(const byte_tables *bt, const tables *ext,
                                     const unsigned char *h, size_t n, size_t q, uint64_t *bits) {
  return loop_vbmi(bt, ext, h, n, q, bits, 0);
}

VBMI_TARGET static size_t narrow_block_vbmi(const byte_tables *bt, const tables *ext,
                                            const unsigned char *h, size_t n, size_t q,
                                            uint64_t *bits) {
  return loop_vbmi(bt, ext, h, n, q, bits, 1);
}

/* The buckets set in any of r's bytes. */
AVX2_INLINE unsigned buckets_avx2_of(__m256i r) {
  __m128i b = _mm_or_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
  b = _mm_or_si128(b, _mm_srli_si128(b, 8));
  b = _mm_or_si128(b, _mm_srli_si128(b, 4));
  b = _mm_or_si128(b, _mm_srli_si128(b, 2));
  b = _mm_or_si128(b, _mm_srli_si128(b, 1));
  return (unsigned)_mm_cvtsi128_si32(b) & 0xFF;
}

/* The buckets set in any of v's bytes. */
VBMI_INLINE unsigned exact_buckets(__m512i v) {
  return buckets_avx2_of(
      _mm256_or_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)));
}

/* The exact pass (see above): the buckets of st->e matching somewhere in
** h[0..n), and, for its verified buckets (st->watch), the needles found
** where they matched (exact_settle).  The text is folded a chunk at a time
** into a buffer on the stack (fold_chunk), and every step looks up all
** eight bytes of its 64 positions there, one vpermb each, without a
** branch but for a match of a bucket watched: a first stage of four
** with a branch to the rest (half the look-ups for words seldom there)
** took 1.04 to 1.07 of the time of rows of a case's own words, which are
** found (make bench --compare). */
#define EXACT_CHUNK 2048
#define EXACT_LOOK(o) _mm512_permutexvar_epi8(_mm512_loadu_si512((const void *)(f + q + (o))), t[o])

/* The byte table of needle byte o, the buckets allowing each folded byte
** (entry i: lo[i & 15] & hi[i >> 4]), made from e's nibble tables. */
VBMI_INLINE __m512i exact_table(const exact_part *e, int o, __m512i high) {
  __m512i l = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)e->lo[o]));
  __m512i h = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)e->hi[o]));
  return _mm512_and_si512(l, _mm512_shuffle_epi8(h, high));
}

VBMI_INLINE void exact_tables(const exact_part *e, __m512i t[EXACT_BYTES]) {
  const __m512i high = _mm512_loadu_si512((const void *)high_nibble);
#pragma GCC unroll 8
  for (int o = 0; o < EXACT_BYTES; o++) t[o] = exact_table(e, o, high);
}

/* Bucket b of tables t made the lowered needle low[0..len)'s alone: at
** each byte, the entries of the folded bytes that may stand there (kept:
** folds; or, for a needle ASCII in those bytes, its folded byte). */
VBMI_TARGET static __attribute__((noinline, cold)) void exact_retable(__m512i t[EXACT_BYTES],
                                                                    unsigned b,
                                                                    const unsigned char *low,
                                                                    size_t len,
                                                                    const uint64_t *folds) {
  const __m512i folded = _mm512_or_si512(
      _mm512_loadu_si512((const void *)low_nibble),
      _mm512_slli_epi16(_mm512_loadu_si512((const void *)high_nibble), 4));   /* entry i: i */
  const __m512i bit = _mm512_set1_epi8((char)(1u << b));
  for (size_t o = 0; o < EXACT_BYTES; o++) {
    __m512i want = _mm512_set1_epi8((char)(o < len ? exact_fold(low[o]) : 0));
    __mmask64 m = folds ? (__mmask64)folds[o]
                  : o < len ? _mm512_cmpeq_epi8_mask(folded, want) : ~(__mmask64)0;
    t[o] = _mm512_andnot_si512(bit, t[o]);
    t[o] = _mm512_mask_mov_epi8(t[o], m, _mm512_or_si512(t[o], bit));
  }
}

/* h[0..len) folded (exact_fold) into f, and DEL folded after it up to
** f[pad). */
VBMI_INLINE void fold_chunk(unsigned char *f, const unsigned char *h, size_t len, size_t pad,
                            int ascii) {
  const __m512i low5 = _mm512_set1_epi8(0x1F), del = _mm512_set1_epi8(0x7F);
  const __m512i bit5 = _mm512_set1_epi8(0x20);
  for (size_t i = 0; i < pad; i += WIDE) {
    size_t left = len > i ? len - i : 0;
    __mmask64 m = left >= WIDE ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
    __m512i v = _mm512_mask_loadu_epi8(del, m, h + i);   /* past len: DEL, unread */
    /* (v & 0x1F) | (v >> 1 & 0x20): bits 6-7 are left as they fall, vpermb reads 0-5 */
    __m512i u = _mm512_ternarylogic_epi32(low5, v, _mm512_srli_epi16(v, 1), 0xCA);
    if (!ascii)   /* bit 5 cleared where bit 7 is set */
      u = _mm512_ternarylogic_epi32(u, _mm512_srli_epi16(v, 2), bit5, 0x70);
    _mm512_storeu_si512((void *)(f + i), u);
  }
}

/* exact_vbmi() with a branch for buckets watched (watching: e->maybe) or
** none. */
VBMI_INLINE unsigned exact_loops(search *x, const unsigned char *h, size_t n, int ascii,
                                 exact_state *st, int watching) {
  __m512i t[EXACT_BYTES];
  exact_tables(st->e, t);
  if (ascii && st->e->out_in_ascii)
    t[0] = _mm512_andnot_si512(_mm512_set1_epi8((char)st->e->out_in_ascii), t[0]);
  unsigned char f[EXACT_CHUNK + 2 * WIDE];
  __m512i acc = _mm512_setzero_si512();
  __m512i watched = _mm512_set1_epi8((char)st->watch);
  for (size_t c = 0; c < n; c += EXACT_CHUNK) {
    size_t len = n - c < EXACT_CHUNK ? n - c : EXACT_CHUNK;   /* positions */
    size_t after = n - c - len < EXACT_BYTES ? n - c - len : EXACT_BYTES - 1;   /* read too */
    size_t steps = (len + WIDE - 1) / WIDE;
    fold_chunk(f, h + c, len + after, steps * WIDE + WIDE, ascii);
    for (size_t q = 0; q < steps * WIDE;) {
      __m512i r0 = _mm512_and_si512(EXACT_LOOK(0), EXACT_LOOK(1));
      __m512i r1 = _mm512_and_si512(EXACT_LOOK(2), EXACT_LOOK(3));
      __m512i r2 = _mm512_and_si512(EXACT_LOOK(4), EXACT_LOOK(5));
      __m512i r3 = _mm512_and_si512(EXACT_LOOK(6), EXACT_LOOK(7));
      __m512i r = _mm512_ternarylogic_epi64(_mm512_and_si512(r0, r1), r2, r3, 0x80);
      size_t width = len - q < WIDE ? len - q : WIDE;
      if (width < WIDE)   /* positions past the text: none */
        r = _mm512_maskz_mov_epi8(((__mmask64)1 << width) - 1, r);
      if (watching && __builtin_expect(_mm512_test_epi8_mask(r, watched), 0)) {
        uint64_t at[EXACT_BUCKETS];
        for (unsigned w = st->watch; w; w &= w - 1)
          at[__builtin_ctz(w)] = _mm512_test_epi8_mask(r, _mm512_set1_epi8((char)(w & -w)));
        unsigned narrowed = exact_settle(x, st, at, st->watch, c + q);
        watched = _mm512_set1_epi8((char)st->watch);
        if (narrowed) {   /* their matches so far verified: from this step, by the new tables */
          acc = _mm512_andnot_si512(_mm512_set1_epi8((char)narrowed), acc);
          __m512i u[EXACT_BYTES];   /* (t's address taken, t would not stay in registers) */
#pragma GCC unroll 8
          for (int o = 0; o < EXACT_BYTES; o++) u[o] = t[o];
          for (; narrowed; narrowed &= narrowed - 1) {
            unsigned b = (unsigned)__builtin_ctz(narrowed);
            exact_retable(u, b, st->left[b], st->left_len[b], st->left_folds[b]);
          }
#pragma GCC unroll 8
          for (int o = 0; o < EXACT_BYTES; o++) t[o] = u[o];
          continue;
        }
      }
      acc = _mm512_or_si512(acc, r);
      q += WIDE;
    }
  }
  return exact_buckets(acc);
}

/* (x: for exact_settle, which verifies there) */
VBMI_TARGET static unsigned exact_vbmi(search *x, const unsigned char *h, size_t n, int ascii,
                                       exact_state *st) {
  return st->watch ? exact_loops(x, h, n, ascii, st, 1) : exact_loops(x, h, n, ascii, st, 0);
}

/* The exact pass without VBMI (AVX2): the same set, its buckets looked up
** by each byte's low four bits alone, in the lo tables (which hold, for a
** folded byte's low four bits, the buckets allowing some folded byte with
** them; folding keeps a byte's low four bits), one vpshufb for each of
** the eight bytes of 32 positions.  Letters sixteen apart look alike
** there, so no match decides: every bucket is watched, and each of its
** matches verified (exact_settle) until its needles are found, a bucket
** narrowed to one needle made again for it (exact_retable_avx2).  Byte
** and nibble tables both (sixteen shuffles a step, exact) cost as much as
** the finds they took from the filter; half the shuffles and a check at
** each match cost less.  A step reads its bytes as they are: vpshufb
** indexes by a byte's low four bits, and gives no bucket for one with bit
** 7 set.  So ASCII text is read in place (its last steps from a copy with
** zeros after); other text from a chunk of its bytes' low four bits (a
** byte not ASCII may stand past a needle's end, where any byte matches,
** and a needle not ASCII is matched by its bytes' low four bits), made 32
** bytes an operation.  The chunk and the look-ups without an AND, a word
** of letters verified by one compare (exact_verify) and only the buckets
** matching at a step settled took 0.76 (generated answers) and 0.84
** (corpus) of the time of a case's ten words (C program), and 0.92 and
** 0.95 of the time of the rows of each case its own list (make bench
** --compare). */
AVX2_INLINE __m256i exact_look_avx2(const __m256i *t, const unsigned char *p, int o) {
  return _mm256_shuffle_epi8(t[o], IFS_LOAD32(p + o));
}

/* Bucket b of tables t (lo tables, both lanes alike) made the lowered
** needle low[0..len)'s alone (by its kept folds, when not NULL): at each
** byte, the low four bits of the folded bytes that may stand there. */
AVX2_TARGET static __attribute__((noinline, cold)) void exact_retable_avx2(
    __m256i t[EXACT_BYTES], unsigned b, const unsigned char *low, size_t len,
    const uint64_t *folds) {
  uint64_t allow[EXACT_BYTES];
  if (!folds) {
    exact_folds(low, len, allow);
    folds = allow;
  }
  const __m256i bit = _mm256_set1_epi8((char)(1u << b));
  const __m256i which = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                         0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m256i each = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64,
                                        -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32,
                                        64, -128);
  for (int o = 0; o < EXACT_BYTES; o++) {
    /* entry i: bit i of the low fours */
    __m256i m = _mm256_shuffle_epi8(_mm256_set1_epi16((short)low_fours(folds[o])), which);
    m = _mm256_cmpeq_epi8(_mm256_and_si256(m, each), each);
    t[o] = _mm256_or_si256(_mm256_andnot_si256(bit, t[o]), _mm256_and_si256(m, bit));
  }
}

/* The buckets of tables t matching at each of the 32 positions from p. */
AVX2_INLINE __m256i exact_step_avx2(const __m256i *t, const unsigned char *p) {
  return _mm256_and_si256(
      _mm256_and_si256(_mm256_and_si256(exact_look_avx2(t, p, 0), exact_look_avx2(t, p, 1)),
                       _mm256_and_si256(exact_look_avx2(t, p, 2), exact_look_avx2(t, p, 3))),
      _mm256_and_si256(_mm256_and_si256(exact_look_avx2(t, p, 4), exact_look_avx2(t, p, 5)),
                       _mm256_and_si256(exact_look_avx2(t, p, 6), exact_look_avx2(t, p, 7))));
}

/* The step at q matched some watched bucket (r): its matches settled, and
** the tables of the buckets narrowed made again; 1 when the step is to be
** made again. */
AVX2_TARGET static int exact_settle_avx2(search *x, exact_state *st, __m256i t[EXACT_BYTES],
                                         __m256i r, size_t q, size_t n) {
  uint64_t at[EXACT_BUCKETS];
  uint32_t inside = n - q < NARROW ? ((uint32_t)1 << (n - q)) - 1 : ~(uint32_t)0;
  unsigned hit = buckets_avx2_of(r) & st->watch;
  for (unsigned w = hit; w; w &= w - 1) {
    __m256i bit = _mm256_set1_epi8((char)(w & -w));
    at[__builtin_ctz(w)] =
        (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(r, bit), bit)) & inside;
  }
  unsigned narrowed = exact_settle(x, st, at, hit, q);
  for (unsigned m = narrowed; m; m &= m - 1) {   /* their matches so far verified */
    unsigned b = (unsigned)__builtin_ctz(m);
    exact_retable_avx2(t, b, st->left[b], st->left_len[b], st->left_folds[b]);
  }
  return narrowed != 0;
}

/* exact_settle_avx2() on a copy of t: t's address taken, t would not stay
** in registers. */
AVX2_INLINE int exact_watched_avx2(search *x, exact_state *st, __m256i t[EXACT_BYTES],
                                   __m256i r, size_t q, size_t n) {
  __m256i u[EXACT_BYTES];
#pragma GCC unroll 8
  for (int o = 0; o < EXACT_BYTES; o++) u[o] = t[o];
  int again = exact_settle_avx2(x, st, u, r, q, n);
#pragma GCC unroll 8
  for (int o = 0; o < EXACT_BYTES; o++) t[o] = u[o];
  return again;
}

/* The pass's steps over positions base .. base + len of the text, whose
** bytes (or their low four bits) p holds from base, readable to the last
** step's end; 0 once no bucket is watched. */
AVX2_INLINE int exact_steps_avx2(search *x, exact_state *st, __m256i t[EXACT_BYTES],
                                 const unsigned char *p, size_t len, size_t base) {
  __m256i watched = _mm256_set1_epi8((char)st->watch);
  for (size_t q = 0; q < len;) {
    __m256i r = exact_step_avx2(t, p + q);
    if (__builtin_expect(!_mm256_testz_si256(r, watched), 0)) {
      int again = exact_watched_avx2(x, st, t, r, base + q, base + len);
      if (!st->watch) return 0;
      watched = _mm256_set1_epi8((char)st->watch);
      if (again) continue;   /* the step made again by the new tables */
    }
    q += NARROW;
  }
  return 1;
}

/* f[0 .. len): the low four bits of h[0 .. len); zeros after, to f[pad). */
AVX2_INLINE void low_fours_chunk(unsigned char *f, const unsigned char *h, size_t len,
                                 size_t pad) {
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  size_t i = 0;
  for (; i + NARROW <= len; i += NARROW)
    _mm256_storeu_si256((__m256i *)(void *)(f + i), _mm256_and_si256(IFS_LOAD32(h + i), low4));
  memset(f + i, 0, pad - i);
  for (; i < len; i++) f[i] = h[i] & 0x0F;
}

/* The exact pass without VBMI over h[0..n) (see above). */
AVX2_TARGET static unsigned exact_avx2(search *x, const unsigned char *h, size_t n, int ascii,
                                       exact_state *st) {
  const exact_part *e = st->e;
  __m256i t[EXACT_BYTES];
  for (int o = 0; o < EXACT_BYTES; o++) t[o] = _mm256_broadcastsi128_si256(LOAD16(e->lo[o]));
  if (ascii && e->out_in_ascii)
    t[0] = _mm256_andnot_si256(_mm256_set1_epi8((char)e->out_in_ascii), t[0]);
  if (ascii) {
    size_t whole = n >= EXACT_BYTES ? (n - (EXACT_BYTES - 1)) / NARROW * NARROW : 0;
    if (exact_steps_avx2(x, st, t, h, whole, 0) && n > whole) {
      unsigned char last[2 * NARROW + EXACT_BYTES];   /* the last steps' bytes, zeros after */
      memset(last, 0, sizeof last);
      memcpy(last, h + whole, n - whole);
      exact_steps_avx2(x, st, t, last, n - whole, whole);
    }
  } else {
    unsigned char f[EXACT_CHUNK + NARROW + EXACT_BYTES];
    for (size_t c = 0; c < n; c += EXACT_CHUNK) {
      size_t len = n - c < EXACT_CHUNK ? n - c : EXACT_CHUNK;   /* positions */
      size_t after = n - c - len < EXACT_BYTES ? n - c - len : EXACT_BYTES - 1;   /* read too */
      low_fours_chunk(f, h + c, len + after, sizeof f);
      if (!exact_steps_avx2(x, st, t, f, len, c)) break;
    }
  }
  return 0;   /* (no match decides) */
}
#endif

#if IFS_NEON
/* Buckets 0-7 (*r0) and 8-15 (*r1) that tables tt allow at each of the 16
** positions from p: buckets_ssse3() with NEON's table lookup (vqtbl1q_u8 is
** pshufb for indexes below 16, which nibbles are). */
static inline void buckets_neon(const tables *tt, const unsigned char *p, uint8x16_t *r0,
                                uint8x16_t *r1) {
  const uint8x16_t nib = vdupq_n_u8(0x0F);
  *r0 = *r1 = vdupq_n_u8(0xFF);
  for (int k = 0; k < PREFIX_MAX; k++) {
    uint8x16_t x = vld1q_u8(p + k);
    uint8x16_t lo = vandq_u8(x, nib), hi = vshrq_n_u8(x, 4);
    *r0 = vandq_u8(*r0, vandq_u8(vqtbl1q_u8(vld1q_u8(tt->lo[k]), lo),
                                 vqtbl1q_u8(vld1q_u8(tt->hi[k]), hi)));
    *r1 = vandq_u8(*r1, vandq_u8(vqtbl1q_u8(vld1q_u8(tt->lo[k] + 16), lo),
                                 vqtbl1q_u8(vld1q_u8(tt->hi[k] + 16), hi)));
  }
}

/* The SSSE3 loop on NEON; the candidates' bits are made one per position
** only when the block has some. */
static size_t block_neon(const tables *t, const tables *ext, const unsigned char *h, size_t n,
                         size_t q, unsigned *bits) {
  static const uint8_t bit_of[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  for (; q + BLOCK_READ <= n; q += BLOCK) {
    uint8x16_t r0, r1, e0, e1;
    buckets_neon(t, h + q, &r0, &r1);
    uint8x16_t any = vorrq_u8(r0, r1);
    if (vmaxvq_u8(any) == 0) continue;
    if (q + EXT_READ <= n) {   /* the bytes after the prefixes */
      buckets_neon(ext, h + q + PREFIX_MAX, &e0, &e1);
      any = vorrq_u8(vandq_u8(r0, e0), vandq_u8(r1, e1));
      if (vmaxvq_u8(any) == 0) continue;
    }
    uint8x16_t b = vandq_u8(vtstq_u8(any, any), vld1q_u8(bit_of));
    *bits = vaddv_u8(vget_low_u8(b)) | (unsigned)vaddv_u8(vget_high_u8(b)) << 8;
    return q;
  }
  *bits = 0;
  return q;
}
#endif

/* The vector loop for a chosen level that this CPU has (0: none). */
static int vector_level(int level) {
#if IFS_X86_SIMD
  if (level >= 4 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi"))
    return 4;
  if (level >= 3 && __builtin_cpu_supports("avx512bw")) return 3;
  if (level >= 2 && __builtin_cpu_supports("avx2")) return 2;
  if (level >= 1 && __builtin_cpu_supports("ssse3")) return 1;
#elif IFS_NEON
  if (level >= 1) return 1;   /* NEON: one vector loop */
#endif
  (void)level;
  return 0;
}

/* Whether the exact pass runs for a set of k needles (only_likely: all
** expected found): with VBMI, for any; with AVX2 alone, for a list of at
** least EXACT_BUCKETS such needles (a case's own words), whose finds cost
** the filter more than the pass of verified matches (exact_avx2) costs.
** Beside needles that keep the filter's pass (a refusal list's), that pass
** cost one list 1.09 of the time (make bench --compare); for a few words, a
** row of the generated eval rows 1.02. */
static int exact_pass_runs(size_t k, int only_likely) {
  return vector_level(4) == 4 || (only_likely && k >= EXACT_BUCKETS && vector_level(2) == 2);
}

/* The vector loop of a level vector_level() gave; level 0 scans nothing.
** *width: the positions *bits covers (AVX-512 steps by WIDE to the text's
** end; AVX2 by NARROW for a narrow set, then, near the end, by BLOCK). */
static size_t next_block(const tables *t, const tables *ext, const unsigned char *h, size_t n,
                         size_t q, int narrow, int level, uint64_t *bits, size_t *width) {
  unsigned b16 = 0;
  *width = BLOCK;
#if IFS_X86_SIMD
  if (level >= 3) {   /* (4 uses byte tables the caller holds: filter_search) */
    *width = WIDE;
    return narrow ? narrow_block_avx512(t, ext, h, n, q, bits)
                  : block_avx512(t, ext, h, n, q, bits);
  }
  if (level == 2 && narrow) {
    q = narrow_block_avx2(t, ext, h, n, q, bits);
    if (*bits) { *width = NARROW; return q; }
  }
  if (level >= 2) return block_avx2(t, ext, h, n, q, bits);
  if (level == 1) q = block_ssse3(t, ext, h, n, q, &b16);
#elif IFS_NEON
  if (level == 1) q = block_neon(t, ext, h, n, q, &b16);
#else
  (void)t; (void)ext; (void)h; (void)n; (void)level;
#endif
  (void)narrow;
  *bits = b16;
  return q;
}

/* ---- searching -------------------------------------------------------- */

struct search {
  const ifs_needle_set *s;
  const char *needles;           /* the needles' text */
  const unsigned char *h;
  size_t n;
  signed char *found;
  const tables *t;               /* the live buckets' tables: the set's, */
  tables own;                    /* or this copy once a bucket is out */
#if IFS_X86_SIMD
  byte_tables bytes;             /* *t by bytes, for the VBMI loop: */
  unsigned bytes_stale;          /* its groups of eight buckets to make again */
#endif
  uint32_t live[BUCKETS];        /* needles not yet found, per bucket */
  size_t left, work, budget;
  int gave_up;
  int ascii;                     /* the text is ASCII */
#ifdef IFS_TESTING
  uint64_t shift_or_seen;        /* test-only: a sum over the shift-or candidates */
  size_t searched_again;         /* test-only: the bytes the exact pass's searches read */
#endif
};

static void own_tables(search *x) {
  if (x->t != &x->own) {
    x->own = *x->t;
    x->t = &x->own;
  }
}

/* A bucket whose needles are all decided stops passing positions (in the
** byte tables too, when made: a find in a set of few needles, most often
** its bucket's last, costs two operations there rather than new tables). */
static void kill_bucket(search *x, unsigned b) {
  own_tables(x);
  lane_and(x->own.lo[0] + (b >> 3) * 16, (unsigned char)~(1u << (b & 7)));
#if IFS_X86_SIMD
  if (!(x->bytes_stale >> (b >> 3) & 1)) kill_byte_bucket(&x->bytes, b);
#endif
}

/* 1 when some needle starting with prefix p is not decided yet. */
static int prefix_live(const search *x, const prefix *p) {
  if (p->solo != NO_LINK) return x->found[p->solo] < 0;   /* no link to read */
  for (uint32_t li = p->first; li != NO_LINK; li = x->s->links[li].next)
    if (x->found[x->s->links[li].needle] < 0) return 1;
  return 0;
}

/* Bucket b again from its prefixes that still have a needle to find (a
** needle found often, with its prefix, stops passing positions). */
static void rebuild_bucket(search *x, unsigned b) {
  own_tables(x);
#if IFS_X86_SIMD
  x->bytes_stale |= 1u << (b >> 3);   /* made again from the nibble tables when next used */
#endif
  unsigned char keep = (unsigned char)~(1u << (b & 7));
  for (unsigned k = 0; k < PREFIX_MAX; k++) {
    lane_and(x->own.lo[k] + (b >> 3) * 16, keep);
    lane_and(x->own.hi[k] + (b >> 3) * 16, keep);
  }
  const ifs_needle_set *s = x->s;
  for (uint32_t i = s->f->bucket_first[b]; i < s->f->bucket_first[b + 1]; i++)
    if (prefix_live(x, &s->prefixes[i])) add_prefix_bits(&x->own, &s->prefixes[i]);
}

/* A bucket of more prefixes than this is not rebuilt when a needle is
** found (that would cost in proportion to the set's size at every find). */
#define REBUILD_MAX 8

static void mark_found(search *x, uint32_t j) {
  x->found[j] = 1;
  x->left--;
  const ifs_needle_set *s = x->s;
  if (s->big) return;   /* no filter buckets to update */
  for (unsigned bs = s->needles[j].buckets; bs; bs &= bs - 1) {
    unsigned b = (unsigned)__builtin_ctz(bs);
    if (--x->live[b] == 0) kill_bucket(x, b);
    else if (s->f->bucket_first[b + 1] - s->f->bucket_first[b] <= REBUILD_MAX) rebuild_bucket(x, b);
  }
}

/* The folded key of the len bytes at b (the text holds them). */
static uint32_t text_key(const unsigned char *b, size_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (len == 4) {   /* the common length, in one load */
    uint32_t w;
    memcpy(&w, b, 4);
    return w | 0x20202020u;
  }
#endif
  return fold_key(b, len);
}

/* head_vary() of each byte of a head (whose letters are lowercase, and
** whose other bytes keep their lead or continuation bits). */
static inline uint64_t head_vary_bits(uint64_t w) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x80 * ones;
  uint64_t hi = w & high, lead = hi & w << 1, cont = hi & ~lead;
  uint64_t a = w & ~high;   /* ASCII lowercase letters: no carry, bytes < 0x80 */
  uint64_t letter = ((a + 0x1F * ones) & ~(a + 0x05 * ones) & high) >> 2 & ~(hi >> 2);
  return letter | lead >> 7 | (cont >> 7) * 0x31;
}

/* 1 when the text at q holds e's head: its bytes, but for their
** head_vary() bits (which the head holds set). */
static inline __attribute__((always_inline)) int head_fits(const search *x, const entry *e,
                                                           size_t q) {
  unsigned hl = entry_head_len(e);
  if (!hl) return 1;
  ptrdiff_t off = entry_head_offset(e);
  if ((off < 0 && q < (size_t)-off) || (off > 0 && x->n - q < (size_t)off)) return 0;
  size_t from = q + (size_t)off;   /* (modulo: off may be negative) */
  if (x->n - from < hl) return 0;
  const unsigned char *at = x->h + from;
  uint64_t w = 0;
  if (x->n - from >= 8) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w, at, 8);
#else
    for (unsigned i = 0; i < 8; i++) w |= (uint64_t)at[i] << (8 * i);
#endif
  } else {
    for (unsigned i = 0; i < hl; i++) w |= (uint64_t)at[i] << (8 * i);
  }
  uint64_t mask = hl == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * hl)) - 1;
  return ((w | head_vary_bits(e->head)) & mask) == e->head;
}

/* The needles whose prefix, key of len bytes, is at q: the pairs from
** slot h on, when the bitmap filter (filter_words words) has h.  Inlined
** into its callers, with head_fits(): calls at every candidate of the
** filter cost a few percent of a row with a case's own list. */
static inline __attribute__((always_inline)) void verify_pairs(search *x, size_t q, uint32_t key,
                                                               unsigned len, uint32_t h,
                                                               const uint64_t *filter,
                                                               uint32_t filter_words) {
  const ifs_needle_set *s = x->s;
  if (!(filter[h / 64 % filter_words] >> (h % 64) & 1)) return;
  for (uint32_t at = h & s->slot_mask; s->entries[at].info; at = (at + 1) & s->slot_mask) {
    const entry *e = &s->entries[at];
    if (e->key != key || entry_plen(e) != len) continue;
    uint32_t j = entry_needle(e);
    x->work++;
    if (x->found[j] >= 0 || !head_fits(x, e, q)) continue;
    const set_needle *nd = &s->needles[j];
    if (q < nd->skip) continue;
    if (nd->ascii && entry_head_offset(e) == -(ptrdiff_t)nd->skip && nd->len == entry_head_len(e)) {
      mark_found(x, j);   /* the head is the whole needle, and exact */
      continue;
    }
    if (ifs_needle_at(x->needles + nd->at, nd->len, nd->ascii, (const char *)x->h, x->n,
                      q - nd->skip, &x->work))
      mark_found(x, j);
  }
}

/* The needles whose prefix of len bytes is at q. */
static inline __attribute__((always_inline)) void verify_prefix(search *x, size_t q, unsigned len) {
  uint32_t key = text_key(x->h + q, len);
  verify_pairs(x, q, key, len, hash_key(key, len), x->s->f->filter, FILTER_BITS / 64);
}

/* A big set's needles whose literal of m bytes is at q (the text holds
** them). */
static inline __attribute__((always_inline)) void verify_literal(search *x, size_t q, unsigned m) {
  uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (x->n - q >= 8) memcpy(&w, x->h + q, 8);
  else
#endif
    for (unsigned i = 0; i < m; i++) w |= (uint64_t)x->h[q + i] << (8 * i);
  w |= 0x2020202020202020ull;
  w &= ~(uint64_t)0 >> (64 - 8 * m);   /* (1 <= m <= 8; no branch on m) */
  /* the prefix is the literal's first min(m, 4) bytes: w's low word, zero past m */
  verify_pairs(x, q, (uint32_t)w, m < PREFIX_MAX ? m : PREFIX_MAX, literal_hash(w, m),
               x->s->big->filter, BIG_FILTER_BITS / 64);
}

/* A candidate position: the prefixes of each length its buckets hold. */
static void check_at(search *x, size_t q) {
  unsigned lens = x->s->lens;
  if (lens & (lens - 1)) {   /* several lengths: only those of buckets passing q */
    unsigned m = filter_at(x->t, x->h, x->n, q);
    lens = 0;
    for (; m; m &= m - 1) lens |= 1u << x->s->f->bucket_len[__builtin_ctz(m)];
  }
  for (lens &= ~1u; lens && x->left; lens &= lens - 1) {
    unsigned len = (unsigned)__builtin_ctz(lens);
    if (q + len <= x->n) verify_prefix(x, q, len);
  }
  if (x->work > x->budget) x->gave_up = 1;
}

/* The candidates of the block at q (bit i: position q + i). */
static void check_block(search *x, size_t q, uint64_t bits) {
  for (; bits && x->left && !x->gave_up; bits &= bits - 1)
    check_at(x, q + (size_t)__builtin_ctzll(bits));
}

/* The positions from q on.  After the vector loop (fewer than BLOCK_READ
** are left) the vector loop reads a copy padded with zeros: a pad byte lets
** through at most a candidate that verification turns down.  Else the byte
** loop. */
static void search_tail(search *x, size_t q, int level) {
  size_t rest = x->n - q;
  if (level > 0 && rest < BLOCK_READ) {
    unsigned char pad[2 * BLOCK + PREFIX_MAX - 1];
    memset(pad, 0, sizeof pad);
    if (rest) memcpy(pad, x->h + q, rest);
    for (size_t b = 0; b < rest && x->left && !x->gave_up; b += BLOCK) {
      uint64_t bits;
      size_t width;   /* BLOCK: the pad is too short for AVX-512 */
      b = next_block(x->t, &x->s->f->ext, pad, sizeof pad, b, 0, level, &bits, &width);
      if (!bits || b >= rest) return;
      if (rest - b < BLOCK) bits &= ((uint64_t)1 << (rest - b)) - 1;
      check_block(x, q + b, bits);
    }
    return;
  }
  for (; q < x->n && x->left && !x->gave_up; q++)
    if (filter_at(x->t, x->h, x->n, q)) check_at(x, q);
}

/* The literals of the buckets in ends may end at p: each looked
** up.  0 when the search is over (all decided, or past its budget). */
static __attribute__((noinline)) int shift_or_candidates(search *x, size_t p, unsigned ends) {
#ifdef IFS_TESTING
  x->shift_or_seen += (uint64_t)(p + 1) << 8 | ends;
#endif
  for (unsigned lens = x->s->big->lens[ends]; lens; lens &= lens - 1) {
    unsigned m = (unsigned)__builtin_ctz(lens);
    if (p + 1 >= m) verify_literal(x, p + 1 - m, m);
  }
  if (x->work > x->budget) x->gave_up = 1;
  return x->left && !x->gave_up;
}

/* The byte loop from p, state holding what the positions from p inherit
** (lane i: position p + i), to the end or until the search is over. */
static void shift_or_bytes(search *x, size_t p, uint64_t state) {
  const uint64_t *reach = x->s->big->reach;
  const unsigned char *h = x->h;
  for (; p < x->n; p++) {
    state |= reach[shift_or_domain(h[p], p ? h[p - 1] : 0)];
    unsigned ends = (unsigned)~state & 0xFF;
    if (ends && !shift_or_candidates(x, p, ends)) return;
    state >>= 8;
  }
}

#if IFS_X86_SIMD
/* SSE2, eight bytes a step: their domains from one load (bytes and the
** bytes before, interleaved into 16-bit lanes), their reaches shifted into
** a 128-bit state.  The steps with candidates are queued, QUEUE_STEPS at a
** time, and looked up after: a branch at each step on whether it has any,
** taken by about a third of them at random, was mispredicted more often
** than any other in a row (the lookups still come in the text's order, so
** that the search stops where it did).  Returns where the byte loop goes
** on (its state in *state), or SIZE_MAX when the search is over. */
#define QUEUE_STEPS 32
#define REACH_AT(j) _mm_slli_si128(_mm_loadl_epi64((const __m128i *)(const void *) \
                                   &reach[_mm_extract_epi16(d, j)]), j)
static size_t shift_or_blocks(search *x, uint64_t *state) {
  const uint64_t *reach = x->s->big->reach;
  const uint64_t ones = 0x0101010101010101ull;
  const __m128i none = _mm_set1_epi8(-1);
  __m128i carry = _mm_setzero_si128();   /* before the text all is allowed */
  uint64_t before = 0;
  size_t p = 0;
  size_t queued_at[QUEUE_STEPS];
  uint64_t queued_lanes[QUEUE_STEPS];
  unsigned queued_ends[QUEUE_STEPS];   /* bit i: a literal may end at lane i */
  while (p + 8 <= x->n) {
    size_t stop = x->n - p >= 8 * QUEUE_STEPS ? p + 8 * QUEUE_STEPS : x->n - 7;
    unsigned queued = 0;
    for (; p < stop; p += 8) {
      uint64_t w;
      memcpy(&w, x->h + p, 8);
      uint64_t before_bits = (w << 8 | before) & 0x1F * ones;
      __m128i d = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)(w | 0x20 * ones)),
                                    _mm_cvtsi64_si128((long long)before_bits));
      before = w >> 56;
      __m128i t = _mm_or_si128(_mm_or_si128(_mm_or_si128(REACH_AT(0), REACH_AT(1)),
                                            _mm_or_si128(REACH_AT(2), REACH_AT(3))),
                               _mm_or_si128(_mm_or_si128(REACH_AT(4), REACH_AT(5)),
                                            _mm_or_si128(REACH_AT(6), REACH_AT(7))));
      t = _mm_or_si128(t, carry);
      unsigned ends = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(t, none)) & 0xFF;
      queued_at[queued] = p;   /* written at every step, kept when it has candidates */
      queued_lanes[queued] = (uint64_t)_mm_cvtsi128_si64(t);
      queued_ends[queued] = ends;
      queued += ends != 0;
      carry = _mm_srli_si128(t, 8);
    }
    for (unsigned k = 0; k < queued; k++)
      for (unsigned ends = queued_ends[k]; ends; ends &= ends - 1) {
        unsigned i = (unsigned)__builtin_ctz(ends);
        unsigned buckets = (unsigned)~(queued_lanes[k] >> 8 * i) & 0xFF;
        if (!shift_or_candidates(x, queued_at[k] + i, buckets)) return SIZE_MAX;
      }
  }
  *state = (uint64_t)_mm_cvtsi128_si64(carry);
  return p;
}
#undef REACH_AT
#endif

/* A big set's search: one table look-up a byte (see "big sets"), eight
** bytes a step where the loops of level allow SSE2. */
static void shift_or_search(search *x, int level) {
  uint64_t state = 0;   /* before the text all is allowed: candidates starting there are skipped */
  size_t p = 0;
#if IFS_X86_SIMD
  if (level > 0 && (p = shift_or_blocks(x, &state)) == SIZE_MAX) return;
#else
  (void)level;
#endif
  shift_or_bytes(x, p, state);
}

#if IFS_X86_SIMD
/* Below this many bytes left, making byte tables costs more than their
** steps save (about fifteen cycles a group of eight buckets; a step of 64
** positions saves four to six): the nibble loop takes them. */
#define VBMI_MIN_BYTES 384

/* The VBMI loop from q (the groups of its byte tables that *t changed made
** first), or the AVX-512 nibble loop near the text's end. */
static size_t vbmi_block(search *x, size_t q, uint64_t *bits) {
  if (x->bytes_stale) {
    size_t width;   /* (WIDE, as the VBMI loop's) */
    if (x->n - q < VBMI_MIN_BYTES)
      return next_block(x->t, &x->s->f->ext, x->h, x->n, q, x->s->narrow, 3, bits, &width);
    fill_byte_tables(x->t, &x->bytes, x->bytes_stale & (x->s->narrow ? 1u : 3u));
    x->bytes_stale = 0;
  }
  return x->s->narrow ? narrow_block_vbmi(&x->bytes, &x->s->f->ext, x->h, x->n, q, bits)
                      : block_vbmi(&x->bytes, &x->s->f->ext, x->h, x->n, q, bits);
}
#endif

/* A set's search by the filter's loop at level, then the tail. */
static void filter_search(search *x, int level) {
  size_t q = 0;
  while (x->left && !x->gave_up) {
    uint64_t bits;
    size_t width;
#if IFS_X86_SIMD
    if (level == 4) {
      q = vbmi_block(x, q, &bits);
      width = WIDE;
    } else
#endif
      q = next_block(x->t, &x->s->f->ext, x->h, x->n, q, x->s->narrow, level, &bits, &width);
    if (!bits) break;
    check_block(x, q, bits);
    q += width;
  }
  if (x->left && !x->gave_up) search_tail(x, q, level);
}

#if IFS_X86_SIMD
/* Needle j searched for on its own from text byte from: 1 or 0, or -1
** (left to the caller) where that search would turn quadratic. */
static signed char search_alone(search *x, uint32_t j, size_t from) {
  const set_needle *nd = &x->s->needles[j];
#ifdef IFS_TESTING
  x->searched_again += x->n - from;
#endif
  ifs_needle one;
  int found;
  ifs_needle_init(&one, x->needles + nd->at, nd->len);
  if (ifs_needle_find(&one, (const char *)x->h + from, x->n - from, x->ascii, &found) != IFS_OK)
    return -1;
  return (signed char)found;
}

/* The needles of bucket b not found yet (bit i: e->needle[i]). */
static unsigned exact_undecided(const exact_state *st, unsigned b) {
  return st->e->in_bucket[b] & ~st->found;
}

/* The lowered word low[0..len) of up to eight letters, as a little-endian
** number (two loads, which overlap, for four bytes or more). */
static uint64_t word_of(const unsigned char *low, size_t len) {
  if (len >= 4) {
    uint32_t head, tail;
    memcpy(&head, low, 4);
    memcpy(&tail, low + len - 4, 4);
    return head | (uint64_t)tail << 8 * (len - 4);
  }
  uint64_t w = 0;
  for (size_t i = 0; i < len; i++) w |= (uint64_t)low[i] << 8 * i;
  return w;
}

/* 1 when the eight bytes at p start with the lowered word low[0..len) of
** up to eight letters, letter case aside: byte by byte, the text's is the
** word's or differs from it by bit 5 alone, which for a lowercase letter
** is its capital. */
static int word_at(const unsigned char *p, const unsigned char *low, size_t len) {
  uint64_t w, mask = len >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << 8 * len) - 1;
  memcpy(&w, p, 8);
  return ((w ^ word_of(low, len)) & mask & 0xDFDFDFDFDFDFDFDFull) == 0;
}

/* The needles of bucket b (of those in m) at text byte at: a word of
** letters by one compare where eight bytes are left (a match through
** KELVIN SIGN is left to the search exact_answers makes on a miss). */
static unsigned exact_verify(search *x, exact_state *st, unsigned m, size_t at) {
  unsigned got = 0;
  for (; m; m &= m - 1) {
    unsigned i = (unsigned)__builtin_ctz(m);
    const set_needle *nd = &x->s->needles[st->e->needle[i]];
    int here;
    if (!(st->e->how[i] & FITS_MAYBE) && x->n - at >= 8) {
      st->work += nd->len;
      here = word_at(x->h + at, (const unsigned char *)x->needles + nd->at, nd->len);
    } else {
      here = ifs_needle_at(x->needles + nd->at, nd->len, nd->ascii, (const char *)x->h, x->n,
                           at, &st->work);
    }
    got |= (unsigned)here << i;
  }
  return got;
}

/* Bucket b (of two needles) with a needle found: none left, and it is no
** longer watched; or the other, for which its tables are made again (1),
** and whose match then decides it when it is a word of letters of up to
** EXACT_BYTES (no longer watched either). */
static int exact_narrow(search *x, exact_state *st, unsigned b) {
  unsigned left = exact_undecided(st, b);
  if (!left) {
    st->watch &= ~(1u << b);
    return 0;
  }
  unsigned i = (unsigned)__builtin_ctz(left);   /* (the only one) */
  const set_needle *nd = &x->s->needles[st->e->needle[i]];
  st->left[b] = (const unsigned char *)x->needles + nd->at;
  st->left_len[b] = nd->len;
  unsigned kept = st->e->kept;
  st->left_folds[b] =
      kept >> i & 1 ? st->e->folds[__builtin_popcount(kept & ((1u << i) - 1))] : NULL;
  if (!st->verify_all && !(st->e->how[i] & FITS_MAYBE)) {
    st->watch &= ~(1u << b);
    st->decides |= 1u << b;
  }
  return 1;
}

/* The exact pass's step at text byte q where watched buckets matched (hit:
** some of them; at[b]: bit i, bucket b of hit matches at q + i): each such
** match not verified yet is verified, until a needle is found there (then
** its bucket narrowed: the step is made again) or the checks run out (then
** its needles are left to a search from there, as the pass would make a
** long text's verifying quadratic).  The buckets whose tables changed. */
static unsigned exact_settle(search *x, exact_state *st, const uint64_t *at, unsigned hit,
                             size_t q) {
  unsigned narrowed = 0;
  for (unsigned w = hit & st->watch; w; w &= w - 1) {
    unsigned b = (unsigned)__builtin_ctz(w);
    uint64_t m = at[b];
    if (st->next[b] > q) m &= st->next[b] - q >= WIDE ? 0 : ~(uint64_t)0 << (st->next[b] - q);
    for (; m; m &= m - 1) {
      size_t i = (size_t)__builtin_ctzll(m);
      if (!st->checks || st->work > st->work_max) {
        st->watch &= ~(1u << b);
        st->gave_up |= 1u << b;
        st->next[b] = q + i;
        break;
      }
      st->checks--;
      unsigned got = exact_verify(x, st, exact_undecided(st, b), q + i);
      st->next[b] = q + i + 1;
      if (got) {
        st->found |= got;
        narrowed |= (unsigned)exact_narrow(x, st, b) << b;
        break;
      }
    }
  }
  return narrowed;
}

/* The needles (bit i: needle[i]) of the buckets in mask buckets. */
static unsigned needles_of(const exact_part *e, unsigned buckets) {
  unsigned m = 0;
  for (; buckets; buckets &= buckets - 1) m |= e->in_bucket[__builtin_ctz(buckets)];
  return m;
}

/* The exact pass's answers (bit b of hits: bucket b matched somewhere),
** as masks of needles, written in one loop without a branch.  A needle
** found where its bucket matched is there, as is one of a bucket whose
** match decides it; one of a bucket verified at every match is not, nor
** one whose bucket never matched.  A needle whose bucket ran out of checks
** is searched for alone from where it stopped; a miss of a needle that may
** be in text not ASCII all the same (one holding k) is settled by a search
** from the start. */
static void exact_answers(search *x, const exact_state *st, unsigned hits) {
  const exact_part *e = st->e;
  unsigned deciding = st->verify_all ? 0 : hits & (~e->maybe | st->decides) & ~st->gave_up;
  unsigned yes = st->found | needles_of(e, deciding);
  unsigned gave_up = needles_of(e, st->gave_up) & ~st->found;
  unsigned again = x->ascii ? 0 : e->again & ~yes & ~gave_up;
  for (unsigned i = 0; i < e->n; i++) x->found[e->needle[i]] = (signed char)(yes >> i & 1);
  for (unsigned m = gave_up | again; m; m &= m - 1) {
    unsigned i = (unsigned)__builtin_ctz(m);
    size_t from = !x->ascii && (e->again >> i & 1) ? 0 : st->next[e->bucket[i]];
    x->found[e->needle[i]] = search_alone(x, e->needle[i], from);
  }
}

/* The exact pass's start: every verified bucket watched, with a check for
** each step of the text and sixteen more, and characters compared up to
** twice the text's. */
static void exact_start(search *x, exact_state *st, int verify_all) {
  st->e = x->s->exact;
  st->verify_all = verify_all;
  st->watch = st->e->maybe;
  if (verify_all)   /* every bucket holding a needle */
    for (unsigned i = 0; i < st->e->n; i++) st->watch |= 1u << st->e->bucket[i];
  st->watch &= ~(x->ascii ? st->e->out_in_ascii : 0u);
  st->found = st->decides = st->gave_up = 0;
  for (unsigned b = 0; b < EXACT_BUCKETS; b++) st->next[b] = 0;
  st->checks = 16 + x->n / WIDE;
  st->work = 0;
  st->work_max = 2 * x->n + 4096;
}
#endif

/* found[0 .. k): each -1 (not found by the end) made 0, eight a step: of
** -1, 0 and 1 (bytes FF, 00, 01) only 01 has bit 0 set and bit 1 clear. */
static void undecided_absent(signed char *found, size_t k) {
  const uint64_t ones = 0x0101010101010101ull;
  size_t j = 0;
  for (; j + 8 <= k; j += 8) {
    uint64_t w;
    memcpy(&w, found + j, 8);
    w &= ~(w >> 1) & ones;
    memcpy(found + j, &w, 8);
  }
  for (; j < k; j++)
    if (found[j] < 0) found[j] = 0;
}

/* The search of s in text by the loops of level, in *x (the caller's, so
** that a test can read what it counted). */
static void find_level(const ifs_needle_set *s, const char *needles, const char *text, size_t n,
                       int ascii, signed char *found, int level, search *x) {
  x->s = s;
  x->needles = needles;
  x->h = (const unsigned char *)text;
  x->n = n;
  x->found = found;
  x->ascii = ascii;
  x->t = &s->f->t;
  /* every needle may cost a pass of its own after the cap; so may the set */
  x->budget = (4 + s->k) * n + 4096;
  x->work = 0;
  x->gave_up = 0;
#if IFS_X86_SIMD
  x->bytes_stale = 3;   /* none made yet */
#endif
#ifdef IFS_TESTING
  x->shift_or_seen = 0;
  x->searched_again = 0;
#endif
  level = vector_level(level);
  memcpy(found, ascii ? s->start_ascii : s->start_all, s->k);
  x->left = ascii ? s->left_ascii : s->left_all;
#if IFS_X86_SIMD   /* (at every level: the filter has none of its needles) */
  exact_state st;
  unsigned hits = 0;
  if (s->exact) {   /* (a set has one only where AVX2 runs) */
    exact_start(x, &st, level < 4);
    hits = level == 4 ? exact_vbmi(x, x->h, n, ascii, &st) : exact_avx2(x, x->h, n, ascii, &st);
  }
#endif
  if (x->left)   /* (the filter's part of the set: not read otherwise) */
    memcpy(x->live, ascii ? s->f->live_ascii : s->f->live_all, sizeof x->live);
  if (x->left && s->big) {
    shift_or_search(x, level);
  } else if (x->left) {
    /* in ASCII text, a bucket whose needles are none of them ASCII is out */
    for (unsigned dead = ascii ? s->f->dead_in_ascii : 0; dead; dead &= dead - 1)
      kill_bucket(x, (unsigned)__builtin_ctz(dead));
    filter_search(x, level);
  }
  if (!x->gave_up) undecided_absent(found, s->k);   /* (else the undecided stay -1) */
#if IFS_X86_SIMD
  if (s->exact) exact_answers(x, &st, hits);
#endif
}

void ifs_needle_set_find(const ifs_needle_set *s, const char *needles, const char *text,
                         size_t n, int ascii, signed char *found) {
  search x;
  find_level(s, needles, text, n, ascii, found, 4, &x);
}

#ifdef IFS_TESTING
void ifs_test_needle_set_find_level(const ifs_needle_set *s, const char *needles,
                                    const char *text, size_t n, int ascii, signed char *found,
                                    int level) {
  search x;
  find_level(s, needles, text, n, ascii, found, level, &x);
}

uint64_t ifs_test_needle_set_shift_or_seen(const ifs_needle_set *s, const char *needles,
                                           const char *text, size_t n, int ascii,
                                           signed char *found, int level) {
  search x;
  find_level(s, needles, text, n, ascii, found, level, &x);
  return x.shift_or_seen;
}

size_t ifs_test_needle_set_searched_again(const ifs_needle_set *s, const char *needles,
                                         const char *text, size_t n, int ascii,
                                         signed char *found) {
  search x;
  find_level(s, needles, text, n, ascii, found, 4, &x);
  return x.searched_again;
}

size_t ifs_test_needle_set_prefix_skip(const char *low, size_t len, int big) {
  return prefix_skip(low, len, big);
}

int ifs_test_needle_set_narrow(const ifs_needle_set *s) { return s->narrow; }

unsigned ifs_test_needle_set_exact(const ifs_needle_set *s) { return s->exact ? s->exact->n : 0; }

int ifs_test_needle_set_exact_runs(size_t k, int only_likely) {
  return exact_pass_runs(k, only_likely);
}

size_t ifs_test_needle_set_folds_end(const ifs_needle_set *s) {
  const exact_part *e = s->exact;
  if (!e || !e->kept) return 0;
  return (size_t)((const char *)(e->folds + __builtin_popcount(e->kept)) - (const char *)s);
}

int ifs_test_needle_set_big(const ifs_needle_set *s) { return s->big != NULL; }
#endif
