#!/usr/bin/python3
"""Soak: the real shimmerd daemon under umockdev, its accelerometer read at 100 Hz while
the fixture follows a moving tilt path (the card never settles), for a set time.
Every few seconds it records the daemon's RSS (/proc/PID/status VmRSS), its open file
descriptors (/proc/PID/fd) and the frames written (the shared-memory header's frame
counter), and at the end fails when, after the warm-up, RSS grew by more than 1 MiB or
any descriptor was added.

    /usr/bin/python3 benchmarks/soak.py [--minutes 10] [--interval 5] [--warmup 60] [--mode poll|buffer]
                                       [--binary .build/release/shimmerd] [--csv FILE]

`--mode buffer` feeds the emulated device node as a FIFO the way the kernel fills an IIO
buffer (harness.ScanPipe.feed: scans at the sampling frequency, `buffer/watermark` at a
time) instead of rewriting the `in_accel_*_raw` attributes.

Exit status 0: no growth; 1: growth (the table says where); 2: the daemon died. The
script's own load is small: it moves the tilt 20 times a second and sleeps otherwise.
Results of a full run are in docs/RELIABILITY.md."""
import argparse
import math
import os
import re
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "IntegrationTests"))
if "libumockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
    os.environ["LD_PRELOAD"] = (os.environ.get("LD_PRELOAD", "") + " libumockdev-preload.so.0").strip()
    os.execv(sys.executable, [sys.executable] + sys.argv)
from support import harness  # noqa: E402 (imported once re-executed under the preload library)

MIB = 1024 * 1024


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS for %d" % pid)


def fds(pid):
    """Open descriptors and what they are (for the report when one is added)."""
    out = {}
    base = "/proc/%d/fd" % pid
    for n in os.listdir(base):
        try:
            out[int(n)] = os.readlink(os.path.join(base, n))
        except OSError:
            pass
    return out


def shm_frame(name):
    try:
        with open("/dev/shm/" + name, "rb") as f:
            f.seek(48)
            return struct.unpack("<Q", f.read(8))[0]
    except OSError:
        return 0


def tilt_at(t):
    """A Lissajous path (radians): roll +-0.15 at 0.23 Hz, lean +-0.06 at 0.37 Hz."""
    return 0.15 * math.sin(2 * math.pi * 0.23 * t), 0.06 * math.sin(2 * math.pi * 0.37 * t + 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--interval", type=float, default=5, help="seconds between records")
    ap.add_argument("--warmup", type=float, default=60, help="seconds before growth counts")
    ap.add_argument("--binary", default=os.path.join(HERE, "..", ".build", "release", "shimmerd"))
    ap.add_argument("--fixture", default="bmc150_bosc0200_ideapad_d330")
    ap.add_argument("--csv", help="also write the records here")
    ap.add_argument("--mode", default="poll", choices=("poll", "buffer"), help="Sensor.mode (default poll)")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("soak: no binary at %s (swift build -c release --product shimmerd)" % binary)
    duration = args.minutes * 60
    warmup = min(args.warmup, duration / 3)

    w = harness.Workbench(args.fixture, "soak")
    dev, bed, tmp, trace, conf, name = w.dev, w.bed, w.tmp, w.trace, w.conf, w.name
    stop = threading.Event()
    if args.mode == "buffer":
        harness.ScanPipe(bed, dev).feed(bed, tilt_at, stop)
    # The trace rotates at 4 MB (4 files kept), so rotation runs during the soak too.
    argv = [binary, "run", "--config", conf, "--set", "Sensor.mode=" + args.mode, "--set", "Sensor.rate=100",
            "--set", "Sink.type=shm", "--set", "Sink.name=" + name, "--set", "Sink.fps=60",
            "--set", "Trace.path=" + trace, "--set", "Trace.max_size=4000000"]
    log = open(os.path.join(tmp, "shimmerd.log"), "w")
    p = subprocess.Popen(argv, env=bed.env, stdout=subprocess.DEVNULL, stderr=log)
    print("soak: %s for %.1f min, records every %.0f s, warm-up %.0f s; files in %s"
          % (" ".join(argv[1:]), args.minutes, args.interval, warmup, tmp), flush=True)
    rows = []
    start = time.monotonic()
    next_record = start + 1
    ok = True
    try:
        while True:
            now = time.monotonic()
            t = now - start
            if p.poll() is not None:
                print("soak: shimmerd exited with %s after %.0f s (log: %s)" % (p.returncode, t, log.name))
                return 2
            if args.mode == "poll":
                roll, lean = tilt_at(t)
                bed.set_raw(dev, dev.raw_for(harness.pose(roll, lean)))
            if now >= next_record:
                fd = fds(p.pid)
                rows.append({"t": t, "rss": rss_bytes(p.pid), "fds": len(fd), "fd_map": fd, "frames": shm_frame(name)})
                r = rows[-1]
                print("%7.0f s  RSS %8.1f KiB  fds %3d  frames %8d" % (t, r["rss"] / 1024, r["fds"], r["frames"]),
                      flush=True)
                next_record += args.interval
                if t >= duration:
                    break
            time.sleep(0.05)
    finally:
        stop.set()
        if p.poll() is None:
            p.terminate()
            status = p.wait(timeout=30)
            if status != 0:
                print("soak: shimmerd exited %d on SIGTERM" % status)
                ok = False
        bed.close()
        if os.path.exists("/dev/shm/" + name):
            os.unlink("/dev/shm/" + name)

    log.close()
    with open(log.name) as f:
        m = re.search(r"stopped after (\d+) frames? and (\d+) samples?", f.read())
    samples = int(m.group(2)) if m else None

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("seconds,rss_kib,fds,frames\n")
            for r in rows:
                f.write("%.1f,%.1f,%d,%d\n" % (r["t"], r["rss"] / 1024, r["fds"], r["frames"]))
    after = [r for r in rows if r["t"] >= warmup]
    base = after[0]
    peak = max(after, key=lambda r: r["rss"])
    last = rows[-1]
    growth = peak["rss"] - base["rss"]
    added = {n: what for n, what in max(after, key=lambda r: r["fds"])["fd_map"].items() if n not in base["fd_map"]}
    span = last["t"] - rows[0]["t"]
    fps = (last["frames"] - rows[0]["frames"]) / span if span > 0 else 0
    print("\n| | value |\n|---|---|")
    print("| duration | %.1f min (%d records, every %.0f s) |" % (last["t"] / 60, len(rows), args.interval))
    print("| frames written | %d (%.1f per second) |" % (last["frames"], fps))
    if samples is not None:
        print("| samples used | %d (%.1f per second) |" % (samples, samples / last["t"]))
    print("| RSS at warm-up end (%.0f s) | %.1f KiB |" % (base["t"], base["rss"] / 1024))
    print("| RSS peak after warm-up | %.1f KiB at %.0f s (%+.1f KiB) |" % (peak["rss"] / 1024, peak["t"],
                                                                           growth / 1024))
    print("| RSS at the end | %.1f KiB (%+.1f KiB) |" % (last["rss"] / 1024, (last["rss"] - base["rss"]) / 1024))
    print("| open fds | %d at warm-up end, %d..%d after |" % (base["fds"], min(r["fds"] for r in after),
                                                              max(r["fds"] for r in after)))
    if growth > MIB:
        print("soak: FAIL: RSS grew %.1f KiB after warm-up (limit 1024 KiB)" % (growth / 1024))
        ok = False
    if added:
        print("soak: FAIL: descriptors added after warm-up: %s" % added)
        ok = False
    if last["frames"] <= base["frames"]:
        print("soak: FAIL: no frames written after warm-up")
        ok = False
    print("soak: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
