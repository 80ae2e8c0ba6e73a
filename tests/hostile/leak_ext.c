/*
** leak_ext.c — the ifscore extension with one deliberate leak, for
** make test-valgrind: built as build/san/leak/ifscore.so (same entry point
** name, sqlite3_ifscore_init, the real one renamed at compile time), it
** must make the valgrind harness fail, which proves that the harness
** notices leaks at all.
*/
#include <sqlite3ext.h>
#include <stdlib.h>

int ifs_leak_real_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

int sqlite3_ifscore_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  void *volatile lost = malloc(64);   /* definitely lost once the pointer is dropped */
  (void)lost;
  lost = NULL;
  return ifs_leak_real_init(db, err, api);
}
