/*
 * heap_count.h - counts the heap calls of a test executable: link it with
 * the library etk_heap_count and etk_heap_count_wrap(target) (tests/
 * CMakeLists.txt: -Wl,--wrap for malloc, calloc, realloc, free,
 * aligned_alloc and posix_memalign), and every such call from any object
 * linked in goes through the counter below (free(NULL) is not counted).
 */
#ifndef ETK_HEAP_COUNT_H
#define ETK_HEAP_COUNT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

extern unsigned long etk_heap_calls;
/* When non-zero, malloc, calloc, realloc and aligned_alloc of more than
 * this many bytes fail (return NULL; counted): a small heap, a board's. */
extern size_t etk_heap_limit;

void *__wrap_malloc(size_t n);
void __wrap_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* ETK_HEAP_COUNT_H */
