/*
** ifs_redfa.c — a lazily built DFA that answers whether a regular pattern
** matches somewhere (see ifs_redfa.h).
**
** Alphabet: the bounds of every set's ranges cut the code points into
** intervals; intervals that every set treats alike, and that agree on
** being \n, a word character (of \b) and ASCII, form one class.  A class is
** found by table for ASCII and for U+0080..U+07FF (Latin, Greek, Cyrillic
** and more in two bytes), by binary search above.  Two classes more: a \n
** that ends the text (Python's $ matches before it) and the end itself.
**
** A state is the set of NFA positions reached just after a character (its
** kernel, sorted) and what assertions need to know of that character
** (start of text, \n, word).  A transition follows the kernel's
** empty moves knowing the next character's class, so ^ $ \b are decided
** there, then consumes the character.  A state's whole row is built at its
** first visit; if the state loops on most ASCII bytes, its exit bytes go
** into a nibble table that an SSSE3 or NEON loop tests sixteen bytes at a
** time.
** While no match is under way (an idle state), the search skips to the
** next byte that can start one (see prepare_idle).
**
** The states stay built from one search to the next, but whether a search
** is answered here or given up (too many states, too much work) must not
** depend on what earlier searches built: an index on if_score holds its
** answers.  So a search is charged, for each distinct state it enters, the
** work that building that state's row took (kept with the state), as a DFA
** built for that search alone would spend; and a search that fills the
** state table starts again once on an empty one.
**
** Entry points: ifs_redfa_new(), ifs_redfa_search().
*/
#include "ifs_redfa.h"
#include "ifs_simd.h"
#include <stdlib.h>
#include <string.h>
#if IFS_X86_SIMD
#define RD_X86 1
#define RD_SIMD_TARGET __attribute__((target("ssse3")))
#else
#define RD_X86 0
#endif

#define MAX_CLASSES 240u
#define MAX_SWEEP ((size_t)8 << 20)     /* intervals x sets at build time */
#define MAX_CELLS ((size_t)1 << 18)     /* states x row width (1 MB of rows) */
#define MAX_KERNEL ((size_t)1 << 18)    /* NFA positions in all kernels */
#define SMALL_STATES 16u                /* what a reset shrinks the arrays to */
#define WORK_PER_SEARCH 4000000u        /* closure steps one search may spend */
#define ACCEL_MIN_LOOPS 48              /* ASCII bytes a state must loop on */
#define CP_END 0x110000u

enum { T_ACCEPT = -1, T_DEAD = -2, T_NOMEM = -3, T_FULL = -4, T_SLOW = -5, T_NOT_UTF8 = -6 };
enum { P_START = 1, P_NL = 2, P_WORD = 4 };        /* the previous character */
enum { CF_NL = 1, CF_WORD = 2, CF_NONASCII = 4 };  /* class flags */
/* What an idle state may know of the previous character (P_START aside). */
static const uint8_t IDLE_PREVS[3] = { 0, P_NL, P_WORD };

/* The bytes that leave a state (or the idle states): b < 0x80 when bit
** (b >> 4) of nib[b & 15] is set; every byte >= 0x80 when hi is set. */
typedef struct rd_exits { uint8_t nib[16]; uint8_t hi; } rd_exits;

typedef struct rd_state {
  uint32_t koff, klen;   /* kernel: kpool[koff .. koff + klen) */
  uint32_t row_work;     /* closure steps its row took to build */
  uint32_t seen;         /* the search that last entered it (ifs_redfa.search) */
  uint8_t prev;          /* P_* bits the program reads */
  uint8_t full;          /* row built */
  uint8_t accel;         /* scan for exit bytes */
  uint8_t idle;          /* kernel {start}: no match under way */
  uint8_t cost;          /* exits_cost(&exits) */
  rd_exits exits;
} rd_state;

struct ifs_redfa {
  ifs_rd_inst *ins;
  uint32_t nins, anchored, need;
  /* alphabet */
  uint32_t ncls, width, nsets;   /* width = ncls + 2: the final \n, the end */
  uint8_t ascii_cls[128];
  uint8_t two_cls[0x800 - 0x80];
  uint32_t *hi_lo;               /* starts of the intervals from U+0800 */
  uint8_t *hi_cls;
  size_t nhi;
  uint8_t *member;               /* [width][nsets] */
  uint8_t *cflags;               /* [width] */
  uint8_t *ctx;                  /* [width]: context_of() */
  /* states */
  rd_state *st;
  uint32_t nst, stcap;
  int32_t *trans;                /* [stcap][width] */
  uint32_t *kpool;
  size_t kn, kcap;
  int32_t *slots;                /* open addressing over states, -1 free */
  uint32_t nslots;
  /* work space of a transition */
  uint32_t *mark, *nmark, *stack, *next, *clos;
  uint32_t gen, ngen, nclos;
  uint64_t work, work0;          /* closure steps so far; work - charge, in a search */
  uint64_t charge;               /* this search's work, as if every state were new */
  uint32_t search;               /* the current search, for rd_state.seen */
  int simd;
  /* idle skipping: the idle states by prev, and the bytes that leave them */
  int32_t idle_of[P_START | P_NL | P_WORD | 1];
  int idle_ready, idle_cost;
  rd_exits idle_exits;
};

/* ------------------------------------------------------------------ */
/* Alphabet                                                            */

static const uint32_t ascii_word[][2] = { {'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'} };
static const ifs_rd_set ascii_word_set = { ascii_word, sizeof ascii_word / sizeof ascii_word[0] };

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Kernels are mostly short: insertion sort there, qsort beyond. */
static void sort_u32(uint32_t *v, size_t n) {
  if (n > 32) { qsort(v, n, sizeof *v, cmp_u32); return; }
  for (size_t i = 1; i < n; i++) {
    uint32_t x = v[i];
    size_t j = i;
    for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Interval index of c: the last k with pts[k] <= c (pts[0] <= c). */
static size_t interval_of(const uint32_t *pts, size_t np, uint32_t c) {
  size_t lo = 0, hi = np;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (pts[mid] <= c) lo = mid; else hi = mid;
  }
  return lo;
}


/* A range bound as a cut point: one past the code points is as good as any
** other (it is dropped), and keeps the value within sort_points' bits. */
static uint32_t cut_at(uint32_t c) { return c > CP_END ? CP_END + 1 : c; }

/* Sorts n values of at most CP_END + 1 (21 bits): three passes of a radix
** sort on seven bits each, stable, in linear time (the bounds of \w alone are
** some 1,500).  IFS_NOMEM when its buffer cannot be had. */
static ifs_status sort_points(uint32_t *v, size_t n) {
  uint32_t *tmp = ifs_malloc((n ? n : 1) * sizeof *tmp);
  if (!tmp) return IFS_NOMEM;
  uint32_t *from = v, *to = tmp;
  for (int shift = 0; shift < 21; shift += 7) {
    size_t count[129] = {0};
    for (size_t i = 0; i < n; i++) count[((from[i] >> shift) & 127) + 1]++;
    for (int b = 0; b < 128; b++) count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++) to[count[(from[i] >> shift) & 127]++] = from[i];
    uint32_t *t = from;
    from = to;
    to = t;
  }
  if (from != v) memcpy(v, from, n * sizeof *v);   /* (three passes: it is tmp) */
  ifs_free(tmp);
  return IFS_OK;
}

/* Every range bound (of the sets and the word set), plus the cuts the
** tables and flags need; sorted, unique, ending with CP_END.  NULL on
** out-of-memory. */
static uint32_t *cut_points(const ifs_rd_set *sets, size_t nsets, const ifs_rd_set *word,
                            size_t *np) {
  size_t cap = 8 + 2 * word->n;
  for (size_t s = 0; s < nsets; s++) cap += 2 * sets[s].n;
  uint32_t *pts = ifs_malloc(cap * sizeof *pts);
  if (!pts) return NULL;
  size_t n = 0;
  static const uint32_t fixed[] = { 0, '\n', '\n' + 1, 0x80, 0x800, CP_END };
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) pts[n++] = fixed[k];
  for (size_t k = 0; k < word->n; k++) {
    pts[n++] = cut_at(word->r[k][0]);
    pts[n++] = cut_at(word->r[k][1] + 1);
  }
  for (size_t s = 0; s < nsets; s++)
    for (size_t k = 0; k < sets[s].n; k++) {
      pts[n++] = cut_at(sets[s].r[k][0]);
      pts[n++] = cut_at(sets[s].r[k][1] + 1);
    }
  if (sort_points(pts, n)) { ifs_free(pts); return NULL; }
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (pts[k] <= CP_END && (m == 0 || pts[k] != pts[m - 1])) pts[m++] = pts[k];
  *np = m;
  return pts;
}

/* Classes from the intervals [pts[k], pts[k+1]): each interval's key is
** its membership in every set and its flags; equal keys share a class. */
static ifs_status build_alphabet(ifs_redfa *d, const ifs_rd_set *sets, size_t nsets,
                                 const ifs_rd_set *word) {
  size_t np, wcur = 0;
  uint32_t *pts = cut_points(sets, nsets, word, &np);
  if (!pts) return IFS_NOMEM;
  size_t nint = np - 1, keyn = nsets + 1;
  ifs_status rc = IFS_NOMEM;
  uint8_t *keys = ifs_malloc((MAX_CLASSES + 2) * keyn);   /* per class */
  uint8_t *icls = ifs_malloc(nint ? nint : 1);            /* per interval */
  size_t *cur = ifs_malloc((nsets ? nsets : 1) * sizeof *cur);
  int16_t slot[512];                                      /* key hash -> class */
  uint8_t *key = ifs_malloc(keyn);
  if (!keys || !icls || !cur || !key) goto done;
  rc = IFS_LIMIT;
  if ((nint + word->n) * keyn > MAX_SWEEP) goto done;
  memset(cur, 0, (nsets ? nsets : 1) * sizeof *cur);
  memset(slot, -1, sizeof slot);
  d->ncls = 0;
  for (size_t k = 0; k < nint; k++) {
    uint32_t lo = pts[k];
    for (size_t s = 0; s < nsets; s++) {
      while (cur[s] < sets[s].n && sets[s].r[cur[s]][1] < lo) cur[s]++;
      key[s] = cur[s] < sets[s].n && sets[s].r[cur[s]][0] <= lo;
    }
    while (wcur < word->n && word->r[wcur][1] < lo) wcur++;
    int isword = wcur < word->n && word->r[wcur][0] <= lo;
    key[nsets] = (uint8_t)((lo == '\n' ? CF_NL : 0) | (isword ? CF_WORD : 0) |
                           (lo >= 0x80 ? CF_NONASCII : 0));
    /* a range of a big set (\w) and the gap after it: keys alternate */
    if (k >= 2 && memcmp(keys + (size_t)icls[k - 2] * keyn, key, keyn) == 0) {
      icls[k] = icls[k - 2];
      continue;
    }
    uint64_t h = ifs_hash_bytes(key, keyn);
    size_t j = h & 511;
    while (slot[j] >= 0 && memcmp(keys + (size_t)slot[j] * keyn, key, keyn)) j = (j + 1) & 511;
    if (slot[j] < 0) {
      if (d->ncls == MAX_CLASSES) goto done;
      memcpy(keys + (size_t)d->ncls * keyn, key, keyn);
      slot[j] = (int16_t)d->ncls++;
    }
    icls[k] = (uint8_t)slot[j];
  }
  rc = IFS_NOMEM;
  d->width = d->ncls + 2;
  d->nsets = (uint32_t)nsets;
  d->member = ifs_malloc((size_t)d->width * (nsets ? nsets : 1));
  d->cflags = ifs_malloc(d->width);
  size_t nhi = 0;
  for (size_t k = 0; k < nint; k++)
    if (pts[k] >= 0x800 && (nhi == 0 || icls[k] != icls[k - 1])) nhi++;
  d->hi_lo = ifs_malloc(nhi * sizeof *d->hi_lo);
  d->hi_cls = ifs_malloc(nhi);
  if (!d->member || !d->cflags || !d->hi_lo || !d->hi_cls) goto done;
  for (uint32_t c = 0; c < d->ncls; c++) {
    if (nsets) memcpy(d->member + (size_t)c * nsets, keys + (size_t)c * keyn, nsets);
    d->cflags[c] = keys[(size_t)c * keyn + nsets];
  }
  /* the final \n: a \n to the sets; the end: nothing */
  uint8_t nl = icls[interval_of(pts, np, '\n')];
  if (nsets) {
    memcpy(d->member + (size_t)d->ncls * nsets, d->member + (size_t)nl * nsets, nsets);
    memset(d->member + (size_t)(d->ncls + 1) * nsets, 0, nsets);
  }
  d->cflags[d->ncls] = CF_NL;
  d->cflags[d->ncls + 1] = 0;
  /* the tables below U+0800, an interval at a time (0x80 and 0x800 are cut
  ** points, so none straddles the two tables or their end) */
  for (size_t k = 0; k < nint && pts[k] < 0x800; k++) {
    uint8_t *to = pts[k] < 0x80 ? d->ascii_cls + pts[k] : d->two_cls + (pts[k] - 0x80);
    memset(to, icls[k], pts[k + 1] - pts[k]);
  }
  d->nhi = 0;
  for (size_t k = 0; k < nint; k++)
    if (pts[k] >= 0x800 && (d->nhi == 0 || icls[k] != icls[k - 1])) {
      d->hi_lo[d->nhi] = pts[k];
      d->hi_cls[d->nhi++] = icls[k];
    }
  rc = IFS_OK;
done:
  ifs_free(pts);
  ifs_free(keys);
  ifs_free(icls);
  ifs_free(cur);
  ifs_free(key);
  return rc;
}

/* The class of a code point from U+0800 on. */
static uint32_t hi_class(const ifs_redfa *d, uint32_t c) {
  return d->hi_cls[interval_of(d->hi_lo, d->nhi, c)];
}

/* ------------------------------------------------------------------ */
/* States                                                              */

static uint64_t kernel_hash(const uint32_t *k, uint32_t n, uint8_t prev) {
  return ifs_hash_bytes(k, n * sizeof *k) ^ (prev * 0x9E3779B97F4A7C15ull);
}

static void slots_insert(ifs_redfa *d, uint32_t s) {
  const rd_state *x = &d->st[s];
  uint32_t j = (uint32_t)kernel_hash(d->kpool + x->koff, x->klen, x->prev) & (d->nslots - 1);
  while (d->slots[j] >= 0) j = (j + 1) & (d->nslots - 1);
  d->slots[j] = (int32_t)s;
}

/* Room for one more state (arrays, hash table, kernel pool). */
static int32_t reserve_state(ifs_redfa *d, uint32_t klen) {
  if ((size_t)(d->nst + 1) * d->width > MAX_CELLS || d->kn + klen > MAX_KERNEL) return T_FULL;
  if (d->nst == d->stcap) {
    uint32_t cap = d->stcap * 2;
    rd_state *st = ifs_realloc(d->st, cap * sizeof *st);
    if (!st) return T_NOMEM;
    d->st = st;
    int32_t *tr = ifs_realloc(d->trans, (size_t)cap * d->width * sizeof *tr);
    if (!tr) return T_NOMEM;
    d->trans = tr;
    d->stcap = cap;
  }
  if (d->kn + klen > d->kcap) {
    size_t cap = d->kcap * 2 > d->kn + klen ? d->kcap * 2 : d->kn + klen;
    uint32_t *kp = ifs_realloc(d->kpool, cap * sizeof *kp);
    if (!kp) return T_NOMEM;
    d->kpool = kp;
    d->kcap = cap;
  }
  if ((d->nst + 1) * 2 > d->nslots) {
    uint32_t ns = d->nslots * 2;
    int32_t *sl = ifs_malloc(ns * sizeof *sl);
    if (!sl) return T_NOMEM;
    ifs_free(d->slots);
    d->slots = sl;
    d->nslots = ns;
    memset(sl, -1, ns * sizeof *sl);
    for (uint32_t s = 0; s < d->nst; s++) slots_insert(d, s);
  }
  return 0;
}

/* The state with this (sorted) kernel and prev, made if new. */
static int32_t state_for(ifs_redfa *d, const uint32_t *k, uint32_t n, uint8_t prev) {
  uint64_t h = kernel_hash(k, n, prev);
  for (uint32_t j = (uint32_t)h & (d->nslots - 1); d->slots[j] >= 0; j = (j + 1) & (d->nslots - 1)) {
    const rd_state *x = &d->st[d->slots[j]];
    if (x->prev == prev && x->klen == n && memcmp(d->kpool + x->koff, k, n * sizeof *k) == 0)
      return d->slots[j];
  }
  int32_t rc = reserve_state(d, n);
  if (rc) return rc;
  uint32_t s = d->nst++;
  rd_state *x = &d->st[s];
  memset(x, 0, sizeof *x);
  x->koff = (uint32_t)d->kn;
  x->klen = n;
  x->prev = prev;
  x->idle = !d->anchored && n == 1 && k[0] == 0;
  memcpy(d->kpool + d->kn, k, n * sizeof *k);
  d->kn += n;
  slots_insert(d, s);
  return (int32_t)s;
}

/* Whether an assertion holds between the previous character (prev) and
** the next one (class c; the end is class width - 1). */
static int assert_holds(const ifs_redfa *d, int kind, uint8_t prev, uint32_t c) {
  int end = c == d->width - 1, fin = c == d->ncls;
  int nl = (d->cflags[c] & CF_NL) != 0;
  switch (kind) {
  case IFS_RD_BOS: return (prev & P_START) != 0;
  case IFS_RD_BOL: return (prev & (P_START | P_NL)) != 0;
  case IFS_RD_EOS: return end;
  case IFS_RD_EOS_NL: return end || fin;
  case IFS_RD_EOL: return end || nl;
  default: {
    if ((prev & P_START) && end) return 0;   /* sre: no \b or \B in "" */
    int a = (prev & P_WORD) != 0, b = (d->cflags[c] & CF_WORD) != 0;
    return kind == IFS_RD_WORDB ? a != b : a == b;
  }
  }
}

static void push(ifs_redfa *d, uint32_t *sp, uint32_t pc) {
  if (d->mark[pc] != d->gen) { d->mark[pc] = d->gen; d->stack[(*sp)++] = pc; }
}

/* Follows state s's empty moves, the next character being of class c
** (which the assertions only ask: the end? a final \n? a \n? a word
** character?): the character tests reached go to d->clos.  1 when a match
** ends here. */
static int closure(ifs_redfa *d, uint32_t s, uint32_t c) {
  if (++d->gen == 0) {   /* the tags wrapped: clear them */
    memset(d->mark, 0, d->nins * sizeof *d->mark);
    d->gen = 1;
  }
  const uint8_t prev = d->st[s].prev;
  uint32_t sp = 0;
  d->nclos = 0;
  for (uint32_t i = 0; i < d->st[s].klen; i++) push(d, &sp, d->kpool[d->st[s].koff + i]);
  d->work += sp;
  while (sp) {
    uint32_t pc = d->stack[--sp];
    const ifs_rd_inst *in = &d->ins[pc];
    d->work++;
    switch (in->op) {
    case IFS_RD_CHAR: d->clos[d->nclos++] = pc; break;
    case IFS_RD_SPLIT: push(d, &sp, in->y); push(d, &sp, in->x); break;
    case IFS_RD_JMP: push(d, &sp, in->x); break;
    case IFS_RD_ASSERT: if (assert_holds(d, in->kind, prev, c)) push(d, &sp, pc + 1); break;
    default: return 1;
    }
  }
  return 0;
}

/* The state after a character of class c from the closure in d->clos:
** a state, T_DEAD, or T_NOMEM / T_FULL. */
static int32_t consume(ifs_redfa *d, uint32_t c) {
  if (c == d->width - 1) return T_DEAD;   /* the end: nothing to consume */
  if (++d->ngen == 0) {
    memset(d->nmark, 0, d->nins * sizeof *d->nmark);
    d->ngen = 1;
  }
  const uint32_t gen = d->ngen;
  const uint8_t *mem = d->member + (size_t)c * d->nsets;
  uint32_t nn = 0;
  for (uint32_t i = 0; i < d->nclos; i++) {
    uint32_t pc = d->clos[i];
    if (mem[d->ins[pc].x] && d->nmark[pc + 1] != gen) {
      d->nmark[pc + 1] = gen;
      d->next[nn++] = pc + 1;
    }
  }
  d->work += d->nclos;
  if (!d->anchored) d->next[nn++] = 0;   /* a match may start here (pc + 1 > 0) */
  if (nn == 0) return T_DEAD;
  sort_u32(d->next, nn);
  uint8_t p = (uint8_t)(((d->cflags[c] & CF_NL) ? P_NL : 0) |
                        ((d->cflags[c] & CF_WORD) ? P_WORD : 0));
  return state_for(d, d->next, nn, p & d->need);
}

/* What the assertions can tell apart in a next character: 0 the end, 1 a
** final \n, 2 another \n, 3 a word character, 4 anything else. */
static uint8_t context_of(const ifs_redfa *d, uint32_t c) {
  if (c == d->width - 1) return 0;
  if (c == d->ncls) return 1;
  if (d->cflags[c] & CF_NL) return 2;
  return (d->cflags[c] & CF_WORD) ? 3 : 4;
}

/* A guess of how often a scan for these exits stops: exit bytes below 0x80,
** and all non-ASCII text counted as 32. */
static uint8_t exits_cost(const rd_exits *x) {
  int n = x->hi ? 32 : 0;
  for (int k = 0; k < 16; k++) n += __builtin_popcount(x->nib[k]);
  return (uint8_t)n;
}

/* Builds state s's row, then its exit table. */
static int32_t fill_row(ifs_redfa *d, uint32_t s) {
  /* one closure per context, then each class of that context consumed */
  for (int ctx = 0; ctx < 5; ctx++) {
    int have = 0, accept = 0;
    for (uint32_t c = 0; c < d->width; c++) {
      if (d->ctx[c] != ctx) continue;
      if (!have) {
        accept = closure(d, s, c);
        have = 1;
        if (d->work - d->work0 > WORK_PER_SEARCH) return T_SLOW;
      }
      int32_t t = accept ? T_ACCEPT : consume(d, c);
      if (t < T_DEAD) return t;
      d->trans[(size_t)s * d->width + c] = t;
    }
  }
  rd_state *x = &d->st[s];
  const int32_t *row = d->trans + (size_t)s * d->width;
  int loops = 0;
  memset(&x->exits, 0, sizeof x->exits);
  for (uint32_t b = 0; b < 0x80; b++) {
    if (row[d->ascii_cls[b]] == (int32_t)s) loops++;
    else x->exits.nib[b & 15] |= (uint8_t)(1u << (b >> 4));
  }
  for (uint32_t c = 0; c < d->ncls; c++)
    if ((d->cflags[c] & CF_NONASCII) && row[c] != (int32_t)s) x->exits.hi = 1;
  x->accel = loops >= ACCEL_MIN_LOOPS;
  x->cost = exits_cost(&x->exits);
  x->full = 1;
  return 0;
}

/* fill_row(), keeping the work the row took with the state. */
static int32_t build_row(ifs_redfa *d, uint32_t s) {
  uint64_t before = d->work;
  int32_t t = fill_row(d, s);
  if (t == 0) d->st[s].row_work = (uint32_t)(d->work - before);
  return t;
}

static int is_idle(const ifs_redfa *d, int32_t t) { return t >= 0 && d->st[t].idle; }


/* Idle skipping.  In an unanchored search, an idle state (kernel {start})
** leads to another idle state on most characters, which only changes what
** it knows of the previous character.  The bytes after which some idle
** state is not idle any more are the idle exits: from an idle state, the
** search skips to the next one and takes the idle state that the
** character before it gives (`\b[A-Z]{2,}\b` skips to capitals instead of
** stepping through every word boundary). */
static int32_t prepare_idle(ifs_redfa *d) {
  uint32_t start = 0;
  int32_t t0;
  memset(&d->idle_exits, 0, sizeof d->idle_exits);
  for (int k = 0; k < 3; k++) {
    uint8_t p = IDLE_PREVS[k] & d->need;
    int32_t t = state_for(d, &start, 1, p);
    if (t < 0) return t;
    d->idle_of[p] = t;
    if (!d->st[t].full && (t = build_row(d, (uint32_t)t)) != 0) return t;
  }
  if (!d->st[0].full && (t0 = build_row(d, 0)) != 0) return t0;
  int loops = 0;
  for (int k = 0; k < 4; k++) {   /* the three, and the first state (P_START) */
    const int32_t *row = d->trans + (size_t)(k < 3 ? d->idle_of[IDLE_PREVS[k] & d->need] : 0) * d->width;
    for (uint32_t b = 0; b < 0x80; b++)
      if (!is_idle(d, row[d->ascii_cls[b]])) d->idle_exits.nib[b & 15] |= (uint8_t)(1u << (b >> 4));
    for (uint32_t c = 0; c < d->ncls; c++)
      if ((d->cflags[c] & CF_NONASCII) && !is_idle(d, row[c])) d->idle_exits.hi = 1;
  }
  for (uint32_t b = 0; b < 0x80; b++)
    loops += !((d->idle_exits.nib[b & 15] >> (b >> 4)) & 1);
  /* 255: never better than a state's own scan */
  d->idle_cost = loops >= ACCEL_MIN_LOOPS ? exits_cost(&d->idle_exits) : 255;
  d->idle_ready = 1;
  return 0;
}

/* Forgets every state but the first (the bound was reached), and gives
** back most of their memory (a failed shrink keeps the larger block). */
static void reset_states(ifs_redfa *d) {
  d->nst = 1;
  d->idle_ready = 0;
  d->kn = d->st[0].klen;
  d->st[0].full = 0;
  if (d->stcap > SMALL_STATES) {
    rd_state *st = ifs_realloc(d->st, SMALL_STATES * sizeof *st);
    int32_t *tr = ifs_realloc(d->trans, (size_t)SMALL_STATES * d->width * sizeof *tr);
    if (st) d->st = st;
    if (tr) d->trans = tr;
    d->stcap = SMALL_STATES;   /* a failed shrink leaves the larger block */
  }
  memset(d->slots, -1, d->nslots * sizeof *d->slots);
  slots_insert(d, 0);
}

/* ------------------------------------------------------------------ */
/* Scanning and searching                                              */

/* The first exit byte in s[i..lim), or lim.  Starting on a character
** boundary, the first byte >= 0x80 met is a lead byte. */
static size_t scan_bytes(const rd_exits *x, const unsigned char *s, size_t i, size_t lim) {
  for (; i < lim; i++) {
    unsigned b = s[i];
    if (b >= 0x80 ? x->hi : (x->nib[b & 15] >> (b >> 4)) & 1) return i;
  }
  return lim;
}

#if RD_X86
/* The same sixteen bytes at a time: nib[b & 15] (zero for b >= 0x80) AND
** the bit of b's high nibble (none for b >= 0x80) is non-zero for exits. */
RD_SIMD_TARGET static size_t scan_ssse3(const rd_exits *x, const unsigned char *s, size_t i,
                                        size_t lim) {
  const __m128i nib = _mm_loadu_si128((const __m128i *)x->nib);
  const __m128i bits = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i low4 = _mm_set1_epi8(0x0F), zero = _mm_setzero_si128();
  const unsigned hi = x->hi ? 0xFFFFu : 0;
  for (; i + 16 <= lim; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
    __m128i a = _mm_shuffle_epi8(nib, v);
    __m128i b = _mm_shuffle_epi8(bits, _mm_and_si128(_mm_srli_epi16(v, 4), low4));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(a, b), zero)) ^ 0xFFFFu;
    m |= (unsigned)_mm_movemask_epi8(v) & hi;
    if (m) return i + (size_t)__builtin_ctz(m);
  }
  return scan_bytes(x, s, i, lim);
}
#endif

#if IFS_NEON
/* The same with NEON's tbl, which gives 0 for an index of 16 or more where
** pshufb looks at bit 7 only: b & 0x8F keeps every byte >= 0x80 out of
** the table.  Fifteen instructions a block, the loop's own included (GCC
** 12 -O2; the SSSE3 loop: twenty, three of them register copies). */
static size_t scan_neon(const rd_exits *x, const unsigned char *s, size_t i, size_t lim) {
  static const uint8_t bit_of[16] = {1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t nib = vld1q_u8(x->nib), bits = vld1q_u8(bit_of);
  const uint8x16_t keep = vdupq_n_u8(0x8F), hi = vdupq_n_u8(x->hi ? 0x80 : 0);
  for (; i + 16 <= lim; i += 16) {
    uint8x16_t v = vld1q_u8(s + i);
    uint8x16_t a = vqtbl1q_u8(nib, vandq_u8(v, keep));
    uint8x16_t b = vqtbl1q_u8(bits, vshrq_n_u8(v, 4));
    uint64_t m = ifs_v16_bits(vorrq_u8(vtstq_u8(a, b), vtstq_u8(v, hi)));
    if (m) return i + ifs_v16_first(m);
  }
  return scan_bytes(x, s, i, lim);
}
#endif

static size_t scan(const ifs_redfa *d, const rd_exits *x, const unsigned char *s, size_t i,
                   size_t lim) {
#if RD_X86
  if (d->simd) return scan_ssse3(x, s, i, lim);
#elif IFS_NEON
  if (d->simd) return scan_neon(x, s, i, lim);
#else
  (void)d;
#endif
  return scan_bytes(x, s, i, lim);
}

/* Enters state s in this search: builds its row if it has none, and charges
** the search its row's work the first time (T_SLOW past the bound). */
static int32_t enter(ifs_redfa *d, uint32_t s) {
  rd_state *x = &d->st[s];
  if (x->seen == d->search) return 0;
  x->seen = d->search;
  if (!x->full) {
    d->work0 = d->work - d->charge;   /* fill_row's bound: this search's work */
    int32_t t = build_row(d, s);
    if (t) return t;
  }
  d->charge += d->st[s].row_work;
  return d->charge > WORK_PER_SEARCH ? T_SLOW : 0;
}

/* The idle states, entered (and their exits found) the first time a search
** is idle with text left, as a DFA built for it would build them then. */
static int32_t enter_idle(ifs_redfa *d) {
  int32_t t;
  d->work0 = d->work - d->charge;
  if (!d->idle_ready && (t = prepare_idle(d)) != 0) return t;
  for (int k = 0; k < 3; k++)
    if ((t = enter(d, (uint32_t)d->idle_of[IDLE_PREVS[k] & d->need])) != 0) return t;
  return enter(d, 0);
}

/* The class of the character at s[*i] (not the final \n), moving past it;
** UINT32_MAX when it is not UTF-8. */
static uint32_t next_class(const ifs_redfa *d, const unsigned char *s, size_t n, size_t *i) {
  size_t k = *i;
  uint32_t b = s[k];
  if (b < 0x80) { *i = k + 1; return d->ascii_cls[b]; }
  if (b >= 0xC2 && b < 0xE0 && k + 1 < n) {
    *i = k + 2;
    return d->two_cls[(((b & 0x1F) << 6) | (s[k + 1] & 0x3F)) - 0x80];
  }
  if (b >= 0xE0 && b < 0xF0 && k + 2 < n) {
    *i = k + 3;
    return hi_class(d, ((b & 0x0F) << 12) | ((s[k + 1] & 0x3Fu) << 6) | (s[k + 2] & 0x3F));
  }
  if (b >= 0xF0 && b < 0xF5 && k + 3 < n) {
    *i = k + 4;
    return hi_class(d, ((b & 0x07) << 18) | ((s[k + 1] & 0x3Fu) << 12) |
                       ((s[k + 2] & 0x3Fu) << 6) | (s[k + 3] & 0x3F));
  }
  return UINT32_MAX;
}

/* The idle state after skipping to s[j] (j > i): the one the character
** before j leaves. */
static uint32_t idle_after(const ifs_redfa *d, const unsigned char *s, size_t n, size_t i,
                           size_t j) {
  size_t k = j - 1;
  while (k > i && (s[k] & 0xC0) == 0x80) k--;
  uint32_t c = next_class(d, s, n, &k);
  uint8_t f = d->cflags[c];
  return (uint32_t)d->idle_of[(((f & CF_NL) ? P_NL : 0) | ((f & CF_WORD) ? P_WORD : 0)) & d->need];
}

/* One search from the states built so far: 0 with *matched, or why not. */
static int32_t search_once(ifs_redfa *d, const unsigned char *s, size_t n, int *matched) {
  const uint32_t w = d->width;
  /* A \n that ends the text is its own class: scans stop before it. */
  const size_t lim = n && s[n - 1] == '\n' ? n - 1 : n;
  uint32_t cur = 0;
  size_t i = 0;
  int32_t t;
  int idle_entered = 0;
  if (++d->search == 0) {   /* the stamps wrapped: clear them */
    for (uint32_t k = 0; k < d->nst; k++) d->st[k].seen = 0;
    d->search = 1;
  }
  d->charge = 0;
  const uint32_t stamp = d->search;
  for (;;) {
    if (d->st[cur].seen != stamp && (t = enter(d, cur)) != 0) return t;
    if (i < lim && d->st[cur].idle && !idle_entered) {
      if ((t = enter_idle(d)) != 0) return t;
      idle_entered = 1;
    }
    if (i < lim && d->st[cur].idle && d->idle_cost < d->st[cur].cost) {
      size_t j = scan(d, &d->idle_exits, s, i, lim);
      if (j > i && (t = enter(d, cur = idle_after(d, s, n, i, j))) != 0) return t;
      i = j;
    } else if (i < lim && d->st[cur].accel) {
      i = scan(d, &d->st[cur].exits, s, i, lim);
    }
    if (i >= n) break;
    uint32_t c;
    if (s[i] == '\n' && i + 1 == n) { c = d->ncls; i++; }
    else if ((c = next_class(d, s, n, &i)) == UINT32_MAX) return T_NOT_UTF8;
    t = d->trans[(size_t)cur * w + c];
    if (t < 0) { *matched = t == T_ACCEPT; return 0; }   /* or T_DEAD */
    cur = (uint32_t)t;
  }
  *matched = d->trans[(size_t)cur * w + w - 1] == T_ACCEPT;
  return 0;
}

ifs_status ifs_redfa_search(ifs_redfa *d, const char *str, size_t n, int *matched) {
  const unsigned char *s = (const unsigned char *)str;
  int32_t why = search_once(d, s, n, matched);
  if (why == T_FULL) {   /* the table was full: again on an empty one, once */
    reset_states(d);
    why = search_once(d, s, n, matched);
    if (why == T_FULL) reset_states(d);   /* this text alone needs more states */
  }
  if (why == T_NOMEM) return IFS_NOMEM;
  return why == 0 ? IFS_OK : IFS_LIMIT;   /* too many states, too much work, not UTF-8 */
}

/* ------------------------------------------------------------------ */
/* Making and freeing                                                  */

static int program_ok(const ifs_rd_inst *ins, size_t nins, size_t nsets) {
  if (nins == 0 || nins > IFS_REDFA_MAX_INSTS || nsets > IFS_REDFA_MAX_SETS ||
      ins[nins - 1].op != IFS_RD_MATCH)
    return 0;
  for (size_t i = 0; i < nins; i++) {
    const ifs_rd_inst *in = &ins[i];
    if (in->op > IFS_RD_MATCH) return 0;
    if (in->op == IFS_RD_CHAR && in->x >= nsets) return 0;
    if ((in->op == IFS_RD_SPLIT || in->op == IFS_RD_JMP) && in->x >= nins) return 0;
    if (in->op == IFS_RD_SPLIT && in->y >= nins) return 0;
    if (in->op == IFS_RD_ASSERT && in->kind > IFS_RD_NWORDB) return 0;
  }
  return 1;
}

static uint32_t needed_prev(const ifs_rd_inst *ins, size_t nins) {
  uint32_t need = 0;
  for (size_t i = 0; i < nins; i++) {
    if (ins[i].op != IFS_RD_ASSERT) continue;
    switch (ins[i].kind) {
    case IFS_RD_BOS: need |= P_START; break;
    case IFS_RD_BOL: need |= P_START | P_NL; break;
    case IFS_RD_WORDB: case IFS_RD_NWORDB: need |= P_START | P_WORD; break;
    default: break;
    }
  }
  return need;
}

ifs_redfa *ifs_redfa_new(const ifs_rd_inst *ins, size_t nins, const ifs_rd_set *sets,
                         size_t nsets, const ifs_rd_set *word, int anchored,
                         ifs_status *err) {
  *err = IFS_LIMIT;
  if (!program_ok(ins, nins, nsets)) return NULL;
  *err = IFS_NOMEM;
  ifs_redfa *d = ifs_malloc(sizeof *d);
  if (!d) return NULL;
  memset(d, 0, sizeof *d);
  d->nins = (uint32_t)nins;
  d->anchored = anchored != 0;
  d->need = needed_prev(ins, nins);
  d->ins = ifs_malloc(nins * sizeof *ins);
  d->mark = ifs_malloc(nins * sizeof *d->mark);
  d->nmark = ifs_malloc(nins * sizeof *d->nmark);
  d->stack = ifs_malloc(nins * sizeof *d->stack);
  d->next = ifs_malloc((nins + 1) * sizeof *d->next);
  d->clos = ifs_malloc(nins * sizeof *d->clos);
  if (!d->ins || !d->mark || !d->nmark || !d->stack || !d->next || !d->clos) goto fail;
  memcpy(d->ins, ins, nins * sizeof *ins);
  memset(d->mark, 0, nins * sizeof *d->mark);
  memset(d->nmark, 0, nins * sizeof *d->nmark);
  ifs_status rc = build_alphabet(d, sets, nsets, word ? word : &ascii_word_set);
  if (rc) { *err = rc; goto fail; }
  d->ctx = ifs_malloc(d->width);
  if (!d->ctx) goto fail;
  for (uint32_t c = 0; c < d->width; c++) d->ctx[c] = context_of(d, c);
  d->stcap = 16;
  d->st = ifs_malloc(d->stcap * sizeof *d->st);
  d->trans = ifs_malloc((size_t)d->stcap * d->width * sizeof *d->trans);
  d->kcap = 256;
  d->kpool = ifs_malloc(d->kcap * sizeof *d->kpool);
  d->nslots = 64;
  d->slots = ifs_malloc(d->nslots * sizeof *d->slots);
  if (!d->st || !d->trans || !d->kpool || !d->slots) goto fail;
  memset(d->slots, -1, d->nslots * sizeof *d->slots);
  uint32_t start = 0;
  if (state_for(d, &start, 1, (uint8_t)(P_START & d->need)) != 0) goto fail;
#if RD_X86
  d->simd = __builtin_cpu_supports("ssse3");
#elif IFS_NEON
  d->simd = 1;
#endif
  *err = IFS_OK;
  return d;
fail:
  ifs_redfa_free(d);
  return NULL;
}

#ifdef IFS_TESTING
void ifs_test_redfa_simd(ifs_redfa *d, int on) {
#if RD_X86
  d->simd = on && __builtin_cpu_supports("ssse3");
#elif IFS_NEON
  d->simd = on;
#else
  (void)on;
  d->simd = 0;
#endif
}
#endif

size_t ifs_redfa_bytes(const ifs_redfa *d) {
  if (!d) return 0;
  size_t per_inst = sizeof *d->ins + sizeof *d->mark + sizeof *d->nmark + sizeof *d->stack +
                    sizeof *d->next + sizeof *d->clos;
  size_t per_state = sizeof *d->st + (size_t)d->width * sizeof *d->trans;
  return sizeof *d + d->nins * per_inst + sizeof *d->next +
         d->nhi * (sizeof *d->hi_lo + sizeof *d->hi_cls) +
         (size_t)d->width * ((d->nsets ? d->nsets : 1) + sizeof *d->cflags + sizeof *d->ctx) +
         d->stcap * per_state + d->kcap * sizeof *d->kpool + d->nslots * sizeof *d->slots;
}

void ifs_redfa_free(ifs_redfa *d) {
  if (!d) return;
  ifs_free(d->ins);
  ifs_free(d->mark);
  ifs_free(d->nmark);
  ifs_free(d->stack);
  ifs_free(d->next);
  ifs_free(d->clos);
  ifs_free(d->hi_lo);
  ifs_free(d->hi_cls);
  ifs_free(d->member);
  ifs_free(d->cflags);
  ifs_free(d->ctx);
  ifs_free(d->st);
  ifs_free(d->trans);
  ifs_free(d->kpool);
  ifs_free(d->slots);
  ifs_free(d);
}
