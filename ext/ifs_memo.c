/*
** ifs_memo.c — the last row's arguments, copied while copies are reused,
** else sketched (see ifs_memo.h).
**
** Entry points: ifs_memo_hit(), ifs_memo_store().
*/
#include "ifs_memo.h"
#include <string.h>

void ifs_memo_init(ifs_memo *m) {
  memset(m, 0, sizeof *m);
  ifs_buf_init(&m->resp);
  ifs_buf_init(&m->cons);
}

void ifs_memo_free(ifs_memo *m) {
  ifs_buf_free(&m->resp);
  ifs_buf_free(&m->cons);
  m->valid = m->sketched = 0;
}

static int holds(const ifs_buf *b, const char *s, size_t n) {
  return b->len == n && (n == 0 || memcmp(b->p, s, n) == 0);
}

/* The first and the last eight bytes of s (when it is shorter, its bytes
** zero-padded, twice); zeros for NULL.  Eight-byte loads: this runs at
** every row of a query that calls one function. */
static void ends_of(const char *s, size_t n, uint64_t ends[2]) {
  if (s && n >= 8) {
    memcpy(&ends[0], s, 8);
    memcpy(&ends[1], s + n - 8, 8);
    return;
  }
  ends[0] = 0;
  if (s) memcpy(&ends[0], s, n);
  ends[1] = ends[0];
}

static void sketch_of(ifs_memo_sketch *k, const char *resp, size_t rn, const char *cons,
                      size_t cn) {
  k->rn = resp ? rn : SIZE_MAX;
  k->cn = cons ? cn : SIZE_MAX;
  ends_of(resp, rn, k->resp_ends);
  ends_of(cons, cn, k->cons_ends);
}

static int same_sketch(const ifs_memo_sketch *a, const ifs_memo_sketch *b) {
  return ((a->rn ^ b->rn) | (a->cn ^ b->cn) | (a->resp_ends[0] ^ b->resp_ends[0]) |
          (a->resp_ends[1] ^ b->resp_ends[1]) | (a->cons_ends[0] ^ b->cons_ends[0]) |
          (a->cons_ends[1] ^ b->cons_ends[1])) == 0;
}

int ifs_memo_hit(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn) {
  if (m->valid && m->resp_null == !resp && m->cons_null == !cons &&
      (!resp || holds(&m->resp, resp, rn)) && (!cons || holds(&m->cons, cons, cn))) {
    m->idle = 0;
    return 1;
  }
  /* the call's sketch, made once: ifs_memo_store() keeps it */
  m->asked_sketched = !m->copying;
  if (m->asked_sketched) sketch_of(&m->asked, resp, rn, cons, cn);
  m->fits_sketch = m->asked_sketched && m->sketched && same_sketch(&m->asked, &m->sketch);
  return 0;
}

void ifs_memo_forget(ifs_memo *m) { m->valid = 0; }

static ifs_status copy(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn) {
  m->resp_null = !resp;
  m->cons_null = !cons;
  ifs_buf_clear(&m->resp);
  ifs_buf_clear(&m->cons);
  if ((resp && ifs_buf_append(&m->resp, resp, rn)) ||
      (cons && ifs_buf_append(&m->cons, cons, cn)))
    return IFS_NOMEM;
  m->valid = 1;
  return IFS_OK;
}

ifs_status ifs_memo_store(ifs_memo *m, const char *resp, size_t rn, const char *cons, size_t cn) {
  if (m->copying && ++m->idle > IFS_MEMO_IDLE) m->copying = 0;
  if (!m->copying && m->fits_sketch) {   /* asked twice: copies pay again */
    m->copying = 1;
    m->idle = 0;
  }
  m->fits_sketch = 0;
  m->valid = m->sketched = 0;
  if (m->copying) return copy(m, resp, rn, cons, cn);
  if (m->asked_sketched) m->sketch = m->asked;
  else sketch_of(&m->sketch, resp, rn, cons, cn);
  m->asked_sketched = 0;
  m->sketched = 1;
  return IFS_OK;
}
