/* The run's heap: arrays bump-allocated in chunks, all released together.
 *
 * Programs allocate a few arrays per run and never free one, so a bump
 * allocator is enough and no garbage collector is needed. Chunks survive
 * the end of a run and are reused by the next in the same order (a benchmark
 * that runs sieve 1000 times maps its 8 MB once, not 1000 times);
 * vm_heap_release returns them. `heap_limit` bounds what one run may
 * allocate (VM_ERR_HEAP). The assembler's check that no register is read
 * before it is written guarantees that no value from an earlier run, which
 * may point into a reused chunk, is ever seen.
 */
#include <stdlib.h>

#include "internal/state.h"

#define VM_CHUNK_MIN ((size_t)1 << 20) /* 1 MiB: a handful of mallocs per run */

struct vm_heap_chunk {
  vm_heap_chunk *next;
  size_t size;
  _Alignas(16) char data[];
};

void vm_heap_reset(vm_state *S) {
  S->chunk_cur = NULL;
  S->heap_ptr = S->heap_end = NULL;
  S->heap_used = 0;
}

void vm_heap_release(vm_state *S) {
  vm_heap_chunk *c = S->chunks;
  while (c) {
    vm_heap_chunk *next = c->next;
    free(c);
    c = next;
  }
  S->chunks = NULL;
  vm_heap_reset(S);
}

/* Makes the chunk after the current one (reused, or a new one inserted
 * there when the next is too small) current; 0 when malloc fails. */
static int vm_heap_advance(vm_state *S, size_t bytes) {
  vm_heap_chunk **link = S->chunk_cur ? &S->chunk_cur->next : &S->chunks;
  vm_heap_chunk *c = *link;
  if (!c || c->size < bytes) {
    size_t size = bytes > VM_CHUNK_MIN ? bytes : VM_CHUNK_MIN;
    vm_heap_chunk *n = malloc(sizeof *n + size);
    if (!n) return 0;
    n->size = size;
    n->next = c;
    *link = n;
    c = n;
  }
  S->chunk_cur = c;
  S->heap_ptr = c->data;
  S->heap_end = c->data + c->size;
  return 1;
}

vm_array *vm_heap_alloc_array(vm_state *S, uint32_t len, vm_value fill) {
  size_t bytes = (sizeof(vm_array) + (size_t)len * sizeof(vm_value) + 15) & ~(size_t)15;
  if (bytes > S->heap_limit - S->heap_used) {
    S->status = VM_ERR_HEAP;
    return NULL;
  }
  if ((size_t)(S->heap_end - S->heap_ptr) < bytes && !vm_heap_advance(S, bytes)) {
    S->status = VM_ERR_NOMEM;
    return NULL;
  }
  vm_array *a = (vm_array *)S->heap_ptr;
  S->heap_ptr += bytes;
  S->heap_used += bytes;
  a->len = len;
  a->pad_ = 0;
  for (uint32_t i = 0; i < len; i++) a->v[i] = fill;
  return a;
}
