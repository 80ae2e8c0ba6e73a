/*
** ifs_memo.h — the last row's arguments, so that the functions called on
** one row (if_score, if_reason, if_pass, if_eval) evaluate it once.
**
** The glue asks ifs_memo_hit() before evaluating: 1 means the arguments
** are byte for byte those stored last, so the result kept with them is
** theirs.  Otherwise it calls ifs_memo_forget(), evaluates, and stores the
** arguments with ifs_memo_store().
**
** Keeping the arguments costs a copy of both texts at every row, which a
** query calling one function per row never reuses (a few percent of its
** time).  So the memo copies only while copies are reused: after
** IFS_MEMO_IDLE consecutive rows that no call reused, it keeps a sketch of
** the arguments instead (their lengths and their first and last eight
** bytes).  A call whose arguments fit the sketch, most likely a second
** function on the same row, is not a hit (a sketch proves nothing): the
** row is evaluated again, and the memo copies from then on.  A memo
** starts that way, with sketches.
*/
#ifndef IFS_MEMO_H
#define IFS_MEMO_H

#include "ifs_common.h"

#define IFS_MEMO_IDLE 64   /* rows stored without a reuse before copies stop */

/* Lengths (SIZE_MAX for SQL NULL) and first and last eight bytes. */
typedef struct ifs_memo_sketch {
  size_t rn, cn;
  uint64_t resp_ends[2], cons_ends[2];
} ifs_memo_sketch;

typedef struct ifs_memo {
  int valid;                 /* resp and cons hold the last arguments */
  int copying;               /* the memo copies (else it sketches) */
  int fits_sketch;           /* the call being evaluated fits the sketch */
  unsigned idle;             /* rows stored since a copy was last reused */
  int resp_null, cons_null;
  ifs_buf resp, cons;
  int sketched;              /* sketch describes the last arguments */
  ifs_memo_sketch sketch;
  int asked_sketched;        /* asked: the call being evaluated's sketch */
  ifs_memo_sketch asked;
} ifs_memo;

void ifs_memo_init(ifs_memo *m);
void ifs_memo_free(ifs_memo *m);

/* 1 when (resp, cons) (NULL for SQL NULL) are the arguments stored last. */
int ifs_memo_hit(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn);

/* Before evaluating: the result kept no longer belongs to anything. */
void ifs_memo_forget(ifs_memo *m);

/* After evaluating (resp, cons), with ifs_memo_hit() asked of them first. */
ifs_status ifs_memo_store(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn);

#endif
