/*
** ifs_heap.h — a connection's cache memory: what a row reads together,
** allocated together, on huge pages where the system has them.
**
** A table whose every case has its own lists reads, at each row, a list
** kept in the list cache (its JSON and needles), the list's needle set and
** the plan kept for the row's lists, all cold.  Allocated by malloc among
** SQLite's pages and the host's objects, they lie apart, each on a page of
** its own, so that a row waits on four or five TLB misses besides the lines
** themselves.  Allocated from a heap of their own, one after the other,
** they lie side by side; and its chunks of IFS_HEAP_HUGE_CHUNK bytes are
** advised to the kernel as huge pages (Linux: MADV_HUGEPAGE).
**
** The heap's chunks come from ifs_malloc (SQLite's allocator: its memory
** accounting and limits see them).  A block freed goes to a free list of
** its size class and is reused for the next block of that class; chunks
** are freed with the heap.  The heap grows to at most IFS_HEAP_MAX bytes of
** chunks; past that, and for a block of more than IFS_HEAP_BLOCK_MAX bytes,
** a block is an ifs_malloc of its own.  Every block knows which it is, so
** that ifs_heap_release() frees either.
**
** Entry points: ifs_heap_new(), ifs_heap_alloc(), ifs_heap_release().
*/
#ifndef IFS_HEAP_H
#define IFS_HEAP_H

#include "ifs_common.h"

#define IFS_HEAP_MAX ((size_t)64 << 20)         /* bytes of chunks, at most */
#define IFS_HEAP_BLOCK_MAX ((size_t)64 << 10)   /* bytes of a block from a chunk */
#define IFS_HEAP_HUGE_CHUNK ((size_t)4 << 20)   /* chunks this big are advised */

/* Under AddressSanitizer, every block its own allocation (ifs_heap.c). */
#if defined(__SANITIZE_ADDRESS__)
#define IFS_HEAP_OWN_BLOCKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IFS_HEAP_OWN_BLOCKS 1
#endif
#endif

typedef struct ifs_heap ifs_heap;

/* An empty heap (no chunk yet), or NULL when out of memory. */
ifs_heap *ifs_heap_new(void);

/* Frees the heap and its chunks.  Its blocks are released first (a block
** of its own is not in a chunk). */
void ifs_heap_free(ifs_heap *h);

/* n bytes (8-byte aligned), from h's chunks, or of their own when h is NULL
** (or full, or n is over IFS_HEAP_BLOCK_MAX); NULL when out of memory. */
void *ifs_heap_alloc(ifs_heap *h, size_t n);

/* Frees a block of ifs_heap_alloc() (NULL: nothing). */
void ifs_heap_release(void *p);

/* The bytes of h's chunks. */
size_t ifs_heap_bytes(const ifs_heap *h);

#endif
