/* The arena's layout, shared by the allocator and the decoder's inline bump
 * allocation (the decoder copies ptr/end into its own state while it runs
 * and writes them back when it returns). */
#ifndef PBDYN_INTERNAL_ARENA_H
#define PBDYN_INTERNAL_ARENA_H

#include <stddef.h>

#include "pbdyn.h"

typedef struct pbdyn__block {
  struct pbdyn__block *next;
  size_t size; /* bytes of data[] */
  _Alignas(16) char data[];
} pbdyn__block;

struct pbdyn_arena {
  char *ptr;          /* next free byte of the current block */
  char *end;          /* end of the current block */
  pbdyn__block *blocks;   /* current block first */
  size_t used_before; /* bytes handed out from blocks before the current one */
};

/* Round up to the arena's alignment. */
#define PBDYN_ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* Slow path of every arena allocation: a new block of at least `size`. */
void *pbdyn__arena_alloc_slow(pbdyn_arena *a, size_t size);

#endif /* PBDYN_INTERNAL_ARENA_H */
