/*
** ifs_heap.c — a connection's cache memory (see ifs_heap.h).
**
** A block is a header of 16 bytes (the heap it came from, NULL for a block
** of its own; its size class) and the caller's bytes after it.  Size
** classes, header included: 64 to 1,024 bytes by 64, then four to each
** doubling, up to IFS_HEAP_BLOCK_MAX (a block wastes at most a fifth).
** Blocks are carved from a chunk's start, 64-byte aligned, in the order they
** are asked for; a free list of a class is tried first.  When a block does
** not fit in the chunk's rest, that rest goes to the free lists (the
** largest classes that fit) and a new chunk starts.  Chunks double from
** FIRST_CHUNK to IFS_HEAP_HUGE_CHUNK, so that a connection that keeps
** little takes little.
**
** Under AddressSanitizer every block is its own allocation
** (IFS_HEAP_OWN_BLOCKS), so that it checks each block's bounds: a chunk
** would be one allocation to it.
**
** Entry points: ifs_heap_alloc(), ifs_heap_release().
*/
#include "ifs_heap.h"
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HEADER 16
#define SMALL_CLASSES 16                      /* 64 .. 1,024 bytes */
#define CLASSES (SMALL_CLASSES + 4 * 6)       /* .. 65,536 */
#define OWN UINT32_MAX                        /* a block of its own */
#define FIRST_CHUNK ((size_t)128 << 10)
#define CHUNK_HEADER 64
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* A block of the largest class fits in any chunk, past its header. */
_Static_assert(IFS_HEAP_BLOCK_MAX + CHUNK_HEADER + 64 <= FIRST_CHUNK, "first chunk too small");

typedef struct header {
  ifs_heap *heap;          /* NULL: a block of its own (in a free list: the next) */
  uint32_t cls, unused;
} header;

typedef struct chunk {
  struct chunk *next;
} chunk;

struct ifs_heap {
  char *at, *end;          /* the current chunk's bytes not carved yet */
  header *free[CLASSES];   /* per class, blocks freed, linked by their heap field */
  chunk *chunks;
  size_t bytes, next_chunk;
};

ifs_heap *ifs_heap_new(void) {
  ifs_heap *h = ifs_malloc(sizeof *h);
  if (!h) return NULL;
  memset(h, 0, sizeof *h);
  h->next_chunk = FIRST_CHUNK;
  return h;
}

void ifs_heap_free(ifs_heap *h) {
  if (!h) return;
  for (chunk *k = h->chunks, *next; k; k = next) {
    next = k->next;
    ifs_free(k);
  }
  ifs_free(h);
}

size_t ifs_heap_bytes(const ifs_heap *h) { return h ? h->bytes : 0; }

static size_t class_bytes(unsigned c) {
  if (c < SMALL_CLASSES) return 64 * (size_t)(c + 1);
  size_t base = (size_t)1024 << ((c - SMALL_CLASSES) / 4);
  return base + base / 4 * ((c - SMALL_CLASSES) % 4 + 1);
}

/* The smallest class of at least t bytes (t <= IFS_HEAP_BLOCK_MAX). */
static unsigned class_of(size_t t) {
  if (t <= 1024) return (unsigned)((t + 63) / 64) - 1;
  unsigned c = SMALL_CLASSES;
  while (class_bytes(c) < t) c++;
  return c;
}

static void push_free(ifs_heap *h, header *b, unsigned c) {
  b->heap = (ifs_heap *)(void *)h->free[c];
  h->free[c] = b;
}

/* The current chunk's rest, to the free lists, largest classes first. */
static void keep_rest(ifs_heap *h) {
  for (unsigned c = CLASSES; c-- > 0;)
    while ((size_t)(h->end - h->at) >= class_bytes(c)) {
      push_free(h, (header *)(void *)h->at, c);
      h->at += class_bytes(c);
    }
}

/* Advises the kernel to back a chunk's whole huge pages with huge pages:
** advice only, its failure changes nothing. */
static void advise_huge(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t to = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
  if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

/* A new chunk, the current one's rest kept; 0 when the heap is full or
** out of memory. */
static int new_chunk(ifs_heap *h) {
  size_t n = h->next_chunk;
  if (h->bytes + n > IFS_HEAP_MAX) return 0;
  chunk *k = ifs_malloc(n);
  if (!k) return 0;
  keep_rest(h);
  k->next = h->chunks;
  h->chunks = k;
  h->bytes += n;
  if (n < IFS_HEAP_HUGE_CHUNK) h->next_chunk = 2 * n;
  else advise_huge(k, n);
  uintptr_t start = ((uintptr_t)k + CHUNK_HEADER + 63) & ~(uintptr_t)63;
  h->at = (char *)k + (start - (uintptr_t)k);
  h->end = (char *)k + n;
  return 1;
}

/* A block of class c from h's free list or chunks; NULL when none. */
static header *take(ifs_heap *h, unsigned c) {
  header *b = h->free[c];
  if (b) {
    h->free[c] = (header *)(void *)b->heap;
    return b;
  }
  size_t n = class_bytes(c);
  if ((size_t)(h->end - h->at) < n && !new_chunk(h)) return NULL;
  b = (header *)(void *)h->at;
  h->at += n;
  return b;
}

#ifdef IFS_HEAP_OWN_BLOCKS
#define OWN_BLOCKS 1
#else
#define OWN_BLOCKS 0
#endif

void *ifs_heap_alloc(ifs_heap *h, size_t n) {
  if (!OWN_BLOCKS && h && n <= IFS_HEAP_BLOCK_MAX - HEADER) {
    unsigned c = class_of(n + HEADER);
    header *b = take(h, c);
    if (b) {
      b->heap = h;
      b->cls = c;
      return b + 1;
    }
  }
  if (n > SIZE_MAX - HEADER) return NULL;
  header *b = ifs_malloc(n + HEADER);
  if (!b) return NULL;
  b->heap = NULL;
  b->cls = OWN;
  return b + 1;
}

void ifs_heap_release(void *p) {
  if (!p) return;
  header *b = (header *)p - 1;
  if (!b->heap) {
    ifs_free(b);
    return;
  }
  push_free(b->heap, b, b->cls);
}
