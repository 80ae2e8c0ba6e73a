/*
** ifs_alloc_std.c — the core's allocator for a host without SQLite
** (static linking into programs that do not want SQLite's allocator).
*/
#include "ifs_common.h"
#include <stdlib.h>

void *ifs_malloc(size_t n) { return malloc(n ? n : 1); }
void *ifs_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
void ifs_free(void *p) { free(p); }
