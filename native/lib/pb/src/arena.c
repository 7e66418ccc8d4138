/* Arena: a bump allocator over a list of blocks.
 *
 * Blocks double in size (4 KiB, 8 KiB, ... capped at 1 MiB per step unless a
 * single request needs more), so a decode of n bytes makes O(log n) calls to
 * malloc. Reset keeps only the largest block: a decoder that reuses its
 * arena for messages of a steady size stops calling malloc after the first. */
#include <stdlib.h>

#include "internal/arena.h"

#define PB_ARENA_MIN_BLOCK 4096
#define PB_ARENA_MAX_STEP (1u << 20)

static pb_block *block_new(size_t size) {
  pb_block *b = malloc(sizeof(pb_block) + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  return b;
}

pb_arena *pb_arena_new(size_t initial) {
  pb_arena *a = malloc(sizeof *a);
  if (!a) return NULL;
  size_t size = initial ? PB_ALIGN8(initial) : PB_ARENA_MIN_BLOCK;
  pb_block *b = block_new(size);
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

void *pb_arena_alloc_slow(pb_arena *a, size_t size) {
  size_t last = a->blocks ? a->blocks->size : 0;
  size_t step = last < PB_ARENA_MAX_STEP ? last * 2 : last + PB_ARENA_MAX_STEP;
  if (step < PB_ARENA_MIN_BLOCK) step = PB_ARENA_MIN_BLOCK;
  if (step < size) step = PB_ALIGN8(size);
  pb_block *b = block_new(step);
  if (!b) return NULL;
  if (a->blocks) a->used_before += (size_t)(a->ptr - a->blocks->data);
  b->next = a->blocks;
  a->blocks = b;
  a->ptr = b->data + size;
  a->end = b->data + step;
  return b->data;
}

void *pb_arena_alloc(pb_arena *a, size_t size) {
  size = PB_ALIGN8(size);
  if ((size_t)(a->end - a->ptr) >= size) {
    void *p = a->ptr;
    a->ptr += size;
    return p;
  }
  return pb_arena_alloc_slow(a, size);
}

void pb_arena_reset(pb_arena *a) {
  pb_block *keep = a->blocks;
  for (pb_block *b = a->blocks; b; b = b->next)
    if (b->size > keep->size) keep = b;
  pb_block *b = a->blocks;
  while (b) {
    pb_block *next = b->next;
    if (b != keep) free(b);
    b = next;
  }
  keep->next = NULL;
  a->blocks = keep;
  a->ptr = keep->data;
  a->end = keep->data + keep->size;
  a->used_before = 0;
}

void pb_arena_free(pb_arena *a) {
  if (!a) return;
  pb_block *b = a->blocks;
  while (b) {
    pb_block *next = b->next;
    free(b);
    b = next;
  }
  free(a);
}

size_t pb_arena_used(const pb_arena *a) {
  return a->used_before + (size_t)(a->ptr - a->blocks->data);
}
