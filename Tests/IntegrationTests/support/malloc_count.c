/* Counts a process's heap allocations, for test_allocations.py.
 *
 * LD_PRELOADed ahead of everything else, it defines malloc, calloc, realloc,
 * posix_memalign, aligned_alloc and memalign: each adds one to a counter and hands the
 * call to glibc's own allocator (__libc_malloc and friends, which glibc exports for
 * exactly this). free is left alone: the question is how often memory is asked for.
 *
 * At load it writes the counter's address, in hex, to the file named by
 * $SHIMMERD_TEST_MALLOC_COUNT_FILE; the test then reads the 8-byte count through
 * /proc/PID/mem whenever it likes, without stopping or signalling the process.
 *
 *     cc -O2 -shared -fPIC -o libmalloccount.so malloc_count.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *old, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static unsigned long long allocations;

static void counted(void) { __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *old, size_t size) { counted(); return __libc_realloc(old, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    counted();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

/* No stdio streams here: they would allocate, and this runs before main. */
__attribute__((constructor)) static void announce(void) {
    const char *path = getenv("SHIMMERD_TEST_MALLOC_COUNT_FILE");
    if (path == NULL) return;
    char text[32];
    int n = snprintf(text, sizeof text, "%llx\n", (unsigned long long)(size_t)&allocations);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (n > 0) (void)!write(fd, text, (size_t)n);
    close(fd);
}
