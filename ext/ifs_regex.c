/*
** ifs_regex.c — CPython 3.11's re.search(pattern, text) on PCRE2: the
** public API, the compiled-pattern cache, the budgeted search, callouts
** and surrogate remapping.
**
** A pattern goes through the phases of ifs_re_tree.h: ifs_re_parse (the
** tree, exactly as re/_parser.py builds it), ifs_re_emit (a PCRE2 pattern
** with Python's meaning) and, for a regular pattern, ifs_re_compile_dfa
** (a DFA that answers without backtracking; see ifs_redfa.h).  This file
** runs them (translate), compiles the result with PCRE2 (UTF|UCP, newline
** LF, JIT when available), and searches.
**
** PCRE2 in UTF mode cannot hold a lone surrogate.  A subject that has none
** (the usual case) is matched with a translation in which the pattern's
** surrogates can never match; a subject that has some (invalid bytes read
** as U+DC80..U+DCFF) is rewritten with U+D800+k as base+k, base being the
** first of 14 private-use or unassigned 2048-blocks (U+10F800 first) the
** subject does not use, and matched with a translation that maps the
** pattern the same way.  Only a subject using all 14 blocks as well as
** surrogates would be ambiguous.
**
** Compiled patterns live in a per-connection LRU cache (invalid ones too);
** match data and JIT stack are reused.  A search has a budget of match
** steps for all its start positions together (PCRE2's own match limit
** restarts at each one), counted, not timed (a clock is only the last
** resort), and each start position a cap; the heap limit bounds memory.
** Both are sized so that wherever CPython answers within a second the
** answer is Python's; catastrophic backtracking ends in IFS_LIMIT (see
** the budget's constants and search_budgeted).
** Two PCRE2 10.42 optimizer bugs and two JIT bugs are avoided (see
** workaround_opts here and emit_repeat in ifs_re_emit.c).
**
** Not reproduced (see the report in tests/regex_diff.py's residuals):
** CPython 3.11.2's own possessive-repeat capture bugs, repeats whose PCRE2
** code exceeds its 64 KiB limit (IFS_LIMIT unless the subject is shorter
** than the pattern's minimum length).
**
** Entry points: ifs_regex.h.
*/
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>
#include <time.h>
#include "ifs_regex.h"
#include "ifs_text.h"
#include "ifs_re_tree.h"
#include "ifs_re_charset.h"
#include "ifs_re_emit.h"
#include "ifs_re_nfa.h"

/* Where a remapped subject puts its surrogates: U+D800+k at base+k, in
** the first of these 2048-blocks (private use or unassigned, so no \w \d
** \s or case, like a surrogate) that the subject does not use. */
static const uint32_t MAP_BASES[] = {
  0x10F800, 0xFF800, 0xEF800, 0x4F800, 0x5F800, 0x6F800, 0x7F800, 0x8F800,
  0x9F800, 0xAF800, 0xBF800, 0xCF800, 0xDF800, 0x3F800
};

/* ------------------------------------------------------------------ */
/* Translation                                                         */

/* Parses and translates (appending to out); lead, when given, gets
** the test of a leading X* (see ifs_re_emit); *dfa, when asked, the
** pattern's DFA if it has one. */
static ifs_status translate(const char *pat, size_t pn, uint32_t map_base, ifs_buf *out,
                            uint64_t *minwidth, ifs_buf *lead, ifs_redfa **dfa) {
  ifs_arena arena;
  ifs_arena_init(&arena);
  parser p;
  ifs_status rc = IFS_OK;
  uint32_t *cps = ifs_malloc((pn ? pn : 1) * sizeof *cps);
  if (!cps) { ifs_arena_free(&arena); return IFS_NOMEM; }
  size_t n = 0;
  for (size_t i = 0; i < pn;) cps[n++] = ifs_decode(pat, pn, &i);
  seq *root = ifs_re_parse(&p, &arena, cps, n);
  if (p.err) { rc = p.err; goto done; }
  int prefixed;
  rc = ifs_re_emit(&p, root, map_base, out, lead, &prefixed);
  /* Python's start-position filter (emit_info_prefix) is not in the NFA */
  if (rc == IFS_OK && dfa && !map_base && !prefixed) *dfa = ifs_re_compile_dfa(&p, root, &rc);
  if (rc != IFS_INVALID && minwidth) {
    uint64_t hi;
    ifs_re_width(&p, root, minwidth, &hi);
  }
done:
  ifs_free(cps);
  ifs_arena_free(&arena);
  return rc;
}

/* The translation for subjects without surrogates. */
ifs_status ifs_regex_translate(const char *pat, size_t pn, ifs_buf *out) {
  return translate(pat, pn, 0, out, NULL, NULL, NULL);
}


/* ------------------------------------------------------------------ */
/* Compiled-pattern cache and matching                                 */

/* The cache: an eval table cycles through its patterns in the same order
** run after run, so past its size a least-recently-used cache would drop
** exactly the pattern needed next and keep none; an entry picked at random
** goes instead.  Bounded by patterns and by bytes (code, JIT code, DFA
** states as they grow), as entry_bytes counts them. */
#define CACHE_FIRST 64u                 /* entries at first; doubled up to */
#define CACHE_MAX 4096u                 /* patterns kept */
#define CACHE_BYTES ((size_t)64 << 20)  /* bytes kept */
#define COMPILE_OPTS (PCRE2_UTF | PCRE2_UCP | PCRE2_ALT_CIRCUMFLEX | PCRE2_NO_UTF_CHECK | \
                      PCRE2_USE_OFFSET_LIMIT)
/* The match budget.  PCRE2 counts steps (the JIT one per backtracking
** point and per character a repeat gives back; the interpreter its own
** way) and applies its limit afresh at every start position.  A search
** keeps its own account instead: each attempt is charged in advance the
** steps it allows PCRE2 (and each character a case-insensitive
** back-reference compares is one step), and the answer is IFS_LIMIT
** when the next attempt would take one start position past POS_CAP steps
** (catastrophic backtracking: the need grows exponentially, or with a
** high power of the length) or the whole search past BUDGET_BASE +
** BUDGET_PER_BYTE x subject bytes.  Both are counted work, not time: the
** same input gets the same answer on a fast or a loaded machine (with the
** same engine, JIT or interpreter).
**
** They are sized by what CPython does in a second.  On the quadratic work
** of ordinary patterns (a `.*` in the middle of a pattern, or in a
** look-ahead, backtracking over a long line; a back-reference tried at
** every place), where Python answers within a second, the most demanding
** pattern measured, `(\w+).*\1sincerely` on 16 KB of one line (Python
** 1.0 to 1.5 s), is charged between 600 M and 800 M (each attempt charged
** in advance, escalating: it gives the label at 600 M, the answer at 800 M,
** in 1.4 s).  In nested repeats sre spends ~25 ns a step.  The JIT runs 1.5
** to 5 ns a step, so the whole budget takes one to two seconds (the clock
** below bounds the slower cases).  The part per byte pays for the first share
** and the probe code's charge at every start position (see
** search_budgeted).  Case-insensitive back-references call out to C for
** every comparison, and the interpreter (no JIT, or the JIT stack
** exhausted) takes 5 to 20 times as long per step: each of their steps is
** charged CALLOUT_WEIGHT or INTERP_WEIGHT budget steps.
**
** Not all work is a step: the characters that a repeat of one character
** runs over on its way forward, or that a back-reference compares, are
** not counted ((?=a*c) over a long run of a's takes a step per start
** position, and quadratic time, as it does in Python).  For that work
** alone, a search also stops, as a last resort, after SEARCH_CPU_SECONDS
** of its thread's CPU time, read between attempts, between chunks of
** start positions (subjects of CHUNK_MIN bytes or more), every
** CLOCK_STARTS start positions of the probe code and every CLOCK_COMPARES
** case-insensitive back-references compared: never in the common case of
** a short subject.  Only there can how fast the machine is (not
** how loaded: the clock is the thread's) change an answer. */
#define BUDGET_BASE 800000000u
#define BUDGET_PER_BYTE 80u
#define POS_CAP 200000000u
#define INTERP_WEIGHT 8u
#define CALLOUT_WEIGHT 2u
#define FIRST_SHARE 8u                    /* the first pass: 1/8 of the budget */
#define PROBE_BASE_MIN 64u                /* the probe code's charge per position */
#define PROBE_BASE_MAX 1024u              /* (its callout costs as much as ~64 steps) */
#define ESCALATE 4u                       /* growth of one position's limit */
#define TOP_STEP 8u                       /* its last step, to the cap */
#define START_CALLOUT 255                 /* the probe code's first item: */
#define START_CALLOUT_TEXT "(?C255)"
#define TIME_UP (-1001)                   /* SEARCH_CPU_SECONDS have passed */
#define SEARCH_CPU_SECONDS 2.0
#define CHUNK_MIN 4096
#define CLOCK_STARTS 4096u
#define CLOCK_COMPARES 16384u
#define HEAP_LIMIT_KIB (512u * 1024u)     /* interpreter's backtracking frames */
#define JIT_STACK_MAX ((size_t)512 << 20) /* address space, touched on demand */
#define JIT_STACK_SMALL ((size_t)8 << 20)

typedef struct centry {
  char *key;            /* pattern bytes; NULL: slot free */
  size_t kn;
  uint64_t hash;
  uint32_t map_base;    /* translation for subjects with surrogates there */
  ifs_status status;    /* IFS_INVALID or IFS_LIMIT, or IFS_OK with code */
  uint64_t minwidth;    /* Python's minimum match length, in characters */
  pcre2_code *code;
  pcre2_code *probe;    /* the same after (?C255), compiled when first needed */
  pcre2_code *run;      /* with probe, if it starts with X*: X*+, anchored */
  ifs_redfa *dfa;       /* regular patterns, strict UTF-8 subjects: see ifs_redfa.h */
  int jit_later;        /* code not JIT-compiled yet (the DFA answers first) */
  int callouts;         /* case-insensitive back-references: CALLOUT_WEIGHT */
  int recount;          /* its codes changed since code_bytes was counted */
  size_t code_bytes;    /* the entry, its key and codes with their JIT code */
  size_t bytes;         /* code_bytes and the DFA's, as the cache counts it */
} centry;

/* One search's state, shared with the callouts: the budget's account and
** where the probe code is. */
typedef struct search_state {
  size_t expect_end;    /* end of the last verified back-reference */
  uint64_t left;        /* budget steps not yet charged */
  uint64_t weight;      /* budget steps per PCRE2 step (see search_budgeted) */
  int fell_back;        /* the interpreter took over from the JIT */
  uint64_t per_start;   /* charged at each start position the probe code tries */
  size_t last_start;    /* the start position the probe code tried last */
  uint32_t starts;      /* start positions the probe code tried */
  uint32_t compares;    /* back-references the callout compared */
  double t0;            /* the clock at its first reading; < 0: none yet */
  double cpu_limit;     /* SEARCH_CPU_SECONDS (a test hook stretches it) */
  int stop;             /* why the search ended in IFS_LIMIT (enum ifs_regex_stop) */
} search_state;

/* The thread's CPU time (other load on the machine does not count). */
static double cpu_seconds(void) {
  struct timespec ts;
#ifdef CLOCK_THREAD_CPUTIME_ID
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
#else
  clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds since the search first asked. */
static double search_time(search_state *st) {
  double now = cpu_seconds();
  if (st->t0 < 0) st->t0 = now;
  return now - st->t0;
}

/* Past the last-resort clock at `now`: the search stops, saying why. */
static int clock_over(search_state *st, double now) {
  if (now <= st->cpu_limit) return 0;
  st->stop = IFS_STOP_CLOCK;
  return 1;
}

/* A search's bounds, and whether regular patterns go to ifs_redfa first: the
** constants, which only the test hooks change (IFS_TESTING builds). */
typedef struct search_limits {
  uint64_t budget_base, pos_cap;
  double cpu_limit;
  int use_dfa;
} search_limits;
#define DEFAULT_LIMITS ((search_limits){BUDGET_BASE, POS_CAP, SEARCH_CPU_SECONDS, 1})

struct ifs_regex_cache {
  pcre2_general_context *gctx;
  pcre2_compile_context *cctx;
  pcre2_match_context *mctx;
  pcre2_match_data *md;
  pcre2_jit_stack *jstack;
  int no_jstack;        /* creating one failed: PCRE2's default stack */
  centry *ent;          /* count entries in use, then cap - count free */
  uint32_t *index;      /* 2 x cap slots by hash: entry + 1, 0 free */
  uint32_t count, cap;
  size_t bytes;         /* of the entries */
  uint32_t max_count;   /* CACHE_MAX, */
  size_t max_bytes;     /* CACHE_BYTES (a test hook changes both) */
  uint64_t rng;         /* picks the entry that goes (xorshift) */
#ifdef IFS_TESTING
  uint64_t fills;       /* patterns translated and compiled */
#endif
  ifs_buf pat;          /* translation scratch */
  ifs_buf subj;         /* remapped subject scratch */
  search_state st;
#ifdef IFS_TESTING
  search_limits test;   /* DEFAULT_LIMITS, as the test hooks change them */
#endif
};

static search_limits limits_of(const ifs_regex_cache *c) {
#ifdef IFS_TESTING
  return c->test;
#else
  (void)c;
  return DEFAULT_LIMITS;
#endif
}

static void *gc_malloc(size_t n, void *data) { (void)data; return ifs_malloc(n); }
static void gc_free(void *p, void *data) { (void)data; ifs_free(p); }

/* The probe code's (?C255), at each start position it tries: charges the
** position's limit to the budget beforehand (PCRE2_ERROR_CALLOUT when it
** cannot), and notes where it is, so that a match-limit failure tells
** which position failed; now and then it reads the clock. */
static int on_start(const pcre2_callout_block *cb, search_state *st) {
  st->last_start = cb->start_match;
  if (st->left < st->per_start) {
    st->stop = IFS_STOP_BUDGET;
    return PCRE2_ERROR_CALLOUT;
  }
  st->left -= st->per_start;
  if (++st->starts % CLOCK_STARTS == 0 && clock_over(st, search_time(st))) return TIME_UP;
  return 0;
}

/* Python's lowercase comparison of a back-reference, letter by letter;
** each character compared is charged a step of the budget.  Every
** CLOCK_COMPARES comparisons it reads the clock: such a pattern's one
** start position can run for a second between the reads outside PCRE2. */
static int on_callout(pcre2_callout_block *cb, void *data) {
  search_state *st = data;
  const char *tag = (const char *)cb->callout_string;
  if (!tag && cb->callout_number == START_CALLOUT) return on_start(cb, st);
  if (!tag || cb->callout_string_length < 1) return 1;
  if (tag[0] == '<') return cb->current_position < st->expect_end ? 0 : 1;
  int uni = tag[0] == 'u';
  uint64_t g = 0;
  for (size_t i = 1; i < cb->callout_string_length; i++) g = g * 10 + (uint64_t)(tag[i] - '0');
  if (g >= cb->capture_top) return 1;
  if (++st->compares % CLOCK_COMPARES == 0 && clock_over(st, search_time(st))) return TIME_UP;
  PCRE2_SIZE gs = cb->offset_vector[2 * g], ge = cb->offset_vector[2 * g + 1];
  if (gs == PCRE2_UNSET || ge == PCRE2_UNSET || ge < gs) return 1;
  const char *s = (const char *)cb->subject;
  size_t n = cb->subject_length, i = gs, j = cb->current_position;
  while (i < ge) {
    if (j >= n) return 1;
    if (st->left == 0) {
      st->stop = IFS_STOP_BUDGET;
      return PCRE2_ERROR_CALLOUT;
    }
    st->left--;
    unsigned x = (unsigned char)s[i], y = (unsigned char)s[j];
    if ((x | y) < 0x80) {   /* ASCII: both modes lower A-Z alone */
      i++;
      j++;
      if (x != y && (x - 'A' < 26u ? x + 32 : x) != (y - 'A' < 26u ? y + 32 : y)) return 1;
      continue;
    }
    uint32_t a = ifs_decode(s, ge, &i), b = ifs_decode(s, n, &j);
    if (a != b && ifs_re_mode_lower(uni, a) != ifs_re_mode_lower(uni, b)) return 1;
  }
  st->expect_end = j;
  return 0;
}

ifs_regex_cache *ifs_regex_cache_new(void) {
  ifs_regex_cache *c = ifs_malloc(sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
#ifdef IFS_TESTING
  c->test = DEFAULT_LIMITS;
#endif
  ifs_buf_init(&c->pat);
  ifs_buf_init(&c->subj);
  c->max_count = CACHE_MAX;
  c->max_bytes = CACHE_BYTES;
  c->rng = 0x9E3779B97F4A7C15u;
  c->gctx = pcre2_general_context_create(gc_malloc, gc_free, NULL);
  if (!c->gctx) goto fail;
  c->cctx = pcre2_compile_context_create(c->gctx);
  c->mctx = pcre2_match_context_create(c->gctx);
  c->md = pcre2_match_data_create(1, c->gctx);
  if (!c->cctx || !c->mctx || !c->md) goto fail;
  pcre2_set_newline(c->cctx, PCRE2_NEWLINE_LF);
  pcre2_set_bsr(c->cctx, PCRE2_BSR_UNICODE);
  pcre2_set_parens_nest_limit(c->cctx, 10000);
  pcre2_set_heap_limit(c->mctx, HEAP_LIMIT_KIB);
  pcre2_set_callout(c->mctx, on_callout, &c->st);
  return c;
fail:
  ifs_regex_cache_free(c);
  return NULL;
}

static void entry_clear(centry *e) {
  ifs_free(e->key);
  pcre2_code_free(e->code);
  pcre2_code_free(e->probe);
  pcre2_code_free(e->run);
  ifs_redfa_free(e->dfa);
  memset(e, 0, sizeof *e);
}

void ifs_regex_cache_free(ifs_regex_cache *c) {
  if (!c) return;
  for (uint32_t i = 0; i < c->count; i++) entry_clear(&c->ent[i]);
  ifs_free(c->ent);
  ifs_free(c->index);
  pcre2_jit_stack_free(c->jstack);
  pcre2_match_data_free(c->md);
  pcre2_match_context_free(c->mctx);
  pcre2_compile_context_free(c->cctx);
  pcre2_general_context_free(c->gctx);
  ifs_buf_free(&c->pat);
  ifs_buf_free(&c->subj);
  ifs_free(c);
}

/* What in a translation PCRE2 10.42's bugs need (see workaround_opts).
** Every literal ASCII punctuation character the emitter writes is
** escaped, so an unescaped ( | * + or { is syntax; the braces of \x{..}
** and \g{..} hold no comma. */
typedef struct {
  int lookahead;        /* (?= */
  int atomic;           /* (?> */
  int alternation;      /* | */
  int unbounded;        /* * + {n,} (and the possessive ?+: rare, and safe) */
} pat_traits;

static pat_traits traits_of(const char *s, size_t n) {
  pat_traits t = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
    case '\\': i++; break;
    case '|': t.alternation = 1; break;
    case '*': case '+': t.unbounded = 1; break;
    case '(':
      if (i + 2 < n && s[i + 1] == '?' && s[i + 2] == '=') t.lookahead = 1;
      if (i + 2 < n && s[i + 1] == '?' && s[i + 2] == '>') t.atomic = 1;
      break;
    case '{': {
      size_t j = i + 1;
      while (j < n && s[j] >= '0' && s[j] <= '9') j++;
      if (j > i + 1 && j + 1 < n && s[j] == ',' && s[j + 1] == '}') t.unbounded = 1;
      break;
    }
    }
  }
  return t;
}

/* Options that dodge PCRE2 10.42 optimizer and JIT bugs, only where they
** can strike: (1) a first code unit taken from a lookahead is also
** counted as consumed ((?=a)a?a fails on "a"); (2) auto-possessification
** before an atomic group holding a repeated capture (a?(?>(c)*)a fails on
** "a"); (3) the JIT's early-fail marks (one of its start-up
** optimizations) on an unbounded repeat of one character that a group
** with alternatives leads to, or an atomic group holds or leads to:
** (k|)a*k fails on "k", (?>[ka]+?)kk on "aakk" (fixed in PCRE2 10.43). */
static uint32_t workaround_opts(const ifs_buf *pat) {
  pat_traits t = traits_of(pat->p, pat->len);
  uint32_t o = 0;
  if (t.atomic) o |= PCRE2_NO_AUTO_POSSESS;
  if (t.lookahead || ((t.alternation || t.atomic) && t.unbounded)) o |= PCRE2_NO_START_OPTIMIZE;
  return o;
}

/* JIT-compiles code where the build allows (else it is interpreted). */
static void jit_compile(pcre2_code *code) {
#ifndef IFS_NO_JIT   /* the valgrind build: JIT code reads past subjects on purpose */
  if (code) (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
#else
  (void)code;
#endif
}

/* Compiles the translation in c->pat, and JIT-compiles it unless `later`
** (a pattern with a DFA, which PCRE2 may never need to run); NULL with
** *err set when PCRE2 refuses it. */
static pcre2_code *compile_pat(ifs_regex_cache *c, uint32_t opts, int later, int *err) {
  PCRE2_SIZE off;
  /* an empty translation leaves the buffer unallocated; PCRE2 wants a pointer */
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)(c->pat.p ? c->pat.p : ""), c->pat.len,
                                   COMPILE_OPTS | opts | workaround_opts(&c->pat), err, &off,
                                   c->cctx);
  if (!later) jit_compile(code);
  return code;
}

/* PCRE2's refusals of a translation that are its own size limits, which
** Python does not have (compiled code over 64 KiB, more than 65535 groups,
** a look-behind longer than 65535 characters, ...): the pattern is valid
** but beyond PCRE2, IFS_LIMIT.  Any other refusal is a translator bug,
** which tests/fuzz/fuzz_regex.c and tests/regex_diff.py look for: the
** pattern is then refused as invalid, never called a limit, so that the
** differential test reports its disagreement with Python. */
static int pcre2_size_error(int err) {
  switch (err) {
  case PCRE2_ERROR_PATTERN_TOO_LARGE:
  case PCRE2_ERROR_PATTERN_STRING_TOO_LONG:
  case PCRE2_ERROR_PATTERN_TOO_COMPLICATED:
  case PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP:
  case PCRE2_ERROR_TOO_MANY_CAPTURES:
  case PCRE2_ERROR_LOOKBEHIND_TOO_LONG:
    return 1;
  default:
    return 0;
  }
}

/* The bytes a code holds, with its JIT code. */
static size_t code_size(const pcre2_code *code) {
  size_t size = 0, jit = 0;
  if (!code) return 0;
  pcre2_pattern_info(code, PCRE2_INFO_SIZE, &size);
  pcre2_pattern_info(code, PCRE2_INFO_JITSIZE, &jit);
  return size + jit;
}

/* The bytes an entry holds: its key and codes (counted again only when they
** have changed) and its DFA, whose states grow with the searches. */
static size_t entry_bytes(centry *e) {
  if (e->recount) {
    e->code_bytes = sizeof *e + e->kn + code_size(e->code) + code_size(e->probe) +
                    code_size(e->run);
    e->recount = 0;
  }
  return e->code_bytes + ifs_redfa_bytes(e->dfa);
}

static uint32_t index_mask(const ifs_regex_cache *c) { return 2 * c->cap - 1; }

/* The index slot that holds entry k. */
static uint32_t slot_of_entry(const ifs_regex_cache *c, uint32_t k) {
  uint32_t m = index_mask(c), i = (uint32_t)c->ent[k].hash & m;
  while (c->index[i] != k + 1) i = (i + 1) & m;
  return i;
}

static void index_put(ifs_regex_cache *c, uint32_t k) {
  uint32_t m = index_mask(c), i = (uint32_t)c->ent[k].hash & m;
  while (c->index[i]) i = (i + 1) & m;
  c->index[i] = k + 1;
}

/* Empties index slot i.  Linear probing keeps no tombstones: each later
** slot of the run moves back into the hole unless its own first slot lies
** between the hole and it. */
static void index_delete(ifs_regex_cache *c, uint32_t i) {
  uint32_t m = index_mask(c);
  for (uint32_t j = (i + 1) & m; c->index[j]; j = (j + 1) & m) {
    uint32_t home = (uint32_t)c->ent[c->index[j] - 1].hash & m;
    if (((j - home) & m) >= ((j - i) & m)) {
      c->index[i] = c->index[j];
      i = j;
    }
  }
  c->index[i] = 0;
}

/* Twice the entries (CACHE_FIRST at first), the index built again. */
static ifs_status cache_grow(ifs_regex_cache *c) {
  uint32_t cap = c->cap ? 2 * c->cap : CACHE_FIRST;
  centry *ent = ifs_realloc(c->ent, cap * sizeof *ent);
  if (!ent) return IFS_NOMEM;
  c->ent = ent;
  memset(ent + c->cap, 0, (cap - c->cap) * sizeof *ent);
  uint32_t *index = ifs_malloc(2 * (size_t)cap * sizeof *index);
  if (!index) return IFS_NOMEM;
  memset(index, 0, 2 * (size_t)cap * sizeof *index);
  ifs_free(c->index);
  c->index = index;
  c->cap = cap;
  for (uint32_t k = 0; k < c->count; k++) index_put(c, k);
  return IFS_OK;
}

/* Drops entry k; the last entry takes its place. */
static void cache_drop(ifs_regex_cache *c, uint32_t k) {
  c->bytes -= c->ent[k].bytes;
  index_delete(c, slot_of_entry(c, k));
  entry_clear(&c->ent[k]);
  uint32_t last = --c->count;
  if (k == last) return;
  c->index[slot_of_entry(c, last)] = k + 1;
  c->ent[k] = c->ent[last];
  memset(&c->ent[last], 0, sizeof c->ent[last]);
}

#define NO_ENTRY UINT32_MAX

/* Drops entries picked at random, never entry `keep`, until `adding` more
** fit within the cache's bounds; where `keep` is then (it may have moved). */
static uint32_t make_room(ifs_regex_cache *c, uint32_t keep, uint32_t adding) {
  while (c->count > (keep != NO_ENTRY) &&
         (c->count + adding > c->max_count || c->bytes > c->max_bytes)) {
    uint32_t k = (uint32_t)(ifs_xorshift64(&c->rng) % c->count);
    if (k == keep) k = (k + 1) % c->count;
    if (keep == c->count - 1) keep = k;   /* the last entry moves into k */
    cache_drop(c, k);
  }
  return keep;
}

/* Translates and compiles a pattern into a new entry, making room for it.
** NULL only when memory ran out. */
static centry *cache_fill(ifs_regex_cache *c, const char *pat, size_t pn,
                          uint64_t h, uint32_t map_base) {
  (void)make_room(c, NO_ENTRY, 1);
  if (c->count == c->cap && cache_grow(c)) return NULL;
  centry *slot = &c->ent[c->count];
  char *key = ifs_malloc(pn ? pn : 1);
  if (!key) return NULL;
  if (pn) memcpy(key, pat, pn);
  uint64_t minwidth = 0;
  ifs_buf_clear(&c->pat);
  ifs_redfa *dfa = NULL;
  ifs_status rc = translate(pat, pn, map_base, &c->pat, &minwidth, NULL, &dfa);
  if (c->pat.oom) rc = IFS_NOMEM;
  if (rc == IFS_NOMEM) { ifs_redfa_free(dfa); ifs_free(key); return NULL; }
  ifs_status status = rc;   /* IFS_OK, IFS_INVALID or IFS_LIMIT */
  pcre2_code *code = NULL;
  int callouts = 0;
  if (!status) {
    int err;
    code = compile_pat(c, 0, dfa != NULL, &err);
    callouts = ifs_find(c->pat.p, c->pat.len, "(?C'", 4) != NULL;
    if (!code && err == PCRE2_ERROR_HEAP_FAILED) { ifs_redfa_free(dfa); ifs_free(key); return NULL; }
    if (!code) status = pcre2_size_error(err) ? IFS_LIMIT : IFS_INVALID;
  }
  if (status) { ifs_redfa_free(dfa); dfa = NULL; }
  *slot = (centry){ .key = key, .kn = pn, .hash = h, .map_base = map_base, .status = status,
                    .minwidth = minwidth, .code = code, .dfa = dfa, .jit_later = dfa != NULL,
                    .callouts = callouts, .recount = 1 };
  slot->bytes = entry_bytes(slot);
  c->bytes += slot->bytes;
  uint32_t k = c->count++;
  index_put(c, k);
#ifdef IFS_TESTING
  c->fills++;
#endif
  k = make_room(c, k, 0);   /* its own bytes may take the cache past its bound */
  return &c->ent[k];
}

/* The entry of a pattern (with a subject translation), NULL when none. */
static centry *cache_find(const ifs_regex_cache *c, const char *pat, size_t pn, uint64_t h,
                          uint32_t map_base) {
  if (!c->cap) return NULL;
  uint32_t m = index_mask(c);
  for (uint32_t i = (uint32_t)h & m; c->index[i]; i = (i + 1) & m) {
    centry *x = &c->ent[c->index[i] - 1];
    if (x->hash == h && x->kn == pn && x->map_base == map_base &&
        (pn == 0 || memcmp(x->key, pat, pn) == 0))
      return x;
  }
  return NULL;
}

/* The entry of a pattern, compiled on a miss; NULL when memory ran out.
** It stays valid until the next call or settle(). */
static centry *cache_get(ifs_regex_cache *c, const char *pat, size_t pn, uint32_t map_base) {
  uint64_t h = ifs_hash_bytes(pat, pn);
  centry *e = cache_find(c, pat, pn, h, map_base);
  return e ? e : cache_fill(c, pat, pn, h, map_base);
}

/* After a search with entry e: its bytes counted again (its DFA grew, its
** JIT or probe code was compiled) and the cache brought back within its
** bounds, e kept (it may move: the caller is done with it). */
static void settle(ifs_regex_cache *c, centry *e) {
  size_t b = entry_bytes(e);
  if (b == e->bytes) return;
  c->bytes = c->bytes - e->bytes + b;
  e->bytes = b;
  (void)make_room(c, (uint32_t)(e - c->ent), 0);
}

/* 0 when the subject is strict UTF-8 (PCRE2 can take it as is); else,
** as it holds a surrogate or a byte that is not UTF-8, the base of the
** first block of MAP_BASES it does not use (see map_cp). */
static uint32_t subject_map_base(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  /* strict UTF-8 (the common case, checked word-at-a-time) has neither
  ** surrogates nor stray bytes: PCRE2 takes it as it is */
  if (ifs_utf8_is_valid(s, n)) return 0;
  int surrogates = 0;
  uint32_t used = 0;   /* bit k: the subject has a character of block k */
  while (i < n) {
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, u + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (u[i] < 0x80) { i++; continue; }
    uint32_t cp = ifs_decode(s, n, &i);
    if (is_surrogate(cp)) surrogates = 1;
    else if (cp >= 0x3F800)
      for (size_t k = 0; k < NELEM(MAP_BASES); k++)
        if (cp - MAP_BASES[k] < MAP_BLOCK) used |= 1u << k;
  }
  if (!surrogates) return 0;
  for (size_t k = 0; k < NELEM(MAP_BASES); k++)
    if (!(used & (1u << k))) return MAP_BASES[k];
  return MAP_BASES[0];   /* every block taken: those characters collide */
}

/* Surrogates (and stray bytes, read as U+DC00+byte) to base+k. */
static ifs_status remap_subject(ifs_buf *out, const char *s, size_t n, uint32_t base) {
  ifs_buf_clear(out);
  if (ifs_buf_reserve(out, n + n / 2 + 8)) return IFS_NOMEM;
  for (size_t i = 0; i < n;) {
    size_t k = i;
    uint32_t cp = ifs_decode(s, n, &k);
    ifs_status rc = is_surrogate(cp) ? ifs_buf_append_cp(out, base + (cp - 0xD800))
                                     : ifs_buf_append(out, s + i, k - i);
    if (rc) return IFS_NOMEM;
    i = k;
  }
  return IFS_OK;
}

/* The entry's pattern after (?C255) (see on_start), and its run test
** (see skip_run), compiled the first time a search needs them.  NULL: *rc
** says why (PCRE2_ERROR_NOMEMORY, or PCRE2_ERROR_MATCHLIMIT for a
** translation PCRE2 takes only without the prefix). */
static pcre2_code *probe_code(ifs_regex_cache *c, centry *e, int *rc) {
  if (e->probe) return e->probe;
  ifs_buf lead;
  ifs_buf_init(&lead);
  ifs_buf_clear(&c->pat);
  ifs_buf_append_str(&c->pat, START_CALLOUT_TEXT);
  int tr = translate(e->key, e->kn, e->map_base, &c->pat, NULL, &lead, NULL);
  int err = 0, oom = c->pat.oom || lead.oom || tr == IFS_NOMEM;
  if (!oom && tr == IFS_OK) e->probe = compile_pat(c, 0, 0, &err);
  oom |= err == PCRE2_ERROR_HEAP_FAILED;
  if (e->probe && lead.len) {     /* without it, the search only skips less */
    ifs_buf_clear(&c->pat);
    ifs_buf_append(&c->pat, lead.p, lead.len);
    ifs_buf_append_str(&c->pat, "*+");
    if (!c->pat.oom) e->run = compile_pat(c, PCRE2_ANCHORED, 0, &err);
    if (!e->run && (c->pat.oom || err == PCRE2_ERROR_HEAP_FAILED)) {
      pcre2_code_free(e->probe);  /* all or nothing: the next search tries again */
      e->probe = NULL;
      oom = 1;
    }
  }
  ifs_buf_free(&lead);
  e->recount = 1;
  if (!e->probe) *rc = oom ? PCRE2_ERROR_NOMEMORY : PCRE2_ERROR_MATCHLIMIT;
  return e->probe;
}

/* One pcre2_match from start, over start positions up to offset limit
** `last`, each allowed `charge` budget steps: charge / weight PCRE2 steps,
** a further INTERP_WEIGHT times fewer when the interpreter takes over
** because the JIT stack ran out (fell_back: the caller charges again). */
static int match_once(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                      size_t start, size_t last, uint64_t charge) {
  uint64_t steps = charge / c->st.weight;
  pcre2_set_offset_limit(c->mctx, last);
  pcre2_set_match_limit(c->mctx, steps == 0 ? 1 : steps > UINT32_MAX ? UINT32_MAX : (uint32_t)steps);
  int rc = pcre2_match(code, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, c->md, c->mctx);
  if (rc != PCRE2_ERROR_JIT_STACKLIMIT) return rc;
  steps = charge / (c->st.weight * INTERP_WEIGHT);
  pcre2_set_match_limit(c->mctx, steps == 0 ? 1 : steps > UINT32_MAX ? UINT32_MAX : (uint32_t)steps);
  c->st.fell_back = 1;
  return pcre2_match(code, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                     c->md, c->mctx);
}

/* The plain code over every start position: in one call for a short
** subject; otherwise in chunks of start positions (PCRE2's offset limit),
** growing while they are quick, so that the clock can be read in
** between. */
static int plain_search(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                        uint64_t charge) {
  if (n < CHUNK_MIN) return match_once(c, code, s, n, 0, n, charge);
  uint32_t first = 0;
  pcre2_pattern_info(code, PCRE2_INFO_FIRSTCODETYPE, &first);
  int line_starts = first == 2;   /* tries only after a newline: keep it so */
  size_t start = 0, span = 256;
  double t = search_time(&c->st);
  for (;;) {
    size_t last = n - start > span ? start + span : n;
    int rc = match_once(c, code, s, n, start, last, charge);
    if (rc != PCRE2_ERROR_NOMATCH || last >= n) return rc;
    double now = search_time(&c->st);
    if (clock_over(&c->st, now)) return TIME_UP;
    if (now - t < 0.005 && span < ((size_t)1 << 26)) span *= 2;
    else if (now - t > 0.02 && span > 16) span /= 2;
    t = now;
    start = last + 1;   /* the next character boundary, or line start */
    if (line_starts) {
      const char *nl = memchr(s + last, '\n', n - last);
      if (!nl) return PCRE2_ERROR_NOMATCH;
      start = (size_t)(nl - s) + 1;
    }
    while (start < n && ((unsigned char)s[start] & 0xC0) == 0x80) start++;
    if (start > n) return PCRE2_ERROR_NOMATCH;
  }
}

/* The first pass: the plain code over every start position, each allowed
** `charge`, all charged beforehand (PCRE2 does not tell how many it
** tried), and again if the interpreter took over. */
static int first_pass(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                      uint64_t charge) {
  search_state *st = &c->st;
  uint64_t cost = charge * ((uint64_t)n + 1);
  st->left -= cost;
  st->fell_back = 0;
  int rc = plain_search(c, code, s, n, charge);
  if (st->fell_back) st->left = st->left > cost ? st->left - cost : 0;
  return rc;
}

/* Where the search goes on after start position p failed for good, the
** next position PCRE2 would try being `next`.  For a pattern X*R or X+R
** (X a one-character test, `run` = X*+), none of p+1 .. q can match
** either, q being the end of X's run from p: from each of them X stops at
** a subset of the places it stopped from p, and R there is the same test
** (no group holds X).  PCRE2's JIT spares itself that work within one
** call too; without this the probe code would try them all, which makes
** `[^a-z]*\Z` on a long run quadratic.  The runs scanned are disjoint,
** so the scans cost one pass over the subject at most.
** Returns n + 1 when no position is left. */
static size_t skip_run(ifs_regex_cache *c, pcre2_code *run, const char *s, size_t n,
                       size_t p, size_t next) {
  if (!run) return next;
  pcre2_set_offset_limit(c->mctx, p);
  pcre2_set_match_limit(c->mctx, UINT32_MAX);
  if (pcre2_match(run, (PCRE2_SPTR)s, n, p, PCRE2_NO_UTF_CHECK, c->md, c->mctx) < 0)
    return next;
  size_t q = pcre2_get_ovector_pointer(c->md)[1];
  if (q >= n) return n + 1;
  q++;
  while (q < n && ((unsigned char)s[q] & 0xC0) == 0x80) q++;
  return q > next ? q : next;
}

/* Start position p alone, with limits growing `growth`-fold from `first`
** up to `cap` or what the budget has left, each try charged beforehand;
** the last two tries are cap / TOP_STEP and the cap, so that a position
** that needs more than the cap costs at most ~1.2 times the cap.
** PCRE2_ERROR_MATCHLIMIT when p needs more; *used: the last try's limit. */
static int escalate(ifs_regex_cache *c, pcre2_code *code, const char *s, size_t n,
                    size_t p, uint64_t first, uint64_t growth, uint64_t cap, uint64_t *used) {
  search_state *st = &c->st;
  uint64_t prev = 0, t = first;
  for (;;) {
    if (t > cap) t = cap;
    if (t <= prev) {
      st->stop = IFS_STOP_POSITION;
      return PCRE2_ERROR_MATCHLIMIT;
    }
    if (t > st->left) t = st->left;
    if (t <= prev) {
      st->stop = IFS_STOP_BUDGET;
      return PCRE2_ERROR_MATCHLIMIT;
    }
    if (clock_over(st, search_time(st))) return TIME_UP;
    st->left -= t;
    st->fell_back = 0;
    int rc = match_once(c, code, s, n, p, p, t);
    if (st->fell_back) st->left = st->left > t ? st->left - t : 0;
    *used = t;
    if (rc != PCRE2_ERROR_MATCHLIMIT) return rc;
    prev = t;
    t = t >= cap / TOP_STEP ? cap : t * growth > cap / TOP_STEP ? cap / TOP_STEP : t * growth;
  }
}

/* The probe code from the start of the subject, each start position
** charged `base` as it is tried.  A position that needs more is tried
** again alone (escalate): from ESCALATE x base, growing ESCALATE-fold; or,
** once a position has needed more than that, from a guess that follows
** what such positions need as it grows or falls along the text: the limit
** the last one ended with, less an eighth when that was its first try,
** doubling when it is not enough.  Once the position has failed for good
** the search goes on past it (skip_run) with `base` again. */
static int probe_pass(ifs_regex_cache *c, const centry *e, const char *s, size_t n,
                      uint64_t base, uint64_t cap) {
  search_state *st = &c->st;
  size_t start = 0;
  uint64_t guess = 0;
  for (;;) {
    st->per_start = base;
    st->last_start = SIZE_MAX;
    int rc = match_once(c, e->probe, s, n, start, n, base);
    if (rc != PCRE2_ERROR_MATCHLIMIT || st->last_start == SIZE_MAX) return rc;
    size_t p = st->last_start;
    int guessed = guess > ESCALATE * base;
    uint64_t first = guessed ? guess : ESCALATE * base, used = first;
    rc = escalate(c, e->code, s, n, p, first, guessed ? 2 : ESCALATE, cap, &used);
    if (rc != PCRE2_ERROR_NOMATCH) return rc;   /* a match, the limit, an error */
    guess = used == first ? used - used / 8 : used;
    size_t next = p + 1;
    while (next < n && ((unsigned char)s[next] & 0xC0) == 0x80) next++;
    start = skip_run(c, e->run, s, n, p, next);
    if (start > n) return PCRE2_ERROR_NOMATCH;
  }
}

/* re.search within the budget.  Each PCRE2 step is charged `weight`
** budget steps: 1 with the JIT, INTERP_WEIGHT with the interpreter, and
** CALLOUT_WEIGHT times that for a pattern with case-insensitive
** back-references.  An anchored pattern has one start position: one try
** with its cap.  Otherwise a first pass gives every start position an
** equal share of an eighth of the budget (the common case ends there).  If
** a position needs more, the probe code goes over the subject again,
** charging each position it tries that share (within PROBE_BASE_MIN and
** PROBE_BASE_MAX) and escalating those that need more (see probe_pass). */
static int search_budgeted(ifs_regex_cache *c, centry *e, const char *s, size_t n) {
  search_state *st = &c->st;
  uint32_t all = 0;
  size_t jit = 0;
  pcre2_pattern_info(e->code, PCRE2_INFO_ALLOPTIONS, &all);
  pcre2_pattern_info(e->code, PCRE2_INFO_JITSIZE, &jit);
  st->weight = (jit ? 1 : INTERP_WEIGHT) * (e->callouts ? CALLOUT_WEIGHT : 1);
  search_limits lim = limits_of(c);
  st->left = lim.budget_base + BUDGET_PER_BYTE * (uint64_t)n;
  uint64_t cap = lim.pos_cap < st->left ? lim.pos_cap : st->left;
  st->starts = 0;
  st->compares = 0;
  st->t0 = -1;
  st->cpu_limit = lim.cpu_limit;
  if (n >= CHUNK_MIN) (void)search_time(st);   /* the clock starts now */
  uint64_t used;
  if (all & PCRE2_ANCHORED) return escalate(c, e->code, s, n, 0, cap, 2, cap, &used);
  uint64_t share = st->left / (FIRST_SHARE * ((uint64_t)n + 1));
  if (share > cap) share = cap;
  int rc = first_pass(c, e->code, s, n, share);
  if (rc == PCRE2_ERROR_MATCHLIMIT && share == cap) st->stop = IFS_STOP_POSITION;
  if (rc != PCRE2_ERROR_MATCHLIMIT || share == cap) return rc;
  uint64_t base = share < PROBE_BASE_MIN ? PROBE_BASE_MIN : share > PROBE_BASE_MAX ? PROBE_BASE_MAX : share;
  return probe_code(c, e, &rc) ? probe_pass(c, e, s, n, base, cap) : rc;
}

static ifs_status search(ifs_regex_cache *c, const char *pat, size_t pn,
                         const char *subj, size_t sn, uint32_t map_base, int *matched);

#ifdef IFS_TESTING
void ifs_test_regex_use_dfa(ifs_regex_cache *c, int on) { c->test.use_dfa = on != 0; }

void ifs_test_regex_budget(ifs_regex_cache *c, uint64_t total, uint64_t position) {
  c->test.budget_base = total ? total : BUDGET_BASE;
  c->test.pos_cap = position ? position : POS_CAP;
}

int ifs_test_regex_last_stop(const ifs_regex_cache *c) { return c->st.stop; }

void ifs_test_regex_cache_bounds(ifs_regex_cache *c, uint32_t patterns, size_t bytes) {
  c->max_count = patterns ? patterns : CACHE_MAX;
  c->max_bytes = bytes ? bytes : CACHE_BYTES;
}

void ifs_test_regex_cache_stats(const ifs_regex_cache *c, uint32_t *patterns, size_t *bytes,
                                uint64_t *compiled) {
  *patterns = c->count;
  *bytes = c->bytes;
  *compiled = c->fills;
}

int ifs_test_regex_cache_ok(ifs_regex_cache *c) {
  size_t bytes = 0, used = 0;
  for (uint32_t k = 0; k < c->count; k++) {
    centry *e = &c->ent[k];
    if (cache_find(c, e->key, e->kn, e->hash, e->map_base) != e) return 0;
    if (e->hash != ifs_hash_bytes(e->key, e->kn) || entry_bytes(e) != e->bytes) return 0;
    bytes += e->bytes;
  }
  for (uint32_t i = 0; c->cap && i <= index_mask(c); i++) {
    if (!c->index[i]) continue;
    if (c->index[i] > c->count || slot_of_entry(c, c->index[i] - 1) != i) return 0;
    used++;
  }
  return bytes == c->bytes && used == c->count && c->count <= c->cap;
}

void ifs_test_regex_cpu_limit(ifs_regex_cache *c, double seconds) {
  c->test.cpu_limit = seconds > 0 ? seconds : SEARCH_CPU_SECONDS;
}

ifs_status ifs_test_regex_has_dfa(ifs_regex_cache *c, const char *pat, size_t pn, int *has) {
  centry *e = cache_get(c, pat, pn, 0);
  if (!e) return IFS_NOMEM;
  *has = e->dfa != NULL;
  return IFS_OK;
}
#endif

ifs_status ifs_regex_search(ifs_regex_cache *c, const char *pat, size_t pn,
                            const char *subj, size_t sn, int *matched) {
  return search(c, pat, pn, subj, sn, subject_map_base(subj, sn), matched);
}

ifs_status ifs_regex_search_utf8(ifs_regex_cache *c, const char *pat, size_t pn,
                                 const char *subj, size_t sn, int *matched) {
  return search(c, pat, pn, subj, sn, 0, matched);   /* strict UTF-8: nothing to map */
}

static ifs_status search_entry(ifs_regex_cache *c, centry *e, const char *subj, size_t sn,
                               uint32_t map_base, int *matched);

static ifs_status search(ifs_regex_cache *c, const char *pat, size_t pn,
                         const char *subj, size_t sn, uint32_t map_base, int *matched) {
  centry *e = cache_get(c, pat, pn, map_base);
  if (!e) return IFS_NOMEM;
  ifs_status rc = search_entry(c, e, subj, sn, map_base, matched);
  settle(c, e);
  return rc;
}

/* re.search with the pattern's entry. */
static ifs_status search_entry(ifs_regex_cache *c, centry *e, const char *subj, size_t sn,
                               uint32_t map_base, int *matched) {
  *matched = 0;
  c->st.stop = IFS_STOP_NONE;
  if (e->status == IFS_LIMIT && e->minwidth > sn) return IFS_OK;
  if (e->status == IFS_LIMIT && e->minwidth > ifs_count_chars(subj, sn))
    return IFS_OK;      /* PCRE2 could not hold it, but too short: no match */
  if (e->status == IFS_LIMIT) c->st.stop = IFS_STOP_SIZE;
  if (e->status) return e->status;
  if (e->dfa && limits_of(c).use_dfa) {
    ifs_status rd = ifs_redfa_search(e->dfa, subj, sn, matched);
    if (rd != IFS_LIMIT) return rd;
  }                     /* IFS_LIMIT: the DFA gave up, PCRE2 answers */
  if (e->jit_later) {
    jit_compile(e->code);
    e->jit_later = 0;
    e->recount = 1;
  }
  if (map_base) {
    if (remap_subject(&c->subj, subj, sn, map_base)) return IFS_NOMEM;
    subj = c->subj.p;
    sn = c->subj.len;
  }
  if (!c->jstack && !c->no_jstack) {
    /* Large address space first; without it, PCRE2's small default. */
    c->jstack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_MAX, c->gctx);
    if (!c->jstack) c->jstack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_SMALL, c->gctx);
    if (c->jstack) pcre2_jit_stack_assign(c->mctx, NULL, c->jstack);
    else c->no_jstack = 1;
  }
  c->st.expect_end = 0;
  int rc = search_budgeted(c, e, subj, sn);
  if (map_base && c->subj.cap > ((size_t)1 << 20)) ifs_buf_free(&c->subj);
  *matched = rc >= 0;
  if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH) return IFS_OK;
  if (rc == PCRE2_ERROR_NOMEMORY) return IFS_NOMEM;
  if (c->st.stop == IFS_STOP_NONE) c->st.stop = IFS_STOP_OTHER;   /* PCRE2's heap limit */
  return IFS_LIMIT;
}
