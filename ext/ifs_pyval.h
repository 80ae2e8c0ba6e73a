/*
** ifs_pyval.h — Python's int() and str() and truthiness of parsed JSON
** values, as the reference applies them to constraint values.
*/
#ifndef IFS_PYVAL_H
#define IFS_PYVAL_H

#include "ifs_json.h"

/* bool(v) in Python: null/false/0/0.0/-0.0/""/[]/{} are false, NaN true. */
int ifs_py_truthy(const ifs_jval *v);

/* int(v) as plain decimal text ("-3", "100000000000000000000") appended to
** out.  IFS_INVALID where Python raises TypeError/ValueError (null, arrays,
** objects, NaN, bad strings, more than 4300 digits) or OverflowError
** (+-Infinity); IFS_NOMEM.  Strings follow int(str): Python whitespace
** stripped, sign, digits of any script (Unicode Nd), single underscores
** between digits.  "-0" gives "0". */
ifs_status ifs_py_int(const ifs_jval *v, ifs_buf *out);

/* Compares a decimal integer text as ifs_py_int writes it with count:
** <0 when the integer is less than count, 0 equal, >0 greater. */
int ifs_int_cmp(const char *dec, size_t n, uint64_t count);

/* str(v) appended to out (internal UTF-8): strings as is; ints in decimal;
** floats as repr ('1.0', '1e+16', 'inf', 'nan', '-0.0'); True/False/None;
** lists and dicts as their repr, strings inside quoted as repr(str) does.
** Deep nesting does not recurse.  IFS_OK or IFS_NOMEM. */
ifs_status ifs_py_str(const ifs_jval *v, ifs_buf *out);

/* repr(float) appended to out: the shortest digits that read back as d. */
ifs_status ifs_py_float_repr(double d, ifs_buf *out);

/* The reprs of the floats printed last, by their bits.  A column of scores
** holds few values (passed / total), and each repr costs a few printf and
** strtod calls.  All zero is empty; one per connection, never shared. */
#define IFS_REPR_SLOT_BITS 5
#define IFS_REPR_SLOTS (1 << IFS_REPR_SLOT_BITS)
typedef struct ifs_repr_cache {
  uint64_t bits[IFS_REPR_SLOTS];
  unsigned char len[IFS_REPR_SLOTS];   /* 0: an empty slot */
  char text[IFS_REPR_SLOTS][24];       /* the longest repr: -2.2250738585072014e-308 */
} ifs_repr_cache;

/* ifs_py_float_repr(d, out) through the cache. */
ifs_status ifs_py_float_repr_cached(ifs_repr_cache *cache, double d, ifs_buf *out);

#endif
