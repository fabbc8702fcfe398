/*
 * heap_count.c - the --wrap side of heap_count.h: each wrapper counts the
 * call and forwards it to the C library's function (__real_*).
 */
#include "heap_count.h"

unsigned long etk_heap_calls;
size_t etk_heap_limit;

static int over_limit(size_t n) {
  return etk_heap_limit != 0 && n > etk_heap_limit;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);

void *__wrap_malloc(size_t n) {
  etk_heap_calls++;
  return over_limit(n) ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t a, size_t b) {
  etk_heap_calls++;
  if (b != 0 && a > (size_t)-1 / b) return NULL;
  return over_limit(a * b) ? NULL : __real_calloc(a, b);
}
void *__wrap_realloc(void *p, size_t n) {
  etk_heap_calls++;
  return over_limit(n) ? NULL : __real_realloc(p, n);
}
void __wrap_free(void *p) {
  if (p) etk_heap_calls++;
  __real_free(p);
}
void *__wrap_aligned_alloc(size_t a, size_t n) {
  etk_heap_calls++;
  return over_limit(n) ? NULL : __real_aligned_alloc(a, n);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
  etk_heap_calls++;
  return __real_posix_memalign(p, a, n);
}
