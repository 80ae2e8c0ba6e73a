/*
** ifs_alloc_sqlite.c — the core's allocator inside the extension: SQLite's,
** so that sqlite3_config(SQLITE_CONFIG_MALLOC), memory accounting and
** OOM simulation cover everything the extension allocates.
*/
#include "ifs_common.h"
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

void *ifs_malloc(size_t n) { return sqlite3_malloc64(n ? n : 1); }
void *ifs_realloc(void *p, size_t n) { return sqlite3_realloc64(p, n ? n : 1); }
void ifs_free(void *p) { sqlite3_free(p); }
