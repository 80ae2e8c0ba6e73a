/*
** ifs_eval.h — the evaluator: the reference's evaluate_response() on
** (response, constraints) bytes, with the SQL setting's additions
** (docs/spec.md sections 1 and 2).
**
** An ifs_evaluator holds what is reused from row to row on one
** connection: the compiled-regex cache and scratch buffers.
**
** A score needs no labels: ifs_evaluate_scores() leaves the labels and the
** reason to ifs_result_explain() (or the reason alone to
** ifs_result_reason()), which build them from the evaluator's compiled
** constraints while it has evaluated nothing since.
*/
#ifndef IFS_EVAL_H
#define IFS_EVAL_H

#include "ifs_common.h"
#include "ifs_regex.h"

typedef enum ifs_kind {
  IFS_MAX_WORDS, IFS_MIN_WORDS, IFS_MAX_CHARS, IFS_MUST_BE_JSON,
  IFS_MUST_INCLUDE, IFS_MUST_EXCLUDE, IFS_REGEX
} ifs_kind;

typedef enum ifs_verdict {
  IFS_SCORED,
  IFS_NO_CONSTRAINTS,     /* constraints NULL or falsy */
  IFS_BAD_JSON,           /* constraints not valid JSON text */
  IFS_NOT_OBJECT,         /* truthy but not an object */
  IFS_NO_RECOGNIZED       /* an object that produced no check */
} ifs_verdict;

typedef struct ifs_check {
  ifs_kind kind;
  int ok;
  size_t label_at, label_len;   /* in ifs_result.labels */
  size_t from;                  /* for labels: the compiled check, */
  size_t got;                   /* and the count or the regex answer */
} ifs_check;

typedef struct ifs_result {
  ifs_verdict verdict;
  size_t passed, total;
  double score;                 /* passed / total when IFS_SCORED */
  ifs_check *checks;
  size_t cap;
  struct {                      /* a needle set's checks, not written yet: */
    size_t at, n, n_include;    /* checks[at .. at + n) (n == 0: none), */
    size_t from;                /* compiled checks from .. from + n - 1 */
  } unwritten;
  ifs_buf labels;               /* every label, back to back, internal UTF-8 */
  ifs_buf reason;               /* the reason string, internal UTF-8 */
  int explained;                /* labels and reason are built */
  int has_reason;               /* the reason is */
  const void *plan;             /* what they are built from, */
  uint64_t evaluation;          /* valid during this evaluation of the evaluator */
} ifs_result;

typedef struct ifs_evaluator ifs_evaluator;

ifs_evaluator *ifs_evaluator_new(void);            /* NULL on OOM */
void ifs_evaluator_free(ifs_evaluator *ev);
ifs_regex_cache *ifs_evaluator_regex(ifs_evaluator *ev);

void ifs_result_init(ifs_result *r);
void ifs_result_free(ifs_result *r);

/* Evaluates one row.  resp may be NULL (read as ""); cons NULL means SQL
** NULL.  IFS_OK with *r filled, or IFS_NOMEM. */
ifs_status ifs_evaluate(ifs_evaluator *ev, const char *resp, size_t rn,
                 const char *cons, size_t cn, ifs_result *r);

/* The same without labels and reason: verdict, score, passed and total
** are filled, and each check's kind and ok but for the needle set's, which
** ifs_result_checks() writes when asked (a score does not need them). */
ifs_status ifs_evaluate_scores(ifs_evaluator *ev, const char *resp, size_t rn,
                               const char *cons, size_t cn, ifs_result *r);

/* Writes each check's kind and ok in a result of ev, if not written yet:
** IFS_OK, or IFS_INVALID when ev has evaluated another row since (the
** needle set's answers are gone: evaluate again). */
ifs_status ifs_result_checks(ifs_evaluator *ev, ifs_result *r);

/* Builds the labels and the reason of a result of ev, if not built yet:
** IFS_OK, IFS_NOMEM, or IFS_INVALID when ev has evaluated another row since
** (what they are built from is gone: evaluate again). */
ifs_status ifs_result_explain(ifs_evaluator *ev, ifs_result *r);

/* The same for the reason alone (the labels stay unbuilt). */
ifs_status ifs_result_reason(ifs_evaluator *ev, ifs_result *r);

#ifdef IFS_TESTING
/* Test hook: the key of the kept plan asked for ahead of the next row, the
** plan that followed this row's the last two times (*n: its bytes; the
** constraints text but the lists it shares with the list cache), or NULL
** when none is. */
const char *ifs_test_evaluator_ahead(const ifs_evaluator *ev, size_t *n);

/* Test hook: how many lists of needles were copied from the list cache
** rather than read from their JSON. */
size_t ifs_test_evaluator_lists_copied(const ifs_evaluator *ev);

/* Test hook: of those, how many the last compile had left in place. */
size_t ifs_test_evaluator_lists_in_place(const ifs_evaluator *ev);

/* Test hook: how many plans are kept. */
size_t ifs_test_evaluator_plans_kept(const ifs_evaluator *ev);

/* Test hook: how many constraints texts have been compiled. */
size_t ifs_test_evaluator_compiles(const ifs_evaluator *ev);

/* Test hook: how many times a row has looked its text up in the plan
** table (a flat text of the plan the link names does not). */
size_t ifs_test_evaluator_table_looks(const ifs_evaluator *ev);

/* Test hook: how many times a row has hashed its constraints text (a
** flat text of the plan the link names does not, unless back soon). */
size_t ifs_test_evaluator_text_hashes(const ifs_evaluator *ev);

/* Test hook: how many lists the list cache has looked up by their hash
** (a flat text of the plan the link names finds its lists where that
** plan says they are). */
size_t ifs_test_evaluator_list_lookups(const ifs_evaluator *ev);

/* Test hook: how many kept plans share a list with the list cache. */
size_t ifs_test_evaluator_plans_sharing(const ifs_evaluator *ev);

/* Test hook: every constraints text's plan gets the same hash from now on,
** so that only the comparison of their bytes tells kept plans apart. */
void ifs_test_evaluator_same_hash(ifs_evaluator *ev);

/* Test hook: kept plans whose two lists are both shared share them once
** the kept plans hold this many bytes (0: from the first), not the
** built-in bound. */
void ifs_test_evaluator_share_from(ifs_evaluator *ev, size_t bytes);

/* Test hook: the plans kept by their lists keep within this many bytes,
** not the built-in bound. */
void ifs_test_evaluator_lists_bound(ifs_evaluator *ev, size_t bytes);

/* Test hook: how many plans are kept by their lists, their bytes in
** *bytes; (size_t)-1 when the bytes counted are not their sum, or a slot
** holds a plan not kept by its lists or without a tag. */
size_t ifs_test_evaluator_lists_plans(const ifs_evaluator *ev, size_t *bytes);
#endif

/* The kind's name as if_checks shows it ("max_words", ...). */
const char *ifs_kind_name(ifs_kind k);

/* The fence-stripped span of a response (internal UTF-8) that
** must_be_json hands to the JSON reader. */
void ifs_strip_fences(const char *s, size_t n, size_t *start, size_t *end);

#endif
