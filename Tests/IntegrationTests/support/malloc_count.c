/* Counts a process's heap allocations and the bytes it holds, for test_allocations.py
 * and test_reload_and_stop.py.
 *
 * LD_PRELOADed ahead of everything else, it defines malloc, calloc, realloc,
 * posix_memalign, aligned_alloc, memalign and free: each allocation adds one to a
 * counter, and every call adjusts the bytes in use (malloc_usable_size of each block
 * given out or taken back), then hands the call to glibc's own allocator (__libc_malloc
 * and friends, which glibc exports for exactly this).
 *
 * At load it writes the two counters' addresses, in hex, one a line (allocations, then
 * bytes in use), to the file named by $SHIMMERD_TEST_MALLOC_COUNT_FILE; the test then
 * reads the 8-byte values through /proc/PID/mem whenever it likes, without stopping or
 * signalling the process.
 *
 *     cc -O2 -shared -fPIC -o libmalloccount.so malloc_count.c
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *old, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *p);

static unsigned long long allocations;
static long long bytes_in_use;

static void held(void *p, long long sign) {
    if (p != NULL) __atomic_add_fetch(&bytes_in_use, sign * (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
}

static void *counted(void *p) {
    __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
    held(p, 1);
    return p;
}

void *malloc(size_t size) { return counted(__libc_malloc(size)); }
void *calloc(size_t count, size_t size) { return counted(__libc_calloc(count, size)); }
void *memalign(size_t alignment, size_t size) { return counted(__libc_memalign(alignment, size)); }
void *aligned_alloc(size_t alignment, size_t size) { return counted(__libc_memalign(alignment, size)); }
void free(void *p) { held(p, -1); __libc_free(p); }

void *realloc(void *old, size_t size) {
    long long before = old != NULL ? (long long)malloc_usable_size(old) : 0;
    void *p = __libc_realloc(old, size);
    if (p != NULL || size == 0) __atomic_add_fetch(&bytes_in_use, -before, __ATOMIC_RELAXED);
    return counted(p);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = counted(__libc_memalign(alignment, size));
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

/* No stdio streams here: they would allocate, and this runs before main. */
__attribute__((constructor)) static void announce(void) {
    const char *path = getenv("SHIMMERD_TEST_MALLOC_COUNT_FILE");
    if (path == NULL) return;
    char text[64];
    int n = snprintf(text, sizeof text, "%llx\n%llx\n", (unsigned long long)(size_t)&allocations,
                     (unsigned long long)(size_t)&bytes_in_use);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (n > 0) (void)!write(fd, text, (size_t)n);
    close(fd);
}
