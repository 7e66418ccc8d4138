/* Arena: a bump allocator over a list of blocks.
 *
 * Blocks double in size (4 KiB, 8 KiB, ... capped at 1 MiB per step unless a
 * single request needs more), so a decode of n bytes makes O(log n) calls to
 * malloc. Reset keeps only the largest block: a decoder that reuses its
 * arena for messages of a steady size stops calling malloc after the first. */
#include <stdlib.h>

#include "internal/arena.h"
#include "internal/port.h"

#define PBDYN_ARENA_MIN_BLOCK 4096
#define PBDYN_ARENA_MAX_STEP (1u << 20)

static pbdyn__block *block_new(size_t size) {
  pbdyn__block *b = malloc(sizeof(pbdyn__block) + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  return b;
}

pbdyn_arena *pbdyn_arena_new(size_t initial) {
  pbdyn_arena *a = malloc(sizeof *a);
  if (!a) return NULL;
  size_t size = initial ? PBDYN_ALIGN8(initial) : PBDYN_ARENA_MIN_BLOCK;
  pbdyn__block *b = block_new(size);
  if (!b) {
    free(a);
    return NULL;
  }
  a->blocks = b;
  a->ptr = b->data;
  a->end = b->data + size;
  a->used_before = 0;
  return a;
}

/* Not inlined into pbdyn_arena_alloc: its bump is then 8 instructions, not
 * 23 behind the pushes of the malloc path. */
PBDYN_NOINLINE void *pbdyn__arena_alloc_slow(pbdyn_arena *a, size_t size) {
  size_t last = a->blocks ? a->blocks->size : 0;
  size_t step = last < PBDYN_ARENA_MAX_STEP ? last * 2 : last + PBDYN_ARENA_MAX_STEP;
  if (step < PBDYN_ARENA_MIN_BLOCK) step = PBDYN_ARENA_MIN_BLOCK;
  if (step < size) step = PBDYN_ALIGN8(size);
  pbdyn__block *b = block_new(step);
  if (!b) return NULL;
  if (a->blocks) a->used_before += (size_t)(a->ptr - a->blocks->data);
  b->next = a->blocks;
  a->blocks = b;
  a->ptr = b->data + size;
  a->end = b->data + step;
  return b->data;
}

void *pbdyn_arena_alloc(pbdyn_arena *a, size_t size) {
  size = PBDYN_ALIGN8(size);
  if ((size_t)(a->end - a->ptr) >= size) {
    void *p = a->ptr;
    a->ptr += size;
    return p;
  }
  return pbdyn__arena_alloc_slow(a, size);
}

/* Free every block but the largest, which becomes the only one. */
static PBDYN_NOINLINE pbdyn__block *keep_largest(pbdyn__block *blocks) {
  pbdyn__block *keep = blocks;
  for (pbdyn__block *b = blocks; b; b = b->next)
    if (b->size > keep->size) keep = b;
  pbdyn__block *b = blocks;
  while (b) {
    pbdyn__block *next = b->next;
    if (b != keep) free(b);
    b = next;
  }
  keep->next = NULL;
  return keep;
}

/* A warm arena has one block: ~8 instructions, no frame. */
void pbdyn_arena_reset(pbdyn_arena *a) {
  pbdyn__block *keep = a->blocks;
  if (PBDYN_UNLIKELY(keep->next)) keep = keep_largest(keep);
  a->blocks = keep;
  a->ptr = keep->data;
  a->end = keep->data + keep->size;
  a->used_before = 0;
}

void pbdyn_arena_free(pbdyn_arena *a) {
  if (!a) return;
  pbdyn__block *b = a->blocks;
  while (b) {
    pbdyn__block *next = b->next;
    free(b);
    b = next;
  }
  free(a);
}

size_t pbdyn_arena_used(const pbdyn_arena *a) {
  return a->used_before + (size_t)(a->ptr - a->blocks->data);
}
