/*
** ifs_eval.c — the evaluator (see ifs_eval.h).
**
** Order of the checks, labels and reasons follow docs/spec.md section 1 to the
** byte.  Evaluation has two halves.  A constraints text is compiled once
** into a plan (its checks in order, with their limits, needles already
** lowered and prepared for searching, patterns, fixed labels) and kept in
** a small per-evaluator cache keyed by the text, because eval tables
** repeat a few constraint texts over many rows; a list many texts hold (a
** refusal list beside each case's own words) is kept once, in the list
** cache, and their plans share it (plan_list); a text whose only checks
** are such lists, seen for the first time, takes the plan kept for its
** lists (BY_LISTS_SLOTS) instead of being compiled.  The plan is then run on
** each response, lazily: words and chars are counted only when a limit
** asks, the response is lowercased only when a needle cannot be searched
** for directly.
**
** Entry points: ifs_evaluate() and ifs_evaluate_scores(); then, for a
** result, ifs_result_reason(), ifs_result_checks(), ifs_result_explain().
*/
#include "ifs_eval.h"
#include "ifs_json.h"
#include "ifs_needle.h"
#include "ifs_needle_set.h"
#include "ifs_set_cache.h"
#include "ifs_list_cache.h"
#include "ifs_pyval.h"
#include "ifs_text.h"
#include <string.h>

/* One check of a plan; offsets are into the plan's text. */
typedef struct plan_check {
  ifs_kind kind;
  int invalid;            /* a limit whose value int() rejects */
  size_t arg_at, arg_len; /* limit in decimal, needle's str(), or pattern */
  size_t low_at, low_len; /* needles: needle.lower() (the argument when equal) */
} plan_check;

/* The plan the row after a kept plan's row used, the last time that plan
** was used (kept too), with what asking for its lines takes, so that none
** waits on its cold header (a kept plan's key and set are at most
** PLAN_KEEP_BYTES). */
typedef struct plan_next {
  struct plan *pl;        /* NULL: none yet */
  const ifs_needle_set *set;
  const char *needles;    /* its set's needles' text (plan.needles_at) */
  uint32_t head_bytes, set_bytes, needles_bytes;
  uint16_t again;         /* it was the same plan the time before too */
  uint16_t by_lists;      /* it is a plan kept by its lists (found by them) */
  uint64_t drops;         /* the cache's drops when it was written (next_of) */
} plan_next;

/* A list (must_include or must_exclude) searched by a set of its own:
** one the list cache keeps for it (a list copied from there), the set cache
** (a plan used once), or the plan.  first: the list's first needle in the
** plan's. */
typedef struct list_set {
  const ifs_needle_set *set;
  const char *text;       /* the text its searches are given */
  size_t first;
} list_set;

/* A list of a kept plan that the list cache holds (ifs_list_cache.h): the
** plan keeps neither its JSON, which its key leaves out, nor a set of its
** needles: it searches with the cache's.  A table whose every case has its
** own constraints with one refusal list of fifty phrases then keeps that
** list's JSON and set once, not in each case's plan; every look-up of the
** plan asks whether the cache still holds the list (plan_is_for). */
typedef struct plan_list {
  size_t at, len;         /* its JSON in the constraints text */
  size_t slot;            /* the list cache's entry, */
  uint64_t kept;          /* and when that entry was given the list */
} plan_list;

/* A plan kept by its lists records the last this many flat texts taken for
** it (texts_seen()): a row of such a text records its sighting in a line it
** reads anyway, not in the evaluator's record, a cold line the row waited
** for. */
#define TEXTS_SEEN 4

/* A compiled constraints text.  A cached plan is one allocation holding
** this header, the lists it shares (plan_shared), its lists' sets and its
** key (plan_key), which a row reads first, then its checks, needles and
** text (its sets apart); the plan of a text not kept is a view of the
** evaluator's work buffers, valid for one row.  The header is small: a row
** of a table whose every case has its own constraints reads it cold. */
typedef struct plan {
  ifs_verdict verdict;    /* IFS_SCORED: run the checks */
  unsigned char nlists, nshared;   /* of lists and shared, below */
  unsigned char meets_context;     /* some needle meets a context lowercase */
  unsigned char knows_ends_in_i;   /* ends_in_i holds them (kept, at most 64 needles) */
  unsigned char by_lists;          /* kept by its lists, not by a text (BY_LISTS_SLOTS) */
  size_t n, nn, kn, tn;   /* checks, needle checks, constraints and text bytes */
  size_t first_needle;    /* the needle checks, in one run: checks[first_needle ..], */
  size_t n_include;       /* must_include's the first n_include of them */
  plan_check *checks;
  ifs_needle *needles;    /* each needle's search, when there is no set */
  const char *text;
  ifs_needle_set *set;    /* all needles at once, when there are many; owned */
  list_set *lists;        /* or a set a list (the work plan's in the evaluator), */
  ifs_needle_set *own_set;    /* of which this one is the plan's own */
  uint32_t needles_at, needles_bytes;   /* kept: owned_set()'s needles in text */
  uint64_t ends_in_i;     /* bit j: needle j's lowercase ends in "i" */
  plan_next next;         /* kept plans: the next row's, last time */
  ifs_seen_slot texts[TEXTS_SEEN];   /* kept by lists: texts it was taken for */
} plan;

/* A kept plan's lists that the list cache holds (nshared), in the order of
** their JSON, which its lists' sets (nlists) follow; and its key, after
** them: the constraints bytes as given, less that JSON. */
static const plan_list *plan_shared(const plan *pl) {
  return (const plan_list *)(const void *)(pl + 1);
}

static const char *plan_key(const plan *pl) {
  const char *head = (const char *)(pl + 1);
  return head + pl->nshared * sizeof(plan_list) + pl->nlists * sizeof(list_set);
}

static size_t plan_key_bytes(const plan *pl) {
  size_t n = pl->kn;
  for (size_t i = 0; i < pl->nshared; i++) n -= plan_shared(pl)[i].len;
  return n;
}

/* The bytes of a kept plan a row reads first after its header. */
static size_t plan_head_bytes(const plan *pl) {
  return pl->nshared * sizeof(plan_list) + pl->nlists * sizeof(list_set) + plan_key_bytes(pl);
}

/* 1 when the plan's needles are searched for by sets: one of them all, or
** one for each long list. */
static int has_sets(const plan *pl) {
  return pl->set || pl->nlists;
}

/* From this many needles on, a plan searches for them all in one pass
** (ifs_needle_set.h) rather than one pass each: a kept plan from 4, a plan
** used once (a text seen for the first time) from 8, as building a set
** for a few needles costs more than it saves in one row. */
#define SET_MIN_NEEDLES 4
#define SET_MIN_NEEDLES_ONCE 8

/* A list just compiled, to offer to the list cache (ifs_list_cache.h) once
** the plan's lists are all compiled (a list taken from the cache is copied
** until then): its checks and text in the work buffers. */
typedef struct list_offer {
  const ifs_jval *json;
  size_t checks, checks_end, text, text_end;
} list_offer;

/* Where a compile copied a list from the list cache into the work plan
** (k 0: none): the next compile that copies the same list to the same
** checks, with its text at the same place, finds its checks there still. */
typedef struct list_copy {
  size_t slot;
  uint64_t kept;
  size_t k, check_at, text_at;
} list_copy;

static int same_copy(const list_copy *a, const list_copy *b) {
  return a->k && a->k == b->k && a->slot == b->slot && a->kept == b->kept &&
         a->check_at == b->check_at && a->text_at == b->text_at;
}

/* The plan cache: eval tables repeat each case's constraints once per run
** or model, so it holds thousands; when full (count or bytes) an eighth of
** it, picked at random, goes.  A table read again in the order it was
** written cycles through its cases' texts, and past the cache's size
** emptying it (or dropping the least recently used) would keep none of
** those the next row needs; a random drop keeps most.  Dropping an eighth
** at a time leaves the links to the next row's plan (plan_next), which any
** drop makes stale, good between drops.  A text
** is kept only when it comes back: the first time, its plan is used from
** the work buffers and dropped, so a table whose every row has its own
** constraints pays for no copies.  seen (ifs_seen) remembers recent first
** sightings, SEEN_WAYS to a set of SEEN_SETS; a flat text of a plan kept by
** its lists is recorded in that plan instead (TEXTS_SEEN). */
#define PLAN_MAX 4096                       /* plans; the table has twice as many slots */
#define PLAN_BYTES ((size_t)32 << 20)       /* total size of the plans */
#define PLAN_KEEP_BYTES (PLAN_BYTES / 2)    /* a bigger plan is not kept */

/* A table slot holds the hash too, so that probing touches no plan; and a
** tag of the hash for each slot (0: empty), in an array of its own of 16 KB
** that stays in cache, is read first, so that a text seen once (every row
** of a first regrade) misses without reading the table's cold lines. */
typedef struct plan_slot {
  uint64_t hash;
  plan *pl;
  const ifs_needle_set *set;   /* the plan's, asked for before its header is read */
} plan_slot;
#define PLAN_TABLE (2 * PLAN_MAX)
#define SEEN_SETS 4096
#define SEEN_WAYS 4

/* A flat text (ifs_json_scan_flat) whose only checks are lists the list
** cache holds, its other keys' values plain scalars that no check reads
** (a case's id, a run's name): eval tables give each row such a text, its
** case's words and a refusal list, with an id that makes it a text of its
** own.  Its plan follows from its lists alone, so that a text seen for
** the first time is not compiled when another text of the same lists
** was: it finds that plan by the lists' kept (unique to each list the
** cache ever held), which the plan holds as the lists it shares.
** BY_LISTS_WAYS plans to a set of slots, the set by the lists (with 4,096
** slots of one plan a set, or four, the lists of 2,000 cases overfilled
** sets, whose plans then took turns, compiled again in a row out of eight,
** or of thirty); a tag of each slot's lists, and its plan, in arrays that
** stay in cache, so that a look-up asks for the plan's cold lines without
** waiting on any (the plan's own lists tell it is theirs, read once the
** response is).  Kept once the lists come back together (the plans' seen
** record), in place of the plan of the same tag, an empty slot or one
** picked at random; within BY_LISTS_BYTES, past which plans picked at
** random go until an eighth is free (as in the plan cache: a table of more
** cases than fit keeps most of them, where dropping them all would keep
** none the next rows need).  A plan of more than an eighth of it is not
** kept. */
#define BY_LISTS_SLOTS 8192
#define BY_LISTS_WAYS 8
#define BY_LISTS_BYTES ((size_t)16 << 20)

struct ifs_evaluator {
  ifs_heap *heap;         /* kept plans, lists and sets: what a row reads together */
  ifs_regex_cache *regex;
  uint64_t evaluation;    /* counts evaluations: results' labels follow theirs */
  plan_slot *table;       /* open addressing by hash, */
  uint16_t *tags;         /* each slot's slot_tag() (in the table's block) */
  size_t count, bytes;
  uint64_t drops;         /* times plans were dropped so far */
  uint64_t rng;           /* picks them (xorshift) */
  plan *last;             /* the kept plan the last row used (NULL: none) */
  plan *prev;             /* the last row's plan when it is kept (NULL: not) */
  ifs_seen seen;          /* texts seen once */
  plan_check *wchecks;    /* compiling: the checks, */
  size_t wn, wcap;
  ifs_needle *wneedles;   /* the needles' searches, */
  size_t wneedles_cap;
  ifs_buf wtext;          /* their text */
  plan work;              /* and the view of both */
  ifs_arena arena;        /* parsed constraints while compiling */
  ifs_buf resp_in;        /* response in internal form, when it differs */
  ifs_buf cons_in;        /* constraints in internal form, when they differ */
  ifs_buf resp_lower;     /* resp.lower(), when a needle asks */
  ifs_buf dotted_i;       /* where resp's U+0130 are (size_t each), likewise */
  ifs_buf scratch;        /* compiling: a needle's str() being lowered */
  ifs_span *spans;        /* compiling: the needles a set is built from */
  signed char *found;     /* a set's answers for the row */
  size_t needles_cap;     /* of spans and found */
  ifs_set_cache *sets;    /* the lists' sets of plans used once, */
  list_set wlists[2];     /* the work plan's */
  ifs_list_cache *compiled;   /* long lists compiled, by their JSON; */
  list_offer offers[2];   /* compiling: the lists offered to it after, */
  size_t noffers;
  const char *known_at[2];   /* compiling: where the JSON reader was told of */
  ifs_list known[2];      /* a kept list of each kind, and which; */
  ifs_list copied[2];     /* and the include and exclude lists copied (k 0: none), */
  plan_list copied_json[2];   /* their JSON in the text compiled, */
  size_t copied_text[2];  /* where their needles' text is in the work text, */
  size_t copied_end;      /* the end of those texts (they come first), */
  int copied_context;     /* whether one holds byte CC or CF (ifs_list.context), */
  list_copy copies[2];    /* where this compile copied them, and the last one */
  list_copy copies_before[2];
  const char *wcons;      /* which is this */
  plan **by_lists;        /* plans of flat texts by their lists (BY_LISTS_SLOTS), */
  uint16_t *lists_tags;   /* each slot's lists' tag (0: empty; in by_lists' block), */
  size_t by_lists_bytes;  /* their bytes, */
  size_t lists_bound;     /* within BY_LISTS_BYTES (a test may set less) */
  const char *flat_missed;   /* this row: a list read_flat() did not find */
  size_t flat_misses;     /* texts seen for the first time not flat, in a row */
#ifdef IFS_TESTING
  size_t lists_copied;
  size_t lists_in_place;
  size_t compiles;
  size_t table_looks;
  size_t text_hashes;
  int same_hash;
  int share_from_set;
  size_t share_from;
#endif
};

static void plans_flush(ifs_evaluator *ev);
static void lists_plans_flush(ifs_evaluator *ev);

/* What one row's evaluation knows about the response. */
typedef struct row {
  const char *resp;
  size_t rn;
  int have_counts, have_lower;
  int plain_lower;        /* no U+0130 / U+03A3: needles searched directly */
  int ascii;              /* resp is pure ASCII */
  int strict_utf8;        /* resp arrived as strict UTF-8 (no surrogates) */
  size_t words, chars;
  int dotted_i;           /* ev->dotted_i holds this response's U+0130 (1),
                             not yet looked for (0), too many to hold (-1) */
} row;

/* Each kind's key in the constraints object, with its length. */
#define KIND_NAME(s) { s, sizeof s - 1 }
static const struct { const char *s; size_t len; } kind_names[] = {
  KIND_NAME("max_words"), KIND_NAME("min_words"), KIND_NAME("max_chars"),
  KIND_NAME("must_be_json"), KIND_NAME("must_include"), KIND_NAME("must_exclude"),
  KIND_NAME("regex")
};

const char *ifs_kind_name(ifs_kind k) { return kind_names[k].s; }

ifs_evaluator *ifs_evaluator_new(void) {
  ifs_evaluator *ev = ifs_malloc(sizeof *ev);
  if (!ev) return NULL;
  memset(ev, 0, sizeof *ev);
  ifs_arena_init(&ev->arena);
  ifs_seen_init(&ev->seen, SEEN_SETS, SEEN_WAYS);
  ev->rng = 0x9E3779B97F4A7C15u;
  ev->lists_bound = BY_LISTS_BYTES;
  ev->heap = ifs_heap_new();
  ev->regex = ev->heap ? ifs_regex_cache_new() : NULL;
  if (!ev->regex) {
    ifs_heap_free(ev->heap);
    ifs_free(ev);
    return NULL;
  }
  return ev;
}

void ifs_evaluator_free(ifs_evaluator *ev) {
  if (!ev) return;
  ifs_regex_cache_free(ev->regex);
  ifs_arena_free(&ev->arena);
  ifs_buf_free(&ev->resp_in);
  ifs_buf_free(&ev->cons_in);
  ifs_buf_free(&ev->resp_lower);
  ifs_buf_free(&ev->dotted_i);
  ifs_buf_free(&ev->scratch);
  plans_flush(ev);
  ifs_free(ev->table);
  lists_plans_flush(ev);
  ifs_free(ev->by_lists);
  ifs_seen_free(&ev->seen);
  ifs_needle_set_free(ev->work.set);
  ifs_free(ev->wneedles);
  ifs_free(ev->spans);
  ifs_free(ev->found);
  ifs_set_cache_free(ev->sets);
  ifs_list_cache_free(ev->compiled);
  ifs_free(ev->wchecks);
  ifs_buf_free(&ev->wtext);
  ifs_heap_free(ev->heap);   /* after every cache that holds its blocks */
  ifs_free(ev);
}

ifs_regex_cache *ifs_evaluator_regex(ifs_evaluator *ev) { return ev->regex; }

void ifs_result_init(ifs_result *r) {
  memset(r, 0, sizeof *r);
  ifs_buf_init(&r->labels);
  ifs_buf_init(&r->reason);
}

void ifs_result_free(ifs_result *r) {
  ifs_free(r->checks);
  ifs_buf_free(&r->labels);
  ifs_buf_free(&r->reason);
  ifs_result_init(r);
}

/* Internal form of raw bytes: the bytes themselves when valid UTF-8,
** else a converted copy in scratch. */
static ifs_status internal_form(const char *s, size_t n, ifs_buf *scratch,
                                const char **out, size_t *out_n) {
  if (ifs_utf8_is_valid(s, n)) { *out = s; *out_n = n; return IFS_OK; }
  ifs_buf_clear(scratch);
  if (ifs_to_internal(s, n, scratch)) return IFS_NOMEM;
  *out = scratch->p;
  *out_n = scratch->len;
  return IFS_OK;
}

/* ---- plans: compiling a constraints text -------------------------------- */

/* Room for k more checks in the work plan; the first of them, unset. */
static plan_check *plan_reserve(ifs_evaluator *ev, size_t k) {
  if (k > ev->wcap - ev->wn) {
    if (k > SIZE_MAX / 4 / sizeof(plan_check)) return NULL;
    size_t cap = ev->wcap ? ev->wcap : 8;
    while (cap - ev->wn < k) cap *= 2;
    plan_check *c = ifs_realloc(ev->wchecks, cap * sizeof *c);
    if (!c) return NULL;
    ev->wchecks = c;
    ev->wcap = cap;
  }
  plan_check *c = &ev->wchecks[ev->wn];
  ev->wn += k;
  return c;
}

static plan_check *plan_add(ifs_evaluator *ev, ifs_kind kind) {
  plan_check *c = plan_reserve(ev, 1);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->kind = kind;
  return c;
}

/* Appends str() or int() of v to the work text as c's argument. */
static ifs_status plan_arg(ifs_evaluator *ev, plan_check *c, const ifs_jval *v, int as_int) {
  c->arg_at = ev->wtext.len;
  ifs_status rc = as_int ? ifs_py_int(v, &ev->wtext) : ifs_py_str(v, &ev->wtext);
  c->arg_len = ev->wtext.len - c->arg_at;
  return rc;
}

/* The kind whose key is key[0..len), or -1 for none: the one kind it
** could be, by its length and a byte that tells the names of a length
** apart, then compared whole (at a length known here, without a call). */
static int kind_of_key(const char *key, size_t len) {
  int k;
  switch (len) {
  case 5:
    return memcmp(key, kind_names[IFS_REGEX].s, 5) == 0 ? IFS_REGEX : -1;
  case 9:
    k = key[1] == 'i' ? IFS_MIN_WORDS : key[4] == 'w' ? IFS_MAX_WORDS : IFS_MAX_CHARS;
    return memcmp(key, kind_names[k].s, 9) == 0 ? k : -1;
  case 12:
    k = key[5] == 'b' ? IFS_MUST_BE_JSON : key[5] == 'i' ? IFS_MUST_INCLUDE : IFS_MUST_EXCLUDE;
    return memcmp(key, kind_names[k].s, 12) == 0 ? k : -1;
  default:
    return -1;
  }
}

/* The value of each known key of a constraints object (NULL: absent), in
** one pass over its keys. */
static void known_keys(const ifs_jval *obj, const ifs_jval *vals[IFS_REGEX + 1]) {
  for (int k = 0; k <= IFS_REGEX; k++) vals[k] = NULL;
  for (size_t i = 0; i < obj->count; i++) {
    int k = kind_of_key(obj->keys[i]->str, obj->keys[i]->len);
    if (k >= 0) vals[k] = obj->items[i];
  }
}

/* max_words / min_words / max_chars, when the key is present. */
static ifs_status compile_limit(ifs_evaluator *ev, const ifs_jval *v, ifs_kind kind) {
  if (!v) return IFS_OK;
  plan_check *c = plan_add(ev, kind);
  if (!c) return IFS_NOMEM;
  ifs_status rc = plan_arg(ev, c, v, 1);
  if (rc == IFS_NOMEM) return rc;
  if (rc == IFS_INVALID) {
    c->invalid = 1;
    ev->wtext.len = c->arg_at;
    c->arg_len = 0;
  }
  return IFS_OK;
}

static ifs_status compile_json(ifs_evaluator *ev, const ifs_jval *v) {
  if (!v || !ifs_py_truthy(v)) return IFS_OK;
  return plan_add(ev, IFS_MUST_BE_JSON) ? IFS_OK : IFS_NOMEM;
}

/* 1 when s is ASCII without capitals: its own lowercase. */
static int lower_already(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80 || (unsigned)(s[i] - 'A') < 26u) return 0;
  return 1;
}

/* One needle: its str() for the label and its lowercase for the search
** (kept only when it differs). */
static ifs_status compile_needle(ifs_evaluator *ev, const ifs_jval *item, ifs_kind kind) {
  plan_check *c = plan_add(ev, kind);
  if (!c || plan_arg(ev, c, item, 0)) return IFS_NOMEM;
  ifs_buf *t = &ev->wtext, *arg = &ev->scratch;
  c->low_at = c->arg_at;
  c->low_len = c->arg_len;
  if (lower_already(t->p + c->arg_at, c->arg_len)) return IFS_OK;
  /* lowering appends to the text, which may move: lower a copy */
  ifs_buf_clear(arg);
  if (ifs_buf_append(arg, t->p + c->arg_at, c->arg_len)) return IFS_NOMEM;
  size_t at = t->len;
  if (ifs_lower(arg->p ? arg->p : "", arg->len, t)) return IFS_NOMEM;
  if (t->len - at == c->arg_len && memcmp(t->p + at, arg->p, c->arg_len) == 0) {
    t->len = at;   /* the same bytes */
    return IFS_OK;
  }
  c->low_at = at;
  c->low_len = t->len - at;
  return IFS_OK;
}

/* A list the JSON reader took whole from the list cache: its needles'
** checks, copied, or left where the last compile copied them when that was
** the same list to the same checks, its text at the same place (texts seen
** once, row after row, with one refusal list).  The cache holds it still
** (nothing is offered to it until the plan's lists are all compiled): it
** is the list known_list() found there for this value (of a key given
** twice, for its last value: place_copied_texts checked). */
static ifs_status copy_list(ifs_evaluator *ev, const ifs_jval *v, ifs_kind kind) {
  int l_ex = kind == IFS_MUST_EXCLUDE;
  ifs_list l = ev->known[l_ex];
  ev->copied[l_ex] = l;
  ev->copied_json[l_ex] =
      (plan_list){(size_t)(v->str - ev->wcons), v->len, l.slot, l.kept};
#ifdef IFS_TESTING
  ev->lists_copied++;
#endif
  size_t base = ev->copied_text[l_ex], at = ev->wn;
  const list_copy *was = &ev->copies_before[l_ex];
  const list_copy now = {l.slot, l.kept, l.k, at, base};
  plan_check *c = plan_reserve(ev, l.k);   /* in one step: a refusal list is long */
  if (!c) return IFS_NOMEM;
  ev->copies[l_ex] = now;
  if (same_copy(was, &now)) {   /* the last compile's, in place */
#ifdef IFS_TESTING
    ev->lists_in_place++;
#endif
    return IFS_OK;
  }
  for (size_t i = 0; i < l.k; i++) {
    const ifs_list_needle *nd = &l.needles[i];
    c[i] = (plan_check){.kind = kind, .arg_at = base + nd->arg_at, .arg_len = nd->arg_len,
                        .low_at = base + nd->low_at, .low_len = nd->low_len};
  }
  return IFS_OK;
}

/* The needles' text of each list the JSON reader took from the list cache,
** first in the work text (a refusal list's the first of all): at the same
** place row after row, its checks are the same too (copy_list). */
static ifs_status place_copied_texts(ifs_evaluator *ev, const ifs_jval *const *vals) {
  for (int l_ex = 1; l_ex >= 0; l_ex--) {
    const ifs_jval *v = vals[l_ex ? IFS_MUST_EXCLUDE : IFS_MUST_INCLUDE];
    if (!v || v->type != IFS_JARR || !v->known) continue;
    if (ev->known_at[l_ex] != v->str) return IFS_NOMEM;   /* (cannot be) */
    ev->copied_text[l_ex] = ev->wtext.len;
    if (ifs_buf_append(&ev->wtext, ev->known[l_ex].text, ev->known[l_ex].tn)) return IFS_NOMEM;
    ev->copied_context |= ev->known[l_ex].context;
  }
  ev->copied_end = ev->wtext.len;
  return IFS_OK;
}

/* _as_list(): null -> none, array -> each element, anything else -> one.
** A long list read from its JSON is offered to the list cache after. */
static ifs_status compile_needles(ifs_evaluator *ev, const ifs_jval *v, ifs_kind kind) {
  if (!v || v->type == IFS_JNULL) return IFS_OK;
  if (v->type != IFS_JARR) return compile_needle(ev, v, kind);
  if (v->known) return copy_list(ev, v, kind);
  size_t checks = ev->wn, text = ev->wtext.len;
  for (size_t i = 0; i < v->count; i++) {
    ifs_status rc = compile_needle(ev, v->items[i], kind);
    if (rc) return rc;
  }
  if (v->count >= SET_MIN_NEEDLES_ONCE && v->str) {
    list_offer *o = &ev->offers[ev->noffers++];
    o->json = v;
    o->checks = checks;
    o->checks_end = ev->wn;
    o->text = text;
    o->text_end = ev->wtext.len;
  }
  return IFS_OK;
}

/* Offers list o: its needles as offsets into its own text. */
static ifs_status offer_list(ifs_evaluator *ev, const list_offer *o) {
  size_t k = o->checks_end - o->checks;
  ifs_list_needle *nd = ifs_arena_alloc(&ev->arena, k * sizeof *nd);
  if (!nd) return IFS_NOMEM;
  for (size_t i = 0; i < k; i++) {
    const plan_check *c = &ev->wchecks[o->checks + i];
    nd[i].arg_at = (uint32_t)(c->arg_at - o->text);
    nd[i].arg_len = (uint32_t)c->arg_len;
    nd[i].low_at = (uint32_t)(c->low_at - o->text);
    nd[i].low_len = (uint32_t)c->low_len;
  }
  ifs_list l = {ev->wtext.p + o->text, o->text_end - o->text, nd, k, 0, 0, 0, 0, 0};
  return ifs_list_cache_offer(ev->compiled, o->json->str, o->json->len, &l, ev->copied, 2);
}

/* The lists compiled from their JSON this time, offered to the cache. */
static ifs_status offer_lists(ifs_evaluator *ev) {
  ifs_status rc = IFS_OK;
  for (size_t i = 0; i < ev->noffers && !rc; i++) rc = offer_list(ev, &ev->offers[i]);
  ev->noffers = 0;
  return rc;
}

/* The JSON reader's question (ifs_json_known_fn): a list of needles the
** list cache holds at s. */
static size_t known_list(void *arg, const char *key, size_t key_len, const char *s, size_t n) {
  ifs_evaluator *ev = arg;
  int k = kind_of_key(key, key_len);
  if (k != IFS_MUST_INCLUDE && k != IFS_MUST_EXCLUDE) return 0;
  if (s == ev->flat_missed) return 0;   /* asked already, and nothing kept since */
  int l_ex = k == IFS_MUST_EXCLUDE;
  size_t len = ifs_list_cache_find(ev->compiled, s, n, &ev->known[l_ex]);
  ev->known_at[l_ex] = len ? s : NULL;
  return len;
}

/* A flat text's lists (read_flat()), as the list cache found them. */
typedef struct flat_text {
  ifs_evaluator *ev;
  ifs_list list[2];       /* must_include's, must_exclude's, */
  int have[2];            /* when the text has it, */
  const char *at[2];      /* its JSON in the text, */
  size_t len[2];          /* of these bytes, */
  const plan_list *likely[2];   /* and where it likely is (NULL: not known) */
} flat_text;

/* ifs_json_scan_flat()'s member: a list of needles the list cache holds,
** of valid UTF-8, each kind once; a plain scalar of a key no check reads.
** Anything else (a limit, a regex, a list not held) makes the text not a
** flat text's: the full reader reads it. */
static size_t flat_member(void *arg, const char *key, size_t key_len, const char *s, size_t n) {
  flat_text *f = arg;
  int k = kind_of_key(key, key_len);
  if (k < 0) return 0;
  int l_ex = k == IFS_MUST_EXCLUDE;
  if ((k != IFS_MUST_INCLUDE && !l_ex) || f->have[l_ex] || s[0] != '[')
    return IFS_JSON_NOT_FLAT;
  const plan_list *at = f->likely[l_ex];
  size_t len = at ? ifs_list_cache_find_at(f->ev->compiled, at->slot, at->kept, s, n,
                                           &f->list[l_ex])
                  : ifs_list_cache_find(f->ev->compiled, s, n, &f->list[l_ex]);
  if (!len) f->ev->flat_missed = s;
  if (!len || !f->list[l_ex].strict) return IFS_JSON_NOT_FLAT;
  f->have[l_ex] = 1;
  f->at[l_ex] = s;
  f->len[l_ex] = len;
  return len;
}

/* After this many texts seen for the first time in a row that were not
** flat, one in this many is read flat: a table of texts of other shapes
** (each case's limits, a regex, short lists) then pays for reading them
** flat on few rows (on every row, about 300 instructions of the 12,000
** of a generated row of one constraints text per row), and one flat text
** found brings reading back on every row. */
#define FLAT_MISSES_MAX 16

/* The lists of plan pl, kept by its lists, by kind (likely[0]
** must_include's, likely[1] must_exclude's; NULL: none): its shared lists
** are in that order (keep_by_lists). */
static void lists_of(const plan *pl, const plan_list *likely[2]) {
  const plan_list *shared = plan_shared(pl);
  likely[0] = pl->n_include && pl->nshared ? shared : NULL;
  likely[1] = pl->nshared > (likely[0] != NULL) ? shared + (likely[0] != NULL) : NULL;
}

/* 1 when constraints text cons (raw bytes) is a flat text whose lists
** (one at least) the list cache holds, in *f.  Then the text is valid
** UTF-8 (ASCII but for those lists), its own internal form, and its
** plan's checks are those lists' (compile_plan() would copy them).  0,
** without reading it, for most texts after FLAT_MISSES_MAX that were not.
** expected: a plan kept by its lists that this text likely has (NULL:
** none), whose lists are then compared first. */
static int read_flat(ifs_evaluator *ev, const char *cons, size_t cn, const plan *expected,
                     flat_text *f) {
  size_t misses = ev->flat_misses++;
  if (misses >= FLAT_MISSES_MAX && misses % FLAT_MISSES_MAX) return 0;
  f->ev = ev;
  f->have[0] = f->have[1] = 0;
  f->likely[0] = f->likely[1] = NULL;
  if (expected) lists_of(expected, f->likely);
  if (!ev->compiled || !ifs_json_scan_flat(cons, cn, flat_member, f) ||
      !(f->have[0] || f->have[1]))
    return 0;
  ev->flat_misses = 0;
  return 1;
}

static ifs_status compile_regex(ifs_evaluator *ev, const ifs_jval *v) {
  if (!v || !ifs_py_truthy(v)) return IFS_OK;
  plan_check *c = plan_add(ev, IFS_REGEX);
  return !c || plan_arg(ev, c, v, 0) ? IFS_NOMEM : IFS_OK;
}

static int ends_in_i(const char *low, size_t len);

/* Which needles of a kept plan end in "i" (ends_in_i), for a plan of at
** most 64: an answer with a capital sigma, not lowered, then tries those
** alone through its U+0130, without reading the other needles' checks,
** cold in a table whose every case has its own constraints. */
static void plan_ends_in_i(plan *pl) {
  pl->ends_in_i = 0;
  pl->knows_ends_in_i = pl->nn <= 64;
  if (!pl->knows_ends_in_i) return;
  for (size_t j = 0; j < pl->nn; j++) {
    const plan_check *c = &pl->checks[pl->first_needle + j];
    if (ends_in_i(pl->text + c->low_at, c->low_len)) pl->ends_in_i |= (uint64_t)1 << j;
  }
}

/* Points the needles' searches of a kept plan without a set at its text
** (once the text stays put). */
static void plan_init_needles(plan *pl) {
  for (size_t j = 0; j < pl->nn; j++) {
    const plan_check *c = &pl->checks[pl->first_needle + j];
    if (c->low_len) ifs_needle_init(&pl->needles[j], pl->text + c->low_at, c->low_len);
  }
}

static ifs_status plan_build_set(ifs_evaluator *ev, const plan *pl, size_t min,
                                 ifs_needle_set **set);
static ifs_status work_list_sets(ifs_evaluator *ev, plan *w);
static int meets_context_lowercase(const char *low, size_t len);

/* 1 when the work plan's text holds byte CC or CF, which a needle meeting
** a context lowercase does: the lists copied first into it say so by their
** flags, without being read. */
static int may_meet_context(const ifs_evaluator *ev, const plan *w) {
  return ev->copied_context ||
         ifs_may_meet_context(w->text + ev->copied_end, w->tn - ev->copied_end);
}

/* The needles of the work plan: a set when they are many, else a search
** each, prepared when first used (a zeroed ifs_needle has len 0: not
** prepared yet). */
static ifs_status plan_prepare_needles(ifs_evaluator *ev) {
  plan *w = &ev->work;
  ifs_needle_set_free(w->set);
  w->set = NULL;
  w->needles = NULL;
  /* a needle meeting a context lowercase holds byte CC or CF: a text with
  ** neither (most) is not read needle by needle */
  size_t k = w->nn;
  int meets = 0;
  if (k && may_meet_context(ev, w))
    for (size_t j = 0; j < k && !meets; j++) {
      const plan_check *c = &w->checks[w->first_needle + j];
      meets = meets_context_lowercase(w->text + c->low_at, c->low_len);
    }
  w->meets_context = (unsigned char)meets;
  w->knows_ends_in_i = 0;
  w->lists = ev->wlists;
  w->nlists = 0;
  if (k == 0) return IFS_OK;
  ifs_status st = work_list_sets(ev, w);
  if (st || w->nlists) return st;
  st = plan_build_set(ev, w, SET_MIN_NEEDLES_ONCE, &w->set);
  if (st || w->set) return st;
  if (k > ev->wneedles_cap) {
    ifs_needle *nd = ifs_realloc(ev->wneedles, k * sizeof *nd);
    if (!nd) return IFS_NOMEM;
    ev->wneedles = nd;
    ev->wneedles_cap = k;
  }
  w->needles = ev->wneedles;
  memset(w->needles, 0, k * sizeof *w->needles);
  return IFS_OK;
}

/* Room for k needles' spans (ev->spans) and a set's answers (ev->found). */
static ifs_status needles_room(ifs_evaluator *ev, size_t k) {
  if (k > ev->needles_cap) {
    ifs_span *sp = ifs_realloc(ev->spans, k * sizeof *sp);
    if (sp) ev->spans = sp;
    signed char *f = sp ? ifs_realloc(ev->found, k) : NULL;
    if (!f) return IFS_NOMEM;
    ev->found = f;
    ev->needles_cap = k;
  }
  return IFS_OK;
}

/* The plan's needles in ev->spans, and room for their answers in ev->found. */
static ifs_status plan_spans(ifs_evaluator *ev, const plan *pl) {
  if (needles_room(ev, pl->nn)) return IFS_NOMEM;
  for (size_t j = 0; j < pl->nn; j++) {
    const plan_check *c = &pl->checks[pl->first_needle + j];
    ev->spans[j].at = c->low_at;
    ev->spans[j].len = c->low_len;
  }
  return IFS_OK;
}

/* The set of a plan with at least min needles (and room for its answers);
** NULL and IFS_OK for fewer. */
static ifs_status plan_build_set(ifs_evaluator *ev, const plan *pl, size_t min,
                                 ifs_needle_set **set) {
  *set = NULL;
  size_t k = pl->nn;
  if (k < min || k > IFS_NEEDLE_SET_MAX || pl->tn > UINT32_MAX)   /* (32-bit offsets) */
    return IFS_OK;
  if (plan_spans(ev, pl)) return IFS_NOMEM;
  return ifs_needle_set_new(ev->heap, pl->text, ev->spans, k, pl->n_include,
                            set);   /* (includes first) */
}

/* The work plan's lists of SET_MIN_NEEDLES_ONCE needles or more, each by the
** set kept for it (a list copied from the list cache: by its entry's); the
** needles of a list without one (shorter, or short and new:
** ifs_set_cache.h) are searched for each on its own.  None when
** no list has a kept set, or a long one is too long to keep: then the plan
** searches with one set of all its needles, built for the row. */
static ifs_status work_list_sets(ifs_evaluator *ev, plan *w) {
  size_t bounds[3] = {0, w->n_include, w->nn};
  if ((w->n_include < SET_MIN_NEEDLES_ONCE && w->nn - w->n_include < SET_MIN_NEEDLES_ONCE) ||
      w->tn > UINT32_MAX)
    return IFS_OK;
  if (!ev->sets && !(ev->sets = ifs_set_cache_new(ev->heap))) return IFS_NOMEM;
  if (needles_room(ev, w->nn)) return IFS_NOMEM;
  int spans = 0;   /* filled (the set cache's key) only for a list not copied */
  for (int l = 0; l < 2; l++) {
    size_t first = bounds[l], k = bounds[l + 1] - first;
    if (k < SET_MIN_NEEDLES_ONCE) continue;
    list_set *ls = &w->lists[w->nlists];
    const ifs_list *copied = &ev->copied[l];
    if (!copied->k && !spans) {
      if (plan_spans(ev, w)) return IFS_NOMEM;
      spans = 1;
    }
    ifs_status st = copied->k
        ? ifs_list_cache_set(ev->compiled, copied, l == 0, &ls->set, &ls->text)
        : ifs_set_cache_get(ev->sets, w->text, ev->spans + first, k, l == 0, &ls->set, &ls->text);
    if (st) return st;
    if (ls->set) {
      ls->first = first;
      w->nlists++;
    } else if (k >= IFS_SET_CACHE_EAGER) {   /* too long to keep */
      w->nlists = 0;
      return IFS_OK;
    }
  }
  return IFS_OK;
}

/* Parses the constraints (internal form) into ev->work: the checks in the
** reference's order, or the verdict that needs no response. */
static ifs_status compile_plan(ifs_evaluator *ev, const char *cons, size_t cn) {
#ifdef IFS_TESTING
  ev->compiles++;
#endif
  ev->wn = 0;
  ifs_buf_clear(&ev->wtext);
  ifs_arena_reset(&ev->arena);
  ev->noffers = 0;
  ev->copied[0].k = ev->copied[1].k = 0;
  ev->copied_end = 0;
  ev->copied_context = 0;
  ev->known_at[0] = ev->known_at[1] = NULL;
  memcpy(ev->copies_before, ev->copies, sizeof ev->copies);
  memset(ev->copies, 0, sizeof ev->copies);
  ev->wcons = cons;
  if (!ev->compiled && !(ev->compiled = ifs_list_cache_new(ev->heap))) return IFS_NOMEM;
  ifs_jval *c;
  size_t needles_from = 0, include_end = 0, needles_end = 0;   /* the needle checks, in one run */
  ifs_status rc = ifs_json_parse_known(cons, cn, &ev->arena, known_list, ev, &c);
  if (rc == IFS_NOMEM) return rc;
  ifs_verdict v = rc != IFS_OK          ? IFS_BAD_JSON
                  : !ifs_py_truthy(c)   ? IFS_NO_CONSTRAINTS
                  : c->type != IFS_JOBJ ? IFS_NOT_OBJECT
                                        : IFS_SCORED;
  rc = IFS_OK;
  if (v == IFS_SCORED) {
    const ifs_jval *vals[IFS_REGEX + 1];
    known_keys(c, vals);
    rc = place_copied_texts(ev, vals);
    for (int k = IFS_MAX_WORDS; k <= IFS_MAX_CHARS && !rc; k++)
      rc = compile_limit(ev, vals[k], (ifs_kind)k);
    if (!rc) rc = compile_json(ev, vals[IFS_MUST_BE_JSON]);
    needles_from = ev->wn;
    if (!rc) rc = compile_needles(ev, vals[IFS_MUST_INCLUDE], IFS_MUST_INCLUDE);
    include_end = ev->wn;
    if (!rc) rc = compile_needles(ev, vals[IFS_MUST_EXCLUDE], IFS_MUST_EXCLUDE);
    needles_end = ev->wn;
    if (!rc) rc = offer_lists(ev);
    if (!rc) rc = compile_regex(ev, vals[IFS_REGEX]);
    if (!rc && ev->wn == 0) v = IFS_NO_RECOGNIZED;
  }
  ifs_arena_reset(&ev->arena);
  if (rc) return rc;
  plan *w = &ev->work;
  w->verdict = v;
  w->n = ev->wn;
  w->checks = ev->wchecks;
  w->text = ev->wtext.p ? ev->wtext.p : "";
  w->tn = ev->wtext.len;
  w->kn = 0;
  w->first_needle = needles_from;
  w->n_include = include_end - needles_from;
  w->nn = needles_end - needles_from;
  return plan_prepare_needles(ev);
}


/* Layout of a cached plan: header, shared lists, lists' sets and key
** (head_bytes: read on every lookup, so next to the header), checks (8-byte
** aligned), needles' searches, text. */
static size_t checks_offset(size_t head_bytes) {
  return (sizeof(plan) + head_bytes + 7) & ~(size_t)7;
}

static size_t block_size(const plan *pl, size_t head_bytes) {
  return checks_offset(head_bytes) + pl->n * sizeof(plan_check) +
         (has_sets(pl) ? 0 : pl->nn * sizeof(ifs_needle)) + pl->tn;
}

static size_t plan_size(const plan *pl, size_t head_bytes) {
  return block_size(pl, head_bytes) + ifs_needle_set_bytes(pl->set) +
         ifs_needle_set_bytes(pl->own_set);
}

/* The set a kept plan owns (of all its needles, or of a list), the one
** asked for ahead of its row. */
static const ifs_needle_set *owned_set(const plan *pl) {
  return pl->set ? pl->set : pl->own_set;
}

/* A list the list cache has found this often, or more (once in each
** compile that copies it: the JSON reader's question), is shared by the
** plans kept after (plan_list): a table whose every case has its own
** constraints, with one refusal list, beside each case's own words.  A
** plan whose other list is shared as well (texts differing only in keys
** the checks do not read) shares them once the kept plans hold
** SHARE_FROM_BYTES: until then each such plan has one set of all its
** needles, one pass where sharing takes two over sets that stay in cache
** (with the AVX2 loops, sharing took 1.06 of the time with twenty such
** plans, 0.99 and 1.07 with two hundred).  A list of fewer texts (the
** list of a whole table, of a few cases) is not shared: each plan has one
** set of all its needles.  A list of SHARE_LIST_BYTES of JSON or more is
** shared from the start: a set of its own for each plan would cost more to
** build than the rows gain (a thousand phrases: about a millisecond a
** plan), and its copies would fill the plan cache. */
#define SHARE_FINDS 8
#define SHARE_FROM_BYTES ((size_t)4 << 20)
#define SHARE_LIST_BYTES ((size_t)16 << 10)

static size_t share_from(const ifs_evaluator *ev) {
#ifdef IFS_TESTING
  if (ev->share_from_set) return ev->share_from;
#endif
  (void)ev;
  return SHARE_FROM_BYTES;
}

/* The work plan's lists that a kept plan of text cons shares (kinds: bit 0
** must_include, bit 1 must_exclude), as it refers to them (shared[], in the
** order of their JSON), and their bytes; none when the text compiled was
** not cons (its internal form differs: the places would not match). */
static size_t shared_lists(const ifs_evaluator *ev, const char *cons, plan_list *shared,
                           unsigned *kinds, size_t *bytes) {
  size_t n = 0;
  *bytes = 0;
  *kinds = 0;
  if (ev->wcons != cons) return 0;
  int plans_big = ev->bytes >= share_from(ev), often[2];
  for (int l = 0; l < 2; l++) often[l] = ev->copied[l].k && ev->copied[l].finds >= SHARE_FINDS;
  for (int l = 0; l < 2; l++)
    if (often[l] && (plans_big || !often[!l] || ev->copied_json[l].len >= SHARE_LIST_BYTES)) {
      *kinds |= 1u << l;
      shared[n++] = ev->copied_json[l];
      *bytes += ev->copied_json[l].len;
    }
  if (n == 2 && shared[1].at < shared[0].at) {
    plan_list t = shared[0];
    shared[0] = shared[1];
    shared[1] = t;
  }
  return n;
}

/* Where the needles of spans[0 .. k) are in the plan's text, as one run
** (plan_next asks for it): a find of a needle its set's entry does not hold
** whole reads it there, cold at a kept plan's row. */
static void needles_region(const ifs_span *spans, size_t k, plan *p) {
  size_t from = SIZE_MAX, to = 0;
  for (size_t i = 0; i < k; i++) {
    if (spans[i].at < from) from = spans[i].at;
    if (spans[i].at + spans[i].len > to) to = spans[i].at + spans[i].len;
  }
  p->needles_at = (uint32_t)(k ? from : 0);
  p->needles_bytes = (uint32_t)(k ? to - from : 0);
}

/* The sets of a kept plan that shares lists (kinds) with the list cache, in
** p->lists: each shared list's, and for the other list, when long enough,
** one the plan owns (p->own_set, given the plan's text once it has one);
** the needles of a shorter one are searched for each on its own. */
static ifs_status shared_list_sets(ifs_evaluator *ev, const plan *w, unsigned kinds, plan *p) {
  size_t bounds[3] = {0, w->n_include, w->nn};
  p->set = p->own_set = NULL;
  p->nlists = 0;
  p->needles_at = p->needles_bytes = 0;
  if (plan_spans(ev, w)) return IFS_NOMEM;   /* (and room for the answers) */
  ifs_status st = IFS_OK;
  for (int l = 0; l < 2 && !st; l++) {
    size_t first = bounds[l], k = bounds[l + 1] - first;
    list_set *ls = &p->lists[p->nlists];
    ls->first = first;
    if (kinds >> l & 1) {
      st = ifs_list_cache_set(ev->compiled, &ev->copied[l], l == 0, &ls->set, &ls->text);
      p->nlists += !st;
    } else if (k >= SET_MIN_NEEDLES && k <= IFS_NEEDLE_SET_MAX && w->tn <= UINT32_MAX) {
      st = ifs_needle_set_new(ev->heap, w->text, ev->spans + first, k, l == 0 ? k : 0,
                              &p->own_set);
      ls->set = p->own_set;
      ls->text = NULL;
      p->nlists += !st;
      needles_region(ev->spans + first, k, p);
    }
  }
  if (st) {
    ifs_needle_set_free(p->own_set);
    p->own_set = NULL;
  }
  return st;
}

/* How a kept plan of ev->work searches (sets in p): by its lists' sets when
** it shares a list (kinds) with the list cache; else by one set of all its
** needles (the work plan's, which holds offsets into the text, not
** pointers, or one built now), or a search each. */
static ifs_status kept_sets(ifs_evaluator *ev, unsigned kinds, plan *p) {
  plan *w = &ev->work;
  if (kinds) return shared_list_sets(ev, w, kinds, p);
  p->nlists = 0;
  p->own_set = NULL;
  p->set = w->set;
  p->needles_at = 0;
  p->needles_bytes = (uint32_t)(w->tn < UINT32_MAX ? w->tn : UINT32_MAX);
  return p->set ? IFS_OK : plan_build_set(ev, w, SET_MIN_NEEDLES, &p->set);
}

/* The key of a kept plan: text cons but the shared lists' JSON. */
static void write_key(char *key, const char *cons, size_t cn, const plan_list *shared,
                      size_t nshared) {
  size_t at = 0;
  for (size_t i = 0; i < nshared; i++) {
    memcpy(key, cons + at, shared[i].at - at);
    key += shared[i].at - at;
    at = shared[i].at + shared[i].len;
  }
  memcpy(key, cons + at, cn - at);
}

/* A copy of ev->work with key cons less its lists shared[0..nshared)
** (shared_bytes), in one allocation, and its needle sets (kept_sets: the
** list cache's for the lists of kinds) or needles' searches. */
static plan *freeze_as(ifs_evaluator *ev, const char *cons, size_t cn, const plan_list *shared,
                       size_t nshared, unsigned kinds, size_t shared_bytes) {
  plan *w = &ev->work;
  plan sets = *w;   /* the kept plan's sets, until it has its block */
  list_set lists[2];
  sets.lists = lists;
  sets.nshared = (unsigned char)nshared;
  if (kept_sets(ev, kinds, &sets)) return NULL;
  size_t head_bytes = nshared * sizeof *shared + sets.nlists * sizeof *lists + cn - shared_bytes;
  char *block = ifs_heap_alloc(ev->heap, block_size(&sets, head_bytes));
  if (!block) {
    if (sets.set != w->set) ifs_needle_set_free(sets.set);
    ifs_needle_set_free(sets.own_set);
    return NULL;
  }
  if (sets.set == w->set) w->set = NULL;   /* it moves to the copy */
  plan *pl = (plan *)(void *)block;
  *pl = sets;
  memset(&pl->next, 0, sizeof pl->next);
  memset(pl->texts, 0, sizeof pl->texts);
  char *at = block + sizeof(plan);
  if (nshared) memcpy(at, shared, nshared * sizeof *shared);
  at += nshared * sizeof *shared;
  pl->lists = (list_set *)(void *)at;
  if (pl->nlists) memcpy(pl->lists, lists, pl->nlists * sizeof *lists);
  if (cn) write_key(at + pl->nlists * sizeof *lists, cons, cn, shared, nshared);
  pl->kn = cn;
  pl->checks = (plan_check *)(void *)(block + checks_offset(head_bytes));
  if (w->n) memcpy(pl->checks, w->checks, w->n * sizeof(plan_check));   /* none: NULL */
  at = (char *)(pl->checks + w->n);
  pl->needles = NULL;
  if (!has_sets(pl) && w->nn) {
    pl->needles = (ifs_needle *)(void *)at;
    at += w->nn * sizeof(ifs_needle);
  }
  memcpy(at, w->text, w->tn);
  pl->text = at;
  for (size_t l = 0; l < pl->nlists; l++)
    if (pl->lists[l].set == pl->own_set) pl->lists[l].text = pl->text;
  if (pl->needles) plan_init_needles(pl);
  plan_ends_in_i(pl);
  return pl;
}

/* ev->work kept by its text cons: with the lists it shares (shared_lists). */
static plan *plan_freeze(ifs_evaluator *ev, const char *cons, size_t cn) {
  plan_list shared[2];
  unsigned kinds;
  size_t shared_bytes, nshared = shared_lists(ev, cons, shared, &kinds, &shared_bytes);
  return freeze_as(ev, cons, cn, shared, nshared, kinds, shared_bytes);
}

static void plan_free(plan *pl) {
  if (!pl) return;
  ifs_needle_set_free(pl->set);
  ifs_needle_set_free(pl->own_set);
  ifs_heap_release(pl);
}

static void plans_flush(ifs_evaluator *ev) {
  ev->last = ev->prev = NULL;
  if (!ev->table) return;
  for (size_t i = 0; i < PLAN_TABLE; i++) {
    plan_free(ev->table[i].pl);
    ev->table[i].pl = NULL;
  }
  memset(ev->tags, 0, PLAN_TABLE * sizeof *ev->tags);
  ev->count = ev->bytes = 0;
}

/* The tag of a plan's hash in its slot: bits the slot's place does not
** tell, never 0. */
static uint16_t slot_tag(uint64_t h) { return (uint16_t)(h >> 48) | 1; }

/* n slots of `size` bytes and their tags (*tags) in one zeroed block, the
** tags after the slots (8-byte aligned, as size is); NULL when out of
** memory.  The plan table's and that of plans kept by their lists. */
static void *tagged_slots(size_t n, size_t size, uint16_t **tags) {
  size_t bytes = n * (size + sizeof **tags);
  char *block = ifs_malloc(bytes);
  if (!block) return NULL;
  memset(block, 0, bytes);
  *tags = (uint16_t *)(void *)(block + n * size);
  return block;
}

/* Drops the kept plan of table slot i (the caller counts the drop).
** Linear probing keeps no tombstones: each later slot of the run moves back
** into the hole unless its own first slot lies between the hole and it. */
static void plan_drop(ifs_evaluator *ev, size_t i) {
  const size_t m = PLAN_TABLE - 1;
  plan *pl = ev->table[i].pl;
  ev->bytes -= plan_size(pl, plan_head_bytes(pl));
  ev->count--;
  if (ev->last == pl) ev->last = NULL;
  if (ev->prev == pl) ev->prev = NULL;
  plan_free(pl);
  for (size_t j = (i + 1) & m; ev->tags[j]; j = (j + 1) & m) {
    size_t home = (size_t)ev->table[j].hash & m;
    if (((j - home) & m) >= ((j - i) & m)) {
      ev->table[i] = ev->table[j];
      ev->tags[i] = ev->tags[j];
      i = j;
    }
  }
  ev->table[i].pl = NULL;
  ev->table[i].set = NULL;
  ev->tags[i] = 0;
}

/* A kept plan's slot, picked at random (there is one; the table is at most
** half full, so about two draws find one, each plan as likely as any). */
static size_t random_slot(ifs_evaluator *ev) {
  size_t i;
  do i = (size_t)ifs_xorshift64(&ev->rng) & (PLAN_TABLE - 1);
  while (!ev->tags[i]);
  return i;
}

/* Stores a frozen plan of hash h; when the cache has no room for it, first
** drops plans picked at random until it has room for an eighth more (or,
** for a big plan, for it and an eighth).  Any kept plan's link to the next
** row's may name a plan dropped: counting the drop makes every link written
** before it stale (next_of).  0, or IFS_NOMEM (then the plan is not kept). */
static ifs_status plans_insert(ifs_evaluator *ev, plan *pl, uint64_t h) {
  size_t size = plan_size(pl, plan_head_bytes(pl));
  if (!ev->table && !(ev->table = tagged_slots(PLAN_TABLE, sizeof *ev->table, &ev->tags)))
    return IFS_NOMEM;
  if (ev->count >= PLAN_MAX || ev->bytes + size > PLAN_BYTES) {
    ev->drops++;
    while (ev->count && (ev->count > PLAN_MAX - PLAN_MAX / 8 ||
                         ev->bytes + size > PLAN_BYTES - PLAN_BYTES / 8))
      plan_drop(ev, random_slot(ev));
  }
  size_t i = (size_t)h & (PLAN_TABLE - 1);
  while (ev->tags[i]) i = (i + 1) & (PLAN_TABLE - 1);
  ev->tags[i] = slot_tag(h);
  ev->table[i].hash = h;
  ev->table[i].pl = pl;
  ev->table[i].set = owned_set(pl);
  ev->count++;
  ev->bytes += size;
  return IFS_OK;
}

/* 1 when kept plan pl, which shares lists, is the plan of constraints text
** cons (of its length): between the key's pieces the JSON of the lists the
** list cache still holds for it. */
static int shared_plan_is_for(const ifs_evaluator *ev, const plan *pl, const char *cons,
                              size_t cn) {
  const char *key = plan_key(pl);
  size_t at = 0;
  for (size_t i = 0; i < pl->nshared; i++) {
    const plan_list *s = &plan_shared(pl)[i];
    const char *json = ifs_list_cache_json(ev->compiled, s->slot, s->kept);
    if (!json || memcmp(key, cons + at, s->at - at) != 0 ||
        memcmp(json, cons + s->at, s->len) != 0)
      return 0;
    key += s->at - at;
    at = s->at + s->len;
  }
  return memcmp(key, cons + at, cn - at) == 0;
}

/* 1 when kept plan pl is the plan of constraints text cons: its key (and the
** lists it shares). */
static inline int plan_is_for(const ifs_evaluator *ev, const plan *pl, const char *cons,
                              size_t cn) {
  if (pl->kn != cn || pl->by_lists) return 0;
  if (pl->nshared) return shared_plan_is_for(ev, pl, cons, cn);
  return memcmp(plan_key(pl), cons, cn) == 0;
}

/* The last row's plan when this row's constraints are the same bytes (a
** list for a whole table, a literal): no hash; else NULL. */
static plan *plan_if_last(const ifs_evaluator *ev, const char *cons, size_t cn) {
  plan *last = ev->last;
  return last && plan_is_for(ev, last, cons, cn) ? last : NULL;
}

/* The first slot from i on (probing) holding a plan of hash h, or
** PLAN_TABLE when none does. */
static size_t slot_of_hash(const ifs_evaluator *ev, uint64_t h, size_t i) {
  uint16_t tag = slot_tag(h);
  /* a hit (eval rows' texts, back in no steady order) reads the slot: its
  ** line comes in while the tag is compared, not after */
  ifs_prefetch(&ev->table[i], sizeof ev->table[i]);
  for (; ev->tags[i]; i = (i + 1) & (PLAN_TABLE - 1))
    if (ev->tags[i] == tag && ev->table[i].hash == h) return i;
  return PLAN_TABLE;
}

/* Up to this many bytes of a plan's key are asked for at once (past that
** the CPU's own prefetching keeps up). */
#define PREFETCH_KEY_MAX 4096

/* Asks for a kept plan's header and the n bytes after it (its shared lists
** and key, plan_head_bytes, or as many as its text's), all at once. */
static void prefetch_head_and_key(const plan *pl, size_t n) {
  ifs_prefetch(pl, sizeof(plan) + (n < PREFETCH_KEY_MAX ? n : PREFETCH_KEY_MAX));
}

/* The hash a constraints text's plan is kept by. */
static uint64_t plan_hash(ifs_evaluator *ev, const char *cons, size_t cn) {
#ifdef IFS_TESTING
  ev->text_hashes++;
  if (ev->same_hash) return 0;
#endif
  (void)ev;
  return ifs_hash_bytes(cons, cn);
}

/* ---- plans kept by their lists (BY_LISTS_SLOTS) ---- */

static uint64_t lists_hash(const flat_text *f) {
  uint64_t kept[2] = {f->have[0] ? f->list[0].kept : 0, f->have[1] ? f->list[1].kept : 0};
  return ifs_hash_bytes(kept, sizeof kept) ^ 0x6C69737473u;   /* apart from texts' */
}

/* The first slot of the set of lists of hash h. */
static size_t lists_set(uint64_t h) {
  return (size_t)(h & (BY_LISTS_SLOTS / BY_LISTS_WAYS - 1)) * BY_LISTS_WAYS;
}

/* The bytes of a plan kept by its lists a row reads first: its header, its
** lists and sets, its first check. */
#define LISTS_PLAN_HEAD (sizeof(plan) + 2 * sizeof(plan_list) + 2 * sizeof(list_set) + \
                         sizeof(plan_check) + 8)

/* The plan kept for flat text f's lists, if any, its first lines asked
** for; NULL when none is.  It may be another's of the same tag:
** is_plan_of_lists() tells, once those lines are in. */
static plan *lists_plan_of(const ifs_evaluator *ev, const flat_text *f) {
  if (!ev->by_lists) return NULL;
  uint64_t h = lists_hash(f);
  uint16_t tag = slot_tag(h);
  for (size_t i = lists_set(h), end = i + BY_LISTS_WAYS; i < end; i++)
    if (ev->lists_tags[i] == tag) {
      ifs_prefetch(ev->by_lists[i], LISTS_PLAN_HEAD);
      return ev->by_lists[i];
    }
  return NULL;
}

/* 1 when plan pl, kept by its lists, is flat text f's: the same lists, as
** kept by the list cache (the sets it names are the cache's still). */
static int is_plan_of_lists(const plan *pl, const flat_text *f) {
  size_t n = 0;
  for (int l = 0; l < 2; l++)
    if (f->have[l] && (n >= pl->nshared || plan_shared(pl)[n++].kept != f->list[l].kept))
      return 0;
  return n == pl->nshared;
}

/* Frees plan pl, kept by its lists: a link may name it (next_of), the
** last row's plan may be it. */
static void lists_plan_free(ifs_evaluator *ev, plan *pl) {
  if (!pl) return;
  ev->drops++;
  if (ev->prev == pl) ev->prev = NULL;
  plan_free(pl);
}

/* Empties slot i of the plans kept by their lists (if it holds one). */
static void lists_slot_clear(ifs_evaluator *ev, size_t i) {
  if (!ev->by_lists[i]) return;
  ev->by_lists_bytes -= plan_size(ev->by_lists[i], plan_head_bytes(ev->by_lists[i]));
  lists_plan_free(ev, ev->by_lists[i]);
  ev->by_lists[i] = NULL;
  ev->lists_tags[i] = 0;
}

static void lists_plans_flush(ifs_evaluator *ev) {
  for (size_t i = 0; ev->by_lists && i < BY_LISTS_SLOTS; i++) lists_slot_clear(ev, i);
}

/* The slot for a plan of lists of hash h: the one of its tag, else an
** empty one, else one picked at random; emptied. */
static size_t lists_slot_for(ifs_evaluator *ev, uint64_t h) {
  size_t first = lists_set(h), i, empty = BY_LISTS_SLOTS;
  uint16_t tag = slot_tag(h);
  for (i = first; i < first + BY_LISTS_WAYS && ev->lists_tags[i] != tag; i++)
    if (!ev->lists_tags[i] && empty == BY_LISTS_SLOTS) empty = i;
  if (i == first + BY_LISTS_WAYS)
    i = empty < BY_LISTS_SLOTS ? empty
                               : first + (size_t)(ifs_xorshift64(&ev->rng) % BY_LISTS_WAYS);
  lists_slot_clear(ev, i);
  return i;
}

/* Room for a plan of `bytes` kept by its lists: plans picked at random go
** until it fits with an eighth of the bound to spare. */
static void lists_plans_room(ifs_evaluator *ev, size_t bytes) {
  size_t bound = ev->lists_bound;
  if (ev->by_lists_bytes + bytes <= bound) return;
  while (ev->by_lists_bytes && ev->by_lists_bytes + bytes > bound - bound / 8)
    lists_slot_clear(ev, (size_t)ifs_xorshift64(&ev->rng) & (BY_LISTS_SLOTS - 1));
}

/* Flat text f just compiled into ev->work (seen for the first time): the
** plan kept for its lists when they came together before (the work plan
** frozen, sharing them), else the work plan; NULL when out of memory. */
static plan *keep_by_lists(ifs_evaluator *ev, const flat_text *f) {
  plan *w = &ev->work;
  plan_list shared[2];
  size_t n = 0;
  unsigned kinds = 0;
  for (int l = 0; l < 2; l++) {
    if (f->have[l] != (ev->copied[l].k != 0)) return w;   /* (cannot be) */
    if (!f->have[l]) continue;
    if (ev->copied[l].kept != f->list[l].kept) return w;
    shared[n++] = (plan_list){0, 0, ev->copied[l].slot, ev->copied[l].kept};
    kinds |= 1u << l;
  }
  uint64_t h = lists_hash(f);
  int before;
  if (ifs_seen_add(&ev->seen, h, &before)) return NULL;
  if (!before || plan_size(w, 0) > ev->lists_bound / 8) return w;
  if (!ev->by_lists &&
      !(ev->by_lists = tagged_slots(BY_LISTS_SLOTS, sizeof *ev->by_lists, &ev->lists_tags)))
    return NULL;
  plan *pl = freeze_as(ev, "", 0, shared, n, kinds, 0);
  if (!pl) return NULL;
  pl->by_lists = 1;
  size_t bytes = plan_size(pl, plan_head_bytes(pl)), i = lists_slot_for(ev, h);
  lists_plans_room(ev, bytes);   /* (slot i is empty: it stays so) */
  ev->by_lists[i] = pl;
  ev->lists_tags[i] = slot_tag(h);
  ev->by_lists_bytes += bytes;
  return pl;
}

/* ---- finding a row's plan -------------------------------------------- */

/* What a row learns of its plan before its response is read (plan_ahead). */
typedef struct ahead {
  int linked;             /* a flat text of the plan the link names (by_lists); */
  uint64_t h;             /* else: the text's hash, */
  size_t slot;            /* the first kept plan of that hash (PLAN_TABLE: none) */
  int flat;               /* a flat text of lists the list cache holds, */
  flat_text f;            /* these, */
  plan *by_lists;         /* and the plan kept for them, if any */
  int recorded;           /* get_plan(): the sighting is recorded (record_text), */
  int before;             /* the text was seen before, */
  uint32_t since;         /* that many rows ago */
} ahead;

/* A text that comes back more rows than this after it was last seen is
** back late: kept by its bytes, it would likely be dropped before its
** next return (the cache holds PLAN_MAX plans).  A flat text back late
** takes the plan kept for its lists instead: a table of more such texts
** than the cache holds, read again, would otherwise compile each text the
** record still holds, and drop plans for them. */
#define BACK_LATE_ROWS PLAN_MAX

/* A text that comes back more rows than this after it was last seen is
** compiled for its row and not kept: texts in a rotation that long keep
** few of their plans until their next turn (of 5,000 texts about three
** fifths, of 8,192 a fifth, of 30,000 almost none), and keeping one costs
** its copy and, the cache full, a plan dropped. */
#define KEEP_LATE_ROWS (2 * PLAN_MAX)

/* Records this row's sighting of the text of hash a->h: a->before, since. */
static ifs_status record_sighting(ifs_evaluator *ev, ahead *a) {
  return ifs_seen_since(&ev->seen, a->h, (uint32_t)ev->evaluation, &a->before, &a->since);
}

/* The hash flat text f (cons) is recorded by in the plan kept for its
** lists (texts_seen): of its bytes but its lists' JSON, which are that
** plan's lists, and of where that JSON lies.  A few dozen bytes, where
** the whole text has a thousand and more. */
static uint64_t flat_rest_hash(const char *cons, size_t cn, const flat_text *f) {
  uint64_t parts[5];
  size_t k = 0;
  const char *from = cons;
  int first = f->have[0] && (!f->have[1] || f->at[0] < f->at[1]) ? 0 : 1;
  for (int i = 0; i < 2; i++) {
    int l = i ? !first : first;
    if (!f->have[l]) continue;
    parts[k++] = ifs_hash_bytes(from, (size_t)(f->at[l] - from));
    parts[k++] = (uint64_t)(f->at[l] - cons);
    from = f->at[l] + f->len[l];
  }
  parts[k++] = ifs_hash_bytes(from, (size_t)(cons + cn - from));
  return ifs_hash_bytes(parts, k * sizeof *parts);
}

/* Whether slot a of a plan's record of texts goes before slot b when a
** new text takes one: an empty one first, else the one seen longer ago. */
static int replaced_before(const ifs_seen_slot *a, const ifs_seen_slot *b, uint32_t now) {
  if (!a->tag || !b->tag) return !a->tag && b->tag;
  return now - a->when > now - b->when;
}

/* Records the sighting of flat text a->f (cons) in the plan kept for its
** lists, a->by_lists, as record_sighting() would in the evaluator's
** record: a->before, since.  The plan's header was asked for before the
** response was read; the evaluator's record is a line of its own, cold. */
static void texts_seen(const ifs_evaluator *ev, const char *cons, size_t cn, ahead *a) {
  uint32_t now = (uint32_t)ev->evaluation;
  uint32_t tag = ifs_seen_tag(flat_rest_hash(cons, cn, &a->f));
  ifs_seen_slot *texts = a->by_lists->texts, *out = &texts[0];
  for (size_t i = 0; i < TEXTS_SEEN; i++) {
    if (texts[i].tag == tag) {
      a->before = 1;
      a->since = now - texts[i].when;
      texts[i].when = now;
      return;
    }
    if (replaced_before(&texts[i], out, now)) out = &texts[i];
  }
  a->before = 0;
  a->since = 0;
  *out = (ifs_seen_slot){tag, now};
}

/* Whether the text a recorded is back soon: seen before, not late. */
static int back_soon(const ahead *a) { return a->before && a->since <= BACK_LATE_ROWS; }

/* The slot of the first kept plan of hash h, or PLAN_TABLE: none. */
static size_t table_look(ifs_evaluator *ev, uint64_t h) {
#ifdef IFS_TESTING
  ev->table_looks++;
#endif
  return ev->table ? slot_of_hash(ev, h, (size_t)h & (PLAN_TABLE - 1)) : PLAN_TABLE;
}

/* The hash of a constraints text; asks for the lines of the kept plan it
** leads to (header, key and needle set, all at once), which get_plan()
** reads after the response: in a table whose every case has its own
** constraints each row's plan is cold, and its lines come in while the
** response is read.  The slot holds the set, so that it is asked for
** without waiting for the header.  A text no kept plan's hash leads to is
** read flat when it can be (read_flat): a plan kept for its lists, if any,
** is asked for.  When the link names a plan kept by lists (expected), the
** text is read flat first, each list compared with that plan's own where
** the list cache holds it: a flat text of that plan's lists takes it
** without a hash or a look at the plan table (the table's tag was a cold
** line such a row waited for).  get_plan() records the sighting, after the
** response is read (record_text). */
static ifs_status plan_ahead(ifs_evaluator *ev, const char *cons, size_t cn, plan *expected,
                             ahead *a) {
  a->linked = a->flat = 0;
  a->slot = PLAN_TABLE;
  a->by_lists = NULL;
  ev->flat_missed = NULL;
  int read = 0, flat = 0;
  if (expected) {
    read = 1;
    flat = read_flat(ev, cons, cn, expected, &a->f);
    if (flat && is_plan_of_lists(expected, &a->f)) {
      a->linked = a->flat = 1;
      a->by_lists = expected;
      return IFS_OK;
    }
  }
  a->h = plan_hash(ev, cons, cn);
  size_t i = a->slot = table_look(ev, a->h);
  if (i != PLAN_TABLE) {
    prefetch_head_and_key(ev->table[i].pl, cn);
    if (ev->table[i].set) ifs_needle_set_prefetch(ev->table[i].set);
    return IFS_OK;
  }
  if (!read) flat = read_flat(ev, cons, cn, NULL, &a->f);
  if (flat) {   /* (not the expected plan's lists: those returned above) */
    a->flat = 1;
    a->by_lists = lists_plan_of(ev, &a->f);
  }
  return IFS_OK;
}

/* Records the sighting of a text no kept plan's hash led to: a flat text
** of a plan kept by its lists in that plan (texts_seen), any other in the
** evaluator's record.  Back soon, the text is not taken as a flat text:
** it is looked up in the plan table and kept by its bytes, as any text. */
static ifs_status record_text(ifs_evaluator *ev, const char *cons, size_t cn, ahead *a) {
  a->recorded = 1;
  if (a->by_lists && (a->linked || is_plan_of_lists(a->by_lists, &a->f))) {
    texts_seen(ev, cons, cn, a);
  } else {
    a->by_lists = NULL;
    if (record_sighting(ev, a)) return IFS_NOMEM;
  }
  if (!back_soon(a)) return IFS_OK;
  if (a->linked) {
    a->h = plan_hash(ev, cons, cn);
    a->slot = table_look(ev, a->h);
  }
  a->flat = 0;
  a->by_lists = NULL;
  return IFS_OK;
}

/* The plan for a constraints text (raw bytes), as plan_ahead() found it:
** kept (by its text or its lists), or compiled; NULL when out of memory.
** A text is kept by its text when it comes back, but for a text back
** late (a flat one is kept by its lists) or later still (KEEP_LATE_ROWS).
** A text no kept plan's hash led to is recorded first (record_text). */
static plan *get_plan(ifs_evaluator *ev, const char *cons, size_t cn, ahead *a) {
  a->recorded = 0;
  if ((a->linked || a->slot == PLAN_TABLE) && record_text(ev, cons, cn, a)) return NULL;
  if (a->by_lists) return a->by_lists;   /* its flat text's, not back soon */
  uint64_t h = a->h;
  for (size_t i = a->slot; i < PLAN_TABLE; i = slot_of_hash(ev, h, (i + 1) & (PLAN_TABLE - 1))) {
    plan *pl = ev->table[i].pl;
    if (plan_is_for(ev, pl, cons, cn)) return ev->last = pl;
  }
  const char *in;
  size_t in_n;
  if (a->flat) {   /* its own internal form */
    if (compile_plan(ev, cons, cn)) return NULL;
    plan *pl = keep_by_lists(ev, &a->f);
    if (pl && pl != &ev->work) {   /* kept now: this text is its first */
      a->by_lists = pl;
      texts_seen(ev, cons, cn, a);
    }
    return pl;
  }
  if (internal_form(cons, cn, &ev->cons_in, &in, &in_n) || compile_plan(ev, in, in_n))
    return NULL;
  if (plan_size(&ev->work, cn) > PLAN_KEEP_BYTES) return &ev->work;
  /* a text a kept plan's hash led to, none of them its */
  if (!a->recorded && record_sighting(ev, a)) return NULL;
  if (!a->before || a->since > KEEP_LATE_ROWS) return &ev->work;
  plan *pl = plan_freeze(ev, cons, cn);
  if (!pl) return NULL;
  if (plans_insert(ev, pl, h)) { plan_free(pl); return NULL; }
  return ev->last = pl;
}

/* Kept plan pl's link to the plan of the row after its own, or NULL when
** none is written or a plan has been dropped since (it may be that one). */
static plan_next *next_of(const ifs_evaluator *ev, plan *pl) {
  plan_next *x = &pl->next;
  return x->pl && x->drops == ev->drops ? x : NULL;
}

/* Up to this many bytes of a plan's needles' text are asked for ahead. */
#define PREFETCH_NEEDLES_MAX 1024

/* Asks for the lines of the plan x names: header, key, needle set and its
** needles' text. */
static void prefetch_next(const plan_next *x) {
  prefetch_head_and_key(x->pl, x->head_bytes);
  if (x->set) ifs_needle_set_prefetch_bytes(x->set, x->set_bytes);
  if (x->needles)
    ifs_prefetch(x->needles, x->needles_bytes < PREFETCH_NEEDLES_MAX ? x->needles_bytes
                                                                      : PREFETCH_NEEDLES_MAX);
}

/* The plan that followed the last row's the last two times it was used,
** its lines asked for, or NULL: in a table read again in order, this row's,
** found without hashing its text (expected_plan_if). */
static const plan_next *expected_plan(const ifs_evaluator *ev) {
  const plan_next *x = ev->prev ? next_of(ev, ev->prev) : NULL;
  if (x && !x->again) x = NULL;
  if (x) prefetch_next(x);
  return x;
}

/* The expected plan x when this row's constraints are its key; else NULL. */
static plan *expected_plan_if(ifs_evaluator *ev, const plan_next *x, const char *cons,
                              size_t cn) {
  if (!x || !plan_is_for(ev, x->pl, cons, cn)) return NULL;
  return ev->last = x->pl;
}

/* Records that this row's plan pl followed the last row's, and asks for the
** plan that followed pl the last two times it was used: a table whose every
** case has its own constraints is often read again in the same order (the
** next model's run, a regrade), and then that is the next row's, whose lines
** come in during this row.  Rows in no steady order ask for nothing. */
static void follow_plan(ifs_evaluator *ev, plan *pl) {
  if (pl == &ev->work) pl = NULL;   /* not kept: a text seen once */
  plan *prev = ev->prev;
  ev->prev = pl;
  if (prev && pl && prev != pl) {
    plan_next *x = next_of(ev, prev);
    if (!x || x->pl != pl) {
      x = &prev->next;
      x->pl = pl;
      x->set = owned_set(pl);
      x->head_bytes = (uint32_t)plan_head_bytes(pl);
      x->set_bytes = (uint32_t)ifs_needle_set_hot_bytes(x->set);
      x->needles = x->set ? pl->text + pl->needles_at : NULL;
      x->needles_bytes = pl->needles_bytes;
      x->again = 0;
      x->by_lists = pl->by_lists;
      x->drops = ev->drops;
    } else if (!x->again) {   /* written once: the line stays clean */
      x->again = 1;
    }
  }
  const plan_next *x = pl ? next_of(ev, pl) : NULL;
  if (x && x->again) prefetch_next(x);
}

/* ---- running a plan on a response -------------------------------------- */

/* One pass over the response: validity, ASCII, and whether lower() maps it
** character by character; text that is not strict UTF-8 is read into its
** internal form first. */
static ifs_status read_response(ifs_evaluator *ev, row *w, const char *resp, size_t rn) {
  ifs_scan sc;
  ifs_utf8_scan(resp, rn, &sc);
  w->strict_utf8 = sc.valid;
  w->resp = resp;
  w->rn = rn;
  if (!sc.valid) {
    ifs_buf_clear(&ev->resp_in);
    if (ifs_to_internal(resp, rn, &ev->resp_in)) return IFS_NOMEM;
    w->resp = ev->resp_in.p;
    w->rn = ev->resp_in.len;
    ifs_utf8_scan(w->resp, w->rn, &sc);   /* for plain_lower */
    sc.ascii = 0;
  }
  w->ascii = sc.ascii;
  w->plain_lower = sc.plain_lower;
  return IFS_OK;
}

/* Room for n more checks in r. */
static ifs_status reserve_checks(ifs_result *r, size_t n) {
  if (r->cap - r->total >= n) return IFS_OK;
  size_t cap = r->cap ? r->cap : 8;
  while (cap - r->total < n) cap *= 2;
  ifs_check *k = ifs_realloc(r->checks, cap * sizeof *k);
  if (!k) return IFS_NOMEM;
  r->checks = k;
  r->cap = cap;
  return IFS_OK;
}

/* Appends check `from` of the plan (kind given), with room made before. */
static void push_check(ifs_result *r, ifs_kind kind, size_t from, int ok, size_t got) {
  ifs_check *k = &r->checks[r->total++];
  k->kind = kind;
  k->ok = ok;
  k->label_at = k->label_len = 0;
  k->from = from;
  k->got = got;
  r->passed += ok != 0;
}

/* Appends the outcome of plan check c; got is what its label reports (a
** count, or the regex search's answer).  Labels come later, if asked. */
static ifs_status add_check(ifs_result *r, const plan *pl, const plan_check *c, int ok,
                            size_t got) {
  if (reserve_checks(r, 1)) return IFS_NOMEM;
  push_check(r, c->kind, (size_t)(c - pl->checks), ok, got);
  return IFS_OK;
}

static void count_response(row *w) {
  if (w->have_counts) return;
  ifs_count(w->resp, w->rn, &w->words, &w->chars);
  w->have_counts = 1;
}

static ifs_status run_limit(ifs_result *r, row *w, const plan *pl, const plan_check *c) {
  if (c->invalid) return add_check(r, pl, c, 0, 0);
  count_response(w);
  size_t got = c->kind == IFS_MAX_CHARS ? w->chars : w->words;
  int cmp = ifs_int_cmp(pl->text + c->arg_at, c->arg_len, got);   /* limit vs got */
  return add_check(r, pl, c, c->kind == IFS_MIN_WORDS ? cmp <= 0 : cmp >= 0, got);
}

void ifs_strip_fences(const char *s, size_t n, size_t *start, size_t *end) {
  size_t a, b;
  ifs_strip(s, n, &a, &b);
  if (b - a >= 3 && memcmp(s + a, "```", 3) == 0) {
    /* re.sub(r"^```[a-zA-Z0-9]*\s*", "", t) */
    a += 3;
    while (a < b && ((s[a] >= 'a' && s[a] <= 'z') || (s[a] >= 'A' && s[a] <= 'Z') ||
                     (s[a] >= '0' && s[a] <= '9')))
      a++;
    while (a < b) {
      size_t j = a;
      if (!ifs_isspace(ifs_decode(s, b, &j))) break;
      a = j;
    }
    /* re.sub(r"\s*```$", "", t): the text ends unstripped only if empty */
    if (b - a >= 3 && memcmp(s + b - 3, "```", 3) == 0) {
      b -= 3;
      while (b > a) {
        size_t j = b;
        if (!ifs_isspace(ifs_decode_prev(s, &j))) break;
        b = j;
      }
    }
    size_t a2, b2;
    ifs_strip(s + a, b - a, &a2, &b2);
    b = a + b2;
    a = a + a2;
  }
  *start = a;
  *end = b;
}

static ifs_status run_json(ifs_result *r, row *w, const plan *pl, const plan_check *c) {
  size_t a, b;
  ifs_strip_fences(w->resp, w->rn, &a, &b);
  ifs_status rc = ifs_json_valid(w->resp + a, b - a);
  if (rc == IFS_NOMEM) return IFS_NOMEM;
  return add_check(r, pl, c, rc == IFS_OK, 0);
}

/* resp.lower(), made once per row when a needle needs it. */
static const ifs_buf *lowered_response(ifs_evaluator *ev, row *w) {
  if (!w->have_lower) {
    ifs_buf_clear(&ev->resp_lower);
    if (ifs_lower(w->resp, w->rn, &ev->resp_lower)) return NULL;
    w->have_lower = 1;
  }
  return &ev->resp_lower;
}

/* resp.lower() differs from resp with each character lowered alone only
** at U+03A3 (sigma or final sigma, by its neighbours) and U+0130 ("i" and
** U+0307).  A lowered needle holding no sigma, final sigma or U+0307 meets
** those lowercases at most through the "i" of a U+0130, as its last
** character; anywhere else it is in resp.lower() exactly where its
** characters are in resp lowered alone (U+0130 and U+03A3 alone lower to
** U+0130 and sigma, which such a needle does not hold).  So it is searched
** for in resp itself and, when it ends in "i", through each U+0130: no
** lowered copy of a long answer for one capital sigma or dotted I. */

/* 1 when a lowered needle holds sigma, final sigma or U+0307. */
static int meets_context_lowercase(const char *low, size_t len) {
  const unsigned char *u = (const unsigned char *)low;
  for (size_t i = 0; i + 1 < len; i++)
    if ((u[i] == 0xCF && (u[i + 1] == 0x82 || u[i + 1] == 0x83)) ||
        (u[i] == 0xCC && u[i + 1] == 0x87))
      return 1;
  return 0;
}

static int ends_in_i(const char *low, size_t len) { return len && low[len - 1] == 'i'; }

/* Where resp's U+0130 are, in ev->dotted_i: looked for once a row, not
** once for each absent needle ending in "i" (a thousand-phrase list has
** dozens; Turkish text has many other characters starting C4).  0, or -1
** past DOTTED_I_MAX of them or out of memory (resp.lower() then answers,
** as it does past the work a pass over it would take). */
#define DOTTED_I_MAX 1024
static int find_dotted_capital_i(ifs_evaluator *ev, row *w) {
  if (w->dotted_i) return w->dotted_i > 0 ? 0 : -1;
  w->dotted_i = -1;
  ifs_buf_clear(&ev->dotted_i);
  const char *end = w->resp + w->rn;
  for (const char *hit = ifs_find(w->resp, w->rn, "\xC4\xB0", 2); hit;
       hit = ifs_find(hit + 2, (size_t)(end - hit - 2), "\xC4\xB0", 2)) {
    size_t at = (size_t)(hit - w->resp);
    if (ev->dotted_i.len == DOTTED_I_MAX * sizeof at ||
        ifs_buf_append(&ev->dotted_i, &at, sizeof at))
      return -1;
  }
  w->dotted_i = 1;
  return 0;
}

/* For a lowered needle ending in "i" that meets no other context
** lowercase: 1 when its characters before the "i", lowered alone, end just
** before a U+0130 of resp, 0 when nowhere, -1 when that took more work than
** a pass over resp.lower() would (many U+0130 and a long needle) or
** memory ran out (the long way then answers). */
static int ends_at_dotted_capital_i(ifs_evaluator *ev, const char *low, size_t len, row *w) {
  if (find_dotted_capital_i(ev, w)) return -1;
  size_t hits = ev->dotted_i.len / sizeof(size_t);
  if (!hits) return 0;
  size_t before = ifs_count_chars(low, len - 1), work = 0, budget = 4 * w->rn + 4096;
  int before_ascii = ifs_is_ascii(low, len - 1);
  const char *t = w->resp;
  for (size_t h = 0; h < hits; h++) {
    size_t q, k = before;
    memcpy(&q, ev->dotted_i.p + h * sizeof q, sizeof q);
    for (; k && q; k--, work++) ifs_decode_prev(t, &q);
    if (k == 0 && (before == 0 || ifs_needle_at(low, len - 1, before_ascii, t, w->rn, q, &work)))
      return 1;
    if (work > budget) return -1;
  }
  return 0;
}

/* `needle in resp.lower()` for a lowered, non-empty needle, in *found:
** searched for in resp itself where lowering is a plain map of characters
** (no U+0130 or U+03A3 in resp) or the needle meets no context lowercase
** (above), else in the lowered copy.  IFS_OK or IFS_NOMEM. */
static ifs_status needle_in_response(ifs_evaluator *ev, row *w, const ifs_needle *nd,
                                     int *found) {
  if ((w->plain_lower || !meets_context_lowercase(nd->low, nd->len)) &&
      ifs_needle_find(nd, w->resp, w->rn, w->ascii, found) == IFS_OK) {
    if (*found || w->plain_lower || !ends_in_i(nd->low, nd->len)) return IFS_OK;
    int at = ends_at_dotted_capital_i(ev, nd->low, nd->len, w);
    if (at >= 0) { *found = at; return IFS_OK; }
  }
  const ifs_buf *h = lowered_response(ev, w);
  if (!h) return IFS_NOMEM;
  *found = ifs_find(h->p, h->len, nd->low, nd->len) != NULL;
  return IFS_OK;
}

/* One needle: `needle.lower() in resp.lower()`; the empty needle is in
** every text.  A plan with a set asks it once per row for all needles;
** a needle it leaves undecided is searched for on its own. */
static ifs_status run_needle(ifs_evaluator *ev, ifs_result *r, row *w, const plan *pl,
                             const plan_check *c) {
  int found = 1;
  if (c->low_len) {
    size_t j = (size_t)(c - pl->checks) - pl->first_needle;
    const ifs_needle *nd = &pl->needles[j];
    if (!nd->len)   /* the work plan's, first use */
      ifs_needle_init(&ev->wneedles[j], pl->text + c->low_at, c->low_len);
    if (needle_in_response(ev, w, nd, &found)) return IFS_NOMEM;
  }
  return add_check(r, pl, c, c->kind == IFS_MUST_INCLUDE ? found : !found, 0);
}

/* How many of found[from .. to) are 1 (each is 0 or 1): eight a step, a
** word's bytes summed by one product, as a list of a thousand phrases is
** counted on every row. */
static size_t count_found(const signed char *found, size_t from, size_t to) {
  const uint64_t ones = 0x0101010101010101ull;
  size_t n = 0, j = from;
  for (; j + 8 <= to; j += 8) {
    uint64_t w;
    memcpy(&w, found + j, 8);
    n += (size_t)((w * ones) >> 56);
  }
  for (; j < to; j++) n += (size_t)found[j];
  return n;
}

/* The set's checks count now and are written when read (write_needle_checks):
** a score needs no records of sixty needles. */
static void add_needle_checks(ifs_result *r, const plan *pl, size_t first,
                              const signed char *found) {
  size_t included = count_found(found, 0, pl->n_include);
  size_t excluded = pl->nn - pl->n_include - count_found(found, pl->n_include, pl->nn);
  r->unwritten.at = r->total;
  r->unwritten.n = pl->nn;
  r->unwritten.n_include = pl->n_include;
  r->unwritten.from = first;
  r->total += pl->nn;
  r->passed += included + excluded;
}

/* 1 when check i of r is the set's unwritten check *j; 0 when it has its record. */
static int unwritten(const ifs_result *r, size_t i, size_t *j) {
  *j = i - r->unwritten.at;
  return i >= r->unwritten.at && *j < r->unwritten.n;
}

/* Whether the set's unwritten check j passed: an include found, an exclude not. */
static int unwritten_ok(const ifs_result *r, const signed char *found, size_t j) {
  return found[j] ^ (j >= r->unwritten.n_include);
}

/* Check i of r: its record, or for one of the set's unwritten checks, what
** it would hold, from found[] of the evaluation that left it unwritten. */
static ifs_check check_of(const ifs_result *r, const signed char *found, size_t i) {
  size_t j;
  if (!unwritten(r, i, &j)) return r->checks[i];
  return (ifs_check){.kind = j < r->unwritten.n_include ? IFS_MUST_INCLUDE : IFS_MUST_EXCLUDE,
                     .ok = unwritten_ok(r, found, j), .from = r->unwritten.from + j};
}

/* Whether check i of r passed (check_of(r, found, i).ok, without the rest). */
static int check_ok(const ifs_result *r, const signed char *found, size_t i) {
  size_t j;
  return unwritten(r, i, &j) ? unwritten_ok(r, found, j) : r->checks[i].ok;
}

static void write_needle_checks(ifs_result *r, const signed char *found) {
  for (size_t i = r->unwritten.at; i < r->unwritten.at + r->unwritten.n; i++)
    r->checks[i] = check_of(r, found, i);
  r->unwritten.n = 0;
}

/* One set's answers, found[] for its needles: searched for in the response
** where lowering maps characters or no needle of the plan meets a context
** lowercase, else in resp.lower() (lowering lowered text changes nothing). */
static inline ifs_status set_find(ifs_evaluator *ev, row *w, const plan *pl,
                                  const ifs_needle_set *set, const char *needles,
                                  signed char *found) {
  if (w->plain_lower || !pl->meets_context) {
    ifs_needle_set_find(set, needles, w->resp, w->rn, w->plain_lower && w->ascii, found);
    return IFS_OK;
  }
  const ifs_buf *h = lowered_response(ev, w);
  if (!h) return IFS_NOMEM;
  ifs_needle_set_find(set, needles, h->p ? h->p : "", h->len, 0, found);
  return IFS_OK;
}

/* found[0 .. nn) from the plan's set or its lists' sets; -1 for a needle
** no set answers (in a list too short for one). */
static ifs_status set_answers(ifs_evaluator *ev, row *w, const plan *pl, signed char *found) {
  if (pl->set) return set_find(ev, w, pl, pl->set, pl->text, found);
  memset(found, -1, pl->nn);
  for (size_t l = 0; l < pl->nlists; l++) {
    const list_set *ls = &pl->lists[l];
    if (set_find(ev, w, pl, ls->set, ls->text, found + ls->first)) return IFS_NOMEM;
  }
  return IFS_OK;
}

/* Needle j of a plan (check first + j), when absent and ending in "i",
** tried through U+0130. */
static void try_through_dotted_i(ifs_evaluator *ev, row *w, const plan *pl, size_t first,
                                 size_t j, signed char *found) {
  const plan_check *c = &pl->checks[first + j];
  if (found[j] == 0 && ends_in_i(pl->text + c->low_at, c->low_len))
    found[j] = (signed char)ends_at_dotted_capital_i(ev, pl->text + c->low_at, c->low_len, w);
}

/* The absent needles ending in "i" of a plan with sets (checks first ..
** first + nn - 1), tried through U+0130: a kept plan knows which end so;
** else every absent one is read. */
static void absent_through_dotted_i(ifs_evaluator *ev, row *w, const plan *pl, size_t first,
                                    signed char *found) {
  if (pl->knows_ends_in_i) {
    for (uint64_t m = pl->ends_in_i; m; m &= m - 1)
      try_through_dotted_i(ev, w, pl, first, (size_t)__builtin_ctzll(m), found);
    return;
  }
  for (size_t j = 0; j < pl->nn; j++) try_through_dotted_i(ev, w, pl, first, j, found);
}

/* All needles of a plan with sets, checks first .. first + nn - 1 (they
** are consecutive, includes first): the plan's set answers them in one
** pass (a plan used once: each long list's kept set in a pass of its own),
** over the response or resp.lower() (set_find); one no set decides (left
** undecided, or in a short list beside a long one) is searched for on its
** own.  The checks themselves are read only for the needles left
** undecided and, in a text with U+0130, those ending in "i". */
static ifs_status run_needle_set(ifs_evaluator *ev, ifs_result *r, row *w, const plan *pl,
                                 size_t first) {
  signed char *found = ev->found;
  if (set_answers(ev, w, pl, found)) return IFS_NOMEM;
  if (!w->plain_lower && !pl->meets_context) absent_through_dotted_i(ev, w, pl, first, found);
  for (const signed char *u = memchr(found, -1, pl->nn); u;   /* the undecided */
       u = memchr(u + 1, -1, (size_t)(found + pl->nn - u - 1))) {
    size_t j = (size_t)(u - found);
    const plan_check *c = &pl->checks[first + j];
    ifs_needle nd;
    int f = 1;
    if (c->low_len) {
      ifs_needle_init(&nd, pl->text + c->low_at, c->low_len);
      if (needle_in_response(ev, w, &nd, &f)) return IFS_NOMEM;
    }
    found[j] = (signed char)f;
  }
  if (reserve_checks(r, pl->nn)) return IFS_NOMEM;
  add_needle_checks(r, pl, first, found);
  return IFS_OK;
}

static ifs_status run_regex(ifs_evaluator *ev, ifs_result *r, row *w, const plan *pl,
                            const plan_check *c) {
  const char *pat = pl->text + c->arg_at;
  int matched = 0;
  ifs_status rc = w->strict_utf8
      ? ifs_regex_search_utf8(ev->regex, pat, c->arg_len, w->resp, w->rn, &matched)
      : ifs_regex_search(ev->regex, pat, c->arg_len, w->resp, w->rn, &matched);
  if (rc == IFS_NOMEM) return IFS_NOMEM;
  return add_check(r, pl, c, rc == IFS_OK && matched, (size_t)rc);
}

static ifs_status run_plan(ifs_evaluator *ev, ifs_result *r, row *w, const plan *pl) {
  ifs_status rc = IFS_OK;
  for (size_t i = 0; i < pl->n && !rc; i++) {
    const plan_check *c = &pl->checks[i];
    switch (c->kind) {
      case IFS_MAX_WORDS: case IFS_MIN_WORDS: case IFS_MAX_CHARS:
        rc = run_limit(r, w, pl, c);
        break;
      case IFS_MUST_BE_JSON: rc = run_json(r, w, pl, c); break;
      case IFS_MUST_INCLUDE: case IFS_MUST_EXCLUDE:
        if (!has_sets(pl)) {
          rc = run_needle(ev, r, w, pl, c);
          break;
        }
        rc = run_needle_set(ev, r, w, pl, i);
        i += pl->nn - 1;
        break;
      case IFS_REGEX: rc = run_regex(ev, r, w, pl, c); break;
    }
  }
  return rc;
}

/* The label of check k, appended to b. */
static void append_label(ifs_buf *b, const plan *pl, const ifs_check *k) {
  const plan_check *c = &pl->checks[k->from];
  const char *arg = pl->text + c->arg_at;
  switch (c->kind) {
    case IFS_MAX_WORDS: case IFS_MIN_WORDS: case IFS_MAX_CHARS:
      ifs_buf_append(b, kind_names[c->kind].s, kind_names[c->kind].len);
      if (c->invalid) { ifs_buf_append_str(b, " (invalid value)"); break; }
      ifs_buf_append_str(b, c->kind == IFS_MIN_WORDS ? ">=" : "<=");
      ifs_buf_append(b, arg, c->arg_len);
      ifs_buf_append_str(b, " (got ");
      ifs_buf_append_u64(b, k->got);
      ifs_buf_append_char(b, ')');
      break;
    case IFS_MUST_BE_JSON: ifs_buf_append_str(b, "must_be_json"); break;
    case IFS_MUST_INCLUDE: case IFS_MUST_EXCLUDE:
      ifs_buf_append_str(b, c->kind == IFS_MUST_INCLUDE ? "must_include '" : "must_exclude '");
      ifs_buf_append(b, arg, c->arg_len);
      ifs_buf_append_char(b, '\'');
      break;
    case IFS_REGEX:
      ifs_buf_append_str(b, "regex /");
      ifs_buf_append(b, arg, c->arg_len);
      ifs_buf_append_char(b, '/');
      if (k->got == IFS_INVALID) ifs_buf_append_str(b, " (invalid pattern)");
      if (k->got == IFS_LIMIT) ifs_buf_append_str(b, " (match limit exceeded)");
      break;
  }
}

/* The reason, with the labels of the failed checks written in place. */
static ifs_status build_reason(ifs_result *r, const plan *pl, const signed char *found) {
  ifs_buf *b = &r->reason;
  if (r->passed == r->total) {
    ifs_buf_append_str(b, "all ");
    ifs_buf_append_u64(b, r->total);
    ifs_buf_append_str(b, " constraints satisfied");
    return b->oom ? IFS_NOMEM : IFS_OK;
  }
  ifs_buf_append_u64(b, r->passed);
  ifs_buf_append_char(b, '/');
  ifs_buf_append_u64(b, r->total);
  ifs_buf_append_str(b, " satisfied; failed: ");
  int first = 1;
  for (size_t i = 0; i < r->total; i++) {   /* the set's checks need not be written */
    if (check_ok(r, found, i)) continue;
    ifs_check c = check_of(r, found, i);
    if (!first) ifs_buf_append_str(b, "; ");
    append_label(b, pl, &c);
    first = 0;
  }
  return b->oom ? IFS_NOMEM : IFS_OK;
}

static ifs_status inconclusive_reason(ifs_result *r) {
  static const char *const reasons[] = {
    [IFS_NO_CONSTRAINTS] = "no constraints specified \xE2\x80\x94 cannot score",
    [IFS_BAD_JSON] = "invalid constraints JSON \xE2\x80\x94 cannot score",
    [IFS_NOT_OBJECT] = "constraints must be a JSON object \xE2\x80\x94 cannot score",
    [IFS_NO_RECOGNIZED] = "no recognized constraints \xE2\x80\x94 cannot score",
  };
  return ifs_buf_append_str(&r->reason, reasons[r->verdict]);
}

static void result_reset(ifs_result *r, const ifs_evaluator *ev) {
  r->verdict = IFS_SCORED;
  r->passed = r->total = 0;
  r->unwritten.n = 0;
  r->score = 0;
  r->explained = r->has_reason = 0;
  r->plan = NULL;
  r->evaluation = ev->evaluation;
  ifs_buf_clear(&r->labels);
  ifs_buf_clear(&r->reason);
}

ifs_status ifs_evaluate_scores(ifs_evaluator *ev, const char *resp, size_t rn,
                               const char *cons, size_t cn, ifs_result *r) {
  ev->evaluation++;
  result_reset(r, ev);
  if (!cons) { r->verdict = IFS_NO_CONSTRAINTS; return IFS_OK; }
  /* the response is read before the plan is: a kept plan's lines come in meanwhile */
  plan *pl = plan_if_last(ev, cons, cn);
  const plan_next *expected = pl ? NULL : expected_plan(ev);
  plan *expected_lists = NULL;   /* found by its lists, not its text */
  if (expected && expected->by_lists) {
    expected_lists = expected->pl;
    expected = NULL;
  }
  ahead a;
  int looked_ahead = !pl && !expected;
  if (looked_ahead && plan_ahead(ev, cons, cn, expected_lists, &a)) return IFS_NOMEM;
  row w = {0};
  if (!resp) { resp = ""; rn = 0; }
  if (read_response(ev, &w, resp, rn)) return IFS_NOMEM;
  if (!pl) pl = expected_plan_if(ev, expected, cons, cn);
  expected = NULL;   /* get_plan may drop the plan it is part of */
  if (!pl && !looked_ahead && plan_ahead(ev, cons, cn, NULL, &a)) return IFS_NOMEM;
  if (!pl) pl = get_plan(ev, cons, cn, &a);
  if (!pl) return IFS_NOMEM;
  follow_plan(ev, pl);
  r->plan = pl;
  if (pl->verdict != IFS_SCORED) { r->verdict = pl->verdict; return IFS_OK; }
  ifs_status rc = run_plan(ev, r, &w, pl);
  if (rc) return rc;
  r->score = (double)r->passed / (double)r->total;
  return IFS_OK;
}

#ifdef IFS_TESTING
const char *ifs_test_evaluator_ahead(const ifs_evaluator *ev, size_t *n) {
  const plan_next *x = ev->prev ? next_of(ev, ev->prev) : NULL;
  if (!x || !x->again) return NULL;
  *n = plan_key_bytes(x->pl);
  return plan_key(x->pl);
}

size_t ifs_test_evaluator_lists_copied(const ifs_evaluator *ev) { return ev->lists_copied; }

size_t ifs_test_evaluator_lists_in_place(const ifs_evaluator *ev) { return ev->lists_in_place; }

size_t ifs_test_evaluator_plans_kept(const ifs_evaluator *ev) { return ev->count; }

size_t ifs_test_evaluator_compiles(const ifs_evaluator *ev) { return ev->compiles; }

size_t ifs_test_evaluator_table_looks(const ifs_evaluator *ev) { return ev->table_looks; }

size_t ifs_test_evaluator_text_hashes(const ifs_evaluator *ev) { return ev->text_hashes; }

size_t ifs_test_evaluator_list_lookups(const ifs_evaluator *ev) {
  return ev->compiled ? ifs_test_list_cache_lookups(ev->compiled) : 0;
}

size_t ifs_test_evaluator_plans_sharing(const ifs_evaluator *ev) {
  size_t n = 0;
  for (size_t i = 0; ev->table && i < PLAN_TABLE; i++)
    n += ev->table[i].pl && ev->table[i].pl->nshared;
  return n;
}

void ifs_test_evaluator_same_hash(ifs_evaluator *ev) { ev->same_hash = 1; }

void ifs_test_evaluator_lists_bound(ifs_evaluator *ev, size_t bytes) { ev->lists_bound = bytes; }

size_t ifs_test_evaluator_lists_plans(const ifs_evaluator *ev, size_t *bytes) {
  size_t n = 0, sum = 0;
  for (size_t i = 0; ev->by_lists && i < BY_LISTS_SLOTS; i++) {
    const plan *pl = ev->by_lists[i];
    if (!pl) continue;
    if (!pl->by_lists || !ev->lists_tags[i]) return (size_t)-1;
    n++;
    sum += plan_size(pl, plan_head_bytes(pl));
  }
  *bytes = sum;
  return sum == ev->by_lists_bytes ? n : (size_t)-1;
}

void ifs_test_evaluator_share_from(ifs_evaluator *ev, size_t bytes) {
  ev->share_from_set = 1;
  ev->share_from = bytes;
}
#endif

ifs_status ifs_result_checks(ifs_evaluator *ev, ifs_result *r) {
  if (!r->unwritten.n) return IFS_OK;
  if (!r->evaluation || r->evaluation != ev->evaluation) return IFS_INVALID;
  write_needle_checks(r, ev->found);
  return IFS_OK;
}

ifs_status ifs_result_reason(ifs_evaluator *ev, ifs_result *r) {
  if (r->has_reason) return IFS_OK;
  if (!r->evaluation || r->evaluation != ev->evaluation) return IFS_INVALID;
  ifs_buf_clear(&r->reason);
  ifs_status rc = r->verdict != IFS_SCORED ? inconclusive_reason(r)
                                           : build_reason(r, r->plan, ev->found);
  if (rc) return IFS_NOMEM;
  r->has_reason = 1;
  return IFS_OK;
}

ifs_status ifs_result_explain(ifs_evaluator *ev, ifs_result *r) {
  if (r->explained) return IFS_OK;
  if (!r->evaluation || r->evaluation != ev->evaluation) return IFS_INVALID;
  ifs_result_checks(ev, r);
  ifs_buf_clear(&r->labels);
  for (size_t i = 0; r->verdict == IFS_SCORED && i < r->total; i++) {
    ifs_check *k = &r->checks[i];
    k->label_at = r->labels.len;
    append_label(&r->labels, r->plan, k);
    k->label_len = r->labels.len - k->label_at;
  }
  if (r->labels.oom || ifs_result_reason(ev, r)) return IFS_NOMEM;
  r->explained = 1;
  return IFS_OK;
}

ifs_status ifs_evaluate(ifs_evaluator *ev, const char *resp, size_t rn,
                 const char *cons, size_t cn, ifs_result *r) {
  ifs_status rc = ifs_evaluate_scores(ev, resp, rn, cons, cn, r);
  return rc ? rc : ifs_result_explain(ev, r);
}
