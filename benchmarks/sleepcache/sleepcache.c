/* What a sleep does to the next memcpy: copies as many bytes as the card's dot pixels at
 * scale 2 (221 KiB) right after a 24 ms sleep (the daemon's rhythm between frames), FRAMES
 * times, and prints the median and minimum in microseconds for:
 *
 *   warm       no sleep: the buffers stay in the caches
 *   sleep      after the sleep
 *   touched    after the sleep, and after a pass that reads one byte of every 64-byte line
 *              of both buffers (the pass is timed apart and not included)
 *   huge       after the sleep, both buffers in 2 MiB transparent huge pages
 *              (MADV_HUGEPAGE): if the cost were the TLB's, this would remove it
 *
 * `touched` near `warm`, and `huge` near `sleep`, says that the lines leave the caches
 * while the core sleeps (docs/PERFORMANCE.md, "After a sleep").
 *
 *     cc -O2 -o sleepcache sleepcache.c && ./sleepcache 200
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BYTES 226376                 /* 56,594 dot pixels x 4 bytes */
#define REGION (2u << 20)            /* one huge page */

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A 2 MiB-aligned region of anonymous memory, with or without huge pages, touched. */
static char *region(int huge) {
    char *raw = mmap(NULL, 2 * REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        perror("sleepcache: mmap");
        exit(71);
    }
    char *p = (char *)(((uintptr_t)raw + REGION - 1) & ~(uintptr_t)(REGION - 1));
    madvise(p, REGION, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, huge + 1, REGION);
    return p;
}

static volatile unsigned sink;

static void run(const char *name, int frames, int sleep, int touch, int huge) {
    char *src = region(huge), *dst = region(huge);
    double *t = calloc(frames, sizeof *t), *pass = calloc(frames, sizeof *pass);
    struct timespec nap = {0, 24000000L};
    for (int i = 0; i < frames; i++) {
        if (sleep)
            nanosleep(&nap, NULL);
        double a = now_ns();
        if (touch) {
            unsigned x = 0;
            for (size_t k = 0; k < BYTES; k += 64)
                x += (unsigned char)src[k] + (unsigned char)dst[k];
            sink = x;
        }
        double b = now_ns();
        memcpy(dst, src, BYTES);
        t[i] = now_ns() - b;
        pass[i] = b - a;
    }
    qsort(t, frames, sizeof *t, compare);
    qsort(pass, frames, sizeof *pass, compare);
    printf("%-8s memcpy median %6.1f us  min %6.1f us", name, t[frames / 2] / 1e3, t[0] / 1e3);
    if (touch)
        printf("  (the reading pass: median %.1f us)", pass[frames / 2] / 1e3);
    printf("\n");
    free(t);
    free(pass);
}

int main(int argc, char **argv) {
    int frames = argc > 1 ? atoi(argv[1]) : 200;
    if (frames < 1 || frames > 100000) {
        fprintf(stderr, "usage: sleepcache [FRAMES]   (1 to 100000, default 200)\n");
        return 64;
    }
    run("warm", frames, 0, 0, 0);
    run("sleep", frames, 1, 0, 0);
    run("touched", frames, 1, 1, 0);
    run("huge", frames, 1, 0, 1);
    /* Whether the kernel gave huge pages (transparent_hugepage may be "never"). */
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "AnonHugePages:", 14) == 0)
            printf("huge pages in use: %s", line + 14);
    if (f)
        fclose(f);
    return 0;
}
