/* The machine's floor for a daemon that sleeps in poll(2): a process that does nothing
 * but wake HZ times a second for SECONDS, then prints the CPU it used (utime + stime, as
 * CLOCK_PROCESS_CPUTIME_ID counts it) in percent of one core. benchmarks/daemon.py runs
 * it beside the daemon's phases: on a VM the cost of a wakeup alone moves with the host's
 * load, and this says how much of the daemon's figure is that.
 *
 *     cc -O2 -o wakefloor wakefloor.c && ./wakefloor 42 10
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: wakefloor HZ SECONDS\n");
        return 64;
    }
    double hz = atof(argv[1]), seconds = atof(argv[2]);
    if (!(hz > 0 && hz <= 1000 && seconds > 0)) {
        fprintf(stderr, "wakefloor: HZ in (0, 1000], SECONDS > 0\n");
        return 64;
    }
    double start = now(CLOCK_MONOTONIC), period = 1 / hz;
    for (long i = 1; ; i++) {
        double due = start + i * period, left = due - now(CLOCK_MONOTONIC);
        if (due - start > seconds) break;
        if (left > 0) poll(NULL, 0, (int)(left * 1000 + 0.999));   /* rounded up, like the daemon */
    }
    double wall = now(CLOCK_MONOTONIC) - start, cpu = now(CLOCK_PROCESS_CPUTIME_ID);
    printf("%.4f\n", 100 * cpu / wall);
    return 0;
}
