/*
 * owner.c - where a parsed program's memory comes from: the caller's arena
 * (etk_program_options_t.arena, the firmware's way: no malloc at all) or
 * the heap (host builds).  A parse asks for its owner here, copies the file
 * here when it does not borrow it, and reports an arena that ran out as one
 * error naming the arena's size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "program_internal.h"

etk_program_owner_t *etk_program_owner_new(const etk_program_options_t *opt,
                                           etk_error_t *err) {
  if (opt && opt->arena) {
    etk_arena_t a;
    etk_program_owner_t *o = NULL;
    if (etk_arena_init_fixed(&a, opt->arena, opt->arena_size))
      o = etk_arena_alloc(&a, sizeof *o);
    if (!o) {
      etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                    "the program arena of %zu bytes is too small to start a "
                    "parse",
                    opt->arena_size);
      return NULL;
    }
    o->arena = a; /* the block header stays in the caller's memory */
    o->in_arena = 1;
    o->arena_size = opt->arena_size;
    return o;
  }
#if defined(ETK_NO_HEAP) && ETK_NO_HEAP
  etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                "this build has no heap: give the program reader an arena "
                "(etk_program_options_t.arena)");
  return NULL;
#else
  etk_program_owner_t *o = calloc(1, sizeof *o);
  if (!o) etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  return o;
#endif
}

uint8_t *etk_program_owner_copy(etk_program_owner_t *o, const uint8_t *data,
                                size_t len, etk_error_t *err) {
  uint8_t *p = NULL;
  if (o->in_arena) {
    /* 16-byte aligned by the arena; 64 bytes of slack make it 64-aligned */
    uint8_t *raw = etk_arena_alloc(&o->arena, len + 64);
    if (raw) {
      p = (uint8_t *)(((uintptr_t)raw + 63u) & ~(uintptr_t)63u);
    } else {
      etk_program_owner_status(o, ETK_E_NO_MEMORY, "program", err);
      return NULL;
    }
  } else {
#if !(defined(ETK_NO_HEAP) && ETK_NO_HEAP)
    p = o->owned = etk_aligned_malloc(len ? len : 1);
#endif
    if (!p) {
      etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                    "out of memory copying the program");
      return NULL;
    }
  }
  if (len) memcpy(p, data, len);
  return p;
}

int etk_program_owner_status(const etk_program_owner_t *o, int rc,
                             const char *what, etk_error_t *err) {
  if (rc == ETK_OK || !o || !o->in_arena || !o->arena.exhausted) return rc;
  etk_error_clear(err);
  return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                       "the %s does not fit the %zu-byte arena (%zu more "
                       "bytes asked for when it ran out)",
                       what, o->arena_size, o->arena.wanted);
}

void etk_program_owner_free(etk_program_owner_t *o) {
  if (!o) return;
  if (o->in_arena) return; /* the caller's memory: nothing to release */
#if !(defined(ETK_NO_HEAP) && ETK_NO_HEAP)
  uint8_t *owned = o->owned;
  etk_arena_free(&o->arena);
  etk_aligned_free(owned);
  free(o);
#endif
}
