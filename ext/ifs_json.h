/*
** ifs_json.h — a JSON reader with CPython 3.11 json.loads rules.
**
** Input is internal UTF-8 (see ifs_text.h).  Accepted exactly when
** json.loads accepts: whitespace is space/tab/LF/CR only; NaN, Infinity,
** -Infinity; no leading zeros, '+', '.5', '1.'; U+0000..U+001F inside
** strings rejected; lone-surrogate \u escapes kept (a high + low escape
** pair joins); integers of more than 4300 digits rejected (CPython's int
** limit); any nesting depth (no recursion: an explicit stack).  Bytes
** >= 0x80 are accepted inside strings only.  Duplicate object keys:
** the last value wins, at the position of the first (as dict() builds).
*/
#ifndef IFS_JSON_H
#define IFS_JSON_H

#include "ifs_common.h"

typedef enum ifs_jtype {
  IFS_JNULL, IFS_JFALSE, IFS_JTRUE,
  IFS_JINT,     /* str/len: the literal, e.g. "-12" (exact, any size) */
  IFS_JFLOAT,   /* num: the double float() gives (inf for 1e400)     */
  IFS_JSTR,     /* str/len: decoded value in internal UTF-8          */
  IFS_JARR,     /* count, items                                      */
  IFS_JOBJ      /* count, keys (IFS_JSTR values), items              */
} ifs_jtype;

typedef struct ifs_jval ifs_jval;
struct ifs_jval {
  ifs_jtype type;
  int known;         /* IFS_JARR: taken as known, not read (ifs_json_known) */
  const char *str;   /* IFS_JINT, IFS_JSTR; arena-owned or inside the input */
  size_t len;
  double num;        /* IFS_JFLOAT */
  size_t count;      /* IFS_JARR, IFS_JOBJ; an IFS_JARR that is the value
                     ** of a key of the top-level object also has its own
                     ** text, '[' to ']', in str/len (ifs_json_parse_known) */
  ifs_jval **items;
  ifs_jval **keys;   /* IFS_JOBJ */
};

/* Parses s[0..n).  IFS_OK with *out set (allocated in arena a),
** IFS_INVALID when json.loads would raise, IFS_NOMEM. */
ifs_status ifs_json_parse(const char *s, size_t n, ifs_arena *a, ifs_jval **out);

/* A caller's test for the arrays that are the values of keys of the
** top-level object: the length of an array's text that s[0..n) (from its
** '[' on) starts with, when the caller has read that text before and
** knows it valid, else 0.  key: the key, decoded. */
typedef size_t (*ifs_json_known_fn)(void *arg, const char *key, size_t key_len,
                                    const char *s, size_t n);

/* ifs_json_parse, where an array the caller knows is not read again: its
** value is an IFS_JARR with known set, no items and its text in str/len
** (a refusal list in every row's constraints is parsed once). */
ifs_status ifs_json_parse_known(const char *s, size_t n, ifs_arena *a, ifs_json_known_fn known,
                                void *arg, ifs_jval **out);

/* A flat object's member (ifs_json_scan_flat): key (its bytes: no
** escapes) and the input from its value on.  Returns the length of the
** value's text taken as it is (an array the caller knows), 0 for a plain
** scalar to be read by the scan, or IFS_JSON_NOT_FLAT. */
typedef size_t (*ifs_json_member_fn)(void *arg, const char *key, size_t key_len,
                                     const char *s, size_t n);
#define IFS_JSON_NOT_FLAT ((size_t)-1)

/* 1 when s[0..n) is a flat object: one object, not empty, whose keys are
** printable ASCII without escapes and whose values are each either taken
** by member() or a plain scalar (a string of printable ASCII without
** escapes, an integer of at most 18 digits, true, false, null); then
** json.loads accepts it, and would give those keys those values.  0 for
** anything else, valid or not (member() may have been called).  Bytes
** past ASCII occur only in what member() takes, so that text is valid
** UTF-8 when those are. */
int ifs_json_scan_flat(const char *s, size_t n, ifs_json_member_fn member, void *arg);

/* Validates without building values: IFS_OK (valid), IFS_INVALID (json.loads
** would raise) or IFS_NOMEM. */
ifs_status ifs_json_valid(const char *s, size_t n);

/* The value of key (len bytes) in an object, or NULL. */
const ifs_jval *ifs_json_get(const ifs_jval *obj, const char *key, size_t len);

#endif
