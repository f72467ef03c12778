#!/usr/bin/python3
"""Runs the real shimmerd daemon under umockdev on a fixture accelerometer, first on a
moving tilt path, then still, and reports what it costs: CPU (utime + stime from
/proc/PID/stat, read at nanosecond resolution from /proc/PID/task/*/schedstat), frames written, RSS, wakeups per second (context switches), the time
to the first frame, and sample-to-publish latency (from the trace: a frame published in
the loop iteration that read a sample, `published - t`).

    /usr/bin/python3 benchmarks/daemon.py [--seconds 20] [--mode buffer|poll] [--sink null|shm] [--binary PATH]

`--mode buffer` (the mode `auto` picks on a device with a trigger whose buffer the daemon
may run) turns the emulated device node into a FIFO that the script feeds as the kernel
would: scans at the sampling frequency the daemon set, handed over `buffer/watermark` at a
time. `--mode poll` moves the emulated `in_accel_*_raw` attributes instead; the daemon
reads them at `Sensor.rate`.

Run it on a quiet machine; it prints a Markdown table for docs/PERFORMANCE.md."""
import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "IntegrationTests"))
if "libumockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
    os.environ["LD_PRELOAD"] = (os.environ.get("LD_PRELOAD", "") + " libumockdev-preload.so.0").strip()
    os.execv(sys.executable, [sys.executable] + sys.argv)
import harness  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    """CPU seconds of every thread: utime + stime from /proc/PID/stat, which counts in
    clock ticks (10 ms), so also the nanosecond run time of /proc/PID/task/*/schedstat
    when the kernel has it; the report uses the finer one."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = (int(fields[11]) + int(fields[12])) / TICKS
    try:
        ns = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                ns += int(f.read().split()[0])
        return ns / 1e9
    except OSError:
        return ticks


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return int(out["VmRSS"].split()[0]), int(out["voluntary_ctxt_switches"]) + int(out["nonvoluntary_ctxt_switches"])


def read_trace(path):
    with open(path) as f:
        return [json.loads(line) for line in f.read().split("\n")[:-1] if line]


def percentile(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p))]


def phase(pid, seconds, drive=None):
    cpu0, (rss0, sw0), t0 = proc_cpu(pid), proc_status(pid), time.monotonic()
    while time.monotonic() - t0 < seconds:
        if drive:
            drive(time.monotonic() - t0)
        time.sleep(0.01)
    cpu1, (rss1, sw1), t1 = proc_cpu(pid), proc_status(pid), time.monotonic()
    return {"seconds": t1 - t0, "cpu_percent": 100 * (cpu1 - cpu0) / (t1 - t0), "rss_kib": rss1,
            "wakeups_per_s": (sw1 - sw0) / (t1 - t0)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--sink", default="shm", help="shm (default, as the performance issue asks), null, ...")
    ap.add_argument("--binary", default=os.path.join(HERE, "..", ".build", "release", "shimmerd"))
    ap.add_argument("--fixture", default="bmc150_bosc0200_ideapad_d330")
    ap.add_argument("--mode", default="buffer", choices=("buffer", "poll"), help="Sensor.mode (default buffer)")
    ap.add_argument("--perf", metavar="FILE", help="record a perf profile of the daemon into FILE")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    harness.SHIMMERD = binary
    dev = harness.Device(args.fixture)
    bed = harness.Bed(args.fixture)
    tmp = tempfile.mkdtemp(prefix="shimmerd-bench-")
    trace = os.path.join(tmp, "trace.jsonl")
    conf = os.path.join(tmp, "empty.conf")
    open(conf, "w").close()
    bed.set_raw(dev, dev.raw_for(harness.pose(0, 0)))
    current = [0.0, 0.0]    # (roll, lean) of the moving path, read by the buffer feeder
    stop_feeding = threading.Event()
    if args.mode == "buffer":
        harness.ScanPipe(bed, dev).feed(bed, lambda t: current, stop_feeding)
    spawned = time.monotonic()
    d = bed.spawn("run", "--config", conf, "--set", "Sink.type=" + args.sink, "--set", "Sink.fps=60",
                  "--set", "Card.scale=2", "--set", "Sensor.mode=" + args.mode, "--set", "Sensor.rate=100",
                  "--set", "Trace.path=" + trace, "--set", "Log.level=warning",
                  "--set", "Sink.name=shimmerd-bench-%d" % os.getpid(),
                  prefix=("perf", "record", "-g", "-o", args.perf, "--") if args.perf else ())
    pid = d.p.pid
    if args.perf:   # measure the daemon, not perf: its child
        time.sleep(0.5)
        pid = int(open("/proc/%d/task/%d/children" % (pid, pid)).read().split()[0])
    # Time to the first frame: the trace's first frame record (flushed within a second).
    first = None
    while first is None and time.monotonic() - spawned < 20:
        time.sleep(0.05)
        try:
            frames = [r for r in read_trace(trace) if r["type"] == "frame"]
        except (OSError, ValueError):
            frames = []
        if frames:
            first = frames[0]["published"]
    time.sleep(1)

    def tilt(t):   # a slow circle through the mapper's range, 0.25 Hz
        roll, lean = 0.15 * math.sin(2 * math.pi * 0.25 * t), 0.06 * math.cos(2 * math.pi * 0.25 * t)
        current[:] = [roll, lean]
        if args.mode == "poll":
            bed.set_raw(dev, dev.raw_for(harness.pose(roll, lean)))

    n0 = len(read_trace(trace))
    moving = phase(pid, args.seconds, tilt)
    current[:] = [0.0, 0.0]
    bed.set_raw(dev, dev.raw_for(harness.pose(0, 0)))
    time.sleep(3)   # settle: the smoothing, then the stillness window
    n1 = len(read_trace(trace))
    still = phase(pid, args.seconds)
    d.stop()
    stop_feeding.set()
    if args.sink == "shm":
        try:
            os.unlink("/dev/shm/shimmerd-bench-%d" % os.getpid())
        except OSError:
            pass
    records = read_trace(trace)
    moving["frames"] = sum(1 for r in records[n0:n1] if r["type"] == "frame")
    still["frames"] = sum(1 for r in records[n1:] if r["type"] == "frame")
    sample_t = {r["t"] for r in records[n0:n1] if r["type"] == "sample"}
    latency = [1e6 * (r["published"] - r["t"]) for r in records[n0:n1] if r["type"] == "frame" and r["t"] in sample_t]
    result = {"binary": binary, "sink": args.sink, "mode": args.mode, "first_frame_ms": None if first is None else 1000 * first,
              "moving": moving, "still": still,
              "latency_us": {"frames": len(latency), "p50": percentile(latency, 0.5), "p99": percentile(latency, 0.99),
                             "max": max(latency) if latency else float("nan")}}
    print(json.dumps(result, indent=2))
    print()
    print("| phase | CPU (% of one core) | frames | frames/s | RSS (MiB) | wakeups/s |")
    print("|---|---|---|---|---|---|")
    for name, p in (("moving (%s mode, Sensor.rate 100, Sink.fps 60)" % args.mode, moving), ("still", still)):
        print("| %s | %.2f | %d | %.1f | %.1f | %.1f |" % (name, p["cpu_percent"], p["frames"], p["frames"] / p["seconds"],
                                                        p["rss_kib"] / 1024, p["wakeups_per_s"]))
    print()
    print("sample to published frame: p50 %.0f us, p99 %.0f us, max %.0f us over %d frames; first frame %.0f ms after start"
          % (result["latency_us"]["p50"], result["latency_us"]["p99"], result["latency_us"]["max"], len(latency),
             result["first_frame_ms"] or float("nan")))
    bed.close()


if __name__ == "__main__":
    main()
