/* The floor for the daemon in poll mode: a process that does nothing but wake HZ times a
 * second for SECONDS and read an accelerometer's three attributes (DIR/in_accel_x_raw,
 * _y_raw, _z_raw) each time, then prints the CPU it used (utime + stime, as
 * CLOCK_PROCESS_CPUTIME_ID counts it, from the first read on) in percent of one core. benchmarks/daemon.py runs
 * it in the daemon's umockdev testbed (LD_PRELOAD and UMOCKDEV_DIR of the daemon, so the
 * preload library intercepts its calls as it does the daemon's), on the attributes the
 * daemon reads, while the script moves them.
 *
 * HOW says how an attribute is read:
 *   open   (default) open(2), one read(2) into a stack buffer, close(2), then strtol:
 *          what a careful program does when the file may be replaced between reads. The
 *          testbed replaces it at every change (umockdev_testbed_set_attribute writes a
 *          new file and renames it over the old one), and a sysfs attribute of a device
 *          that goes away and comes back is a new file, so the daemon reads this way and
 *          this is the floor it is held to.
 *   pread  the three files opened once, then one pread(2) at offset 0 per read: what is
 *          enough on a real sysfs, where reading from offset 0 regenerates the text; in
 *          the testbed it reads the first version of each file forever. For comparison.
 *
 *     cc -O2 -o pollfloor pollfloor.c
 *     LD_PRELOAD=libumockdev-preload.so.0 UMOCKDEV_DIR=... ./pollfloor 100 10 /sys/bus/iio/devices/iio:device0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* The attribute's integer, or exits: a floor that silently reads nothing is no floor. */
static long parse(const char *path, char *buf, ssize_t n) {
    if (n <= 0) {
        fprintf(stderr, "pollfloor: %s: %s\n", path, n < 0 ? strerror(errno) : "empty");
        exit(1);
    }
    buf[n] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf) {
        fprintf(stderr, "pollfloor: %s: not a number: %s\n", path, buf);
        exit(1);
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: pollfloor HZ SECONDS DIR [open|pread]\n");
        return 64;
    }
    double hz = atof(argv[1]), seconds = atof(argv[2]);
    const char *how = argc == 5 ? argv[4] : "open";
    int kept = strcmp(how, "pread") == 0;
    if (!(hz > 0 && hz <= 1000 && seconds > 0) || (!kept && strcmp(how, "open") != 0)) {
        fprintf(stderr, "pollfloor: HZ in (0, 1000], SECONDS > 0, HOW open or pread\n");
        return 64;
    }
    char paths[3][4096];
    int fds[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/in_accel_%c_raw", argv[3], "xyz"[i]);
        if (kept && (fds[i] = open(paths[i], O_RDONLY | O_CLOEXEC)) < 0) {
            fprintf(stderr, "pollfloor: %s: %s\n", paths[i], strerror(errno));
            return 1;
        }
    }
    volatile long sum = 0;   /* the values are used, so nothing is optimized away */
    /* CPU from here on: not the start-up (exec, the dynamic loader, the preload library and
     * GLib, a few milliseconds), which the daemon's figure, taken while it runs, leaves out. */
    double start = now(CLOCK_MONOTONIC), period = 1 / hz, cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 1; ; i++) {
        for (int a = 0; a < 3; a++) {
            char buf[4097];
            ssize_t n;
            if (kept) {
                n = pread(fds[a], buf, sizeof buf - 1, 0);
            } else {
                int fd = open(paths[a], O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                    fprintf(stderr, "pollfloor: %s: %s\n", paths[a], strerror(errno));
                    return 1;
                }
                n = read(fd, buf, sizeof buf - 1);
                close(fd);
            }
            sum += parse(paths[a], buf, n);
        }
        double due = start + i * period, left = due - now(CLOCK_MONOTONIC);
        if (due - start > seconds) break;
        if (left > 0) poll(NULL, 0, (int)(left * 1000 + 0.999));   /* rounded up, like the daemon */
    }
    double wall = now(CLOCK_MONOTONIC) - start, cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    printf("%.4f\n", 100 * cpu / wall);
    return 0;
}
