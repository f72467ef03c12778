#!/usr/bin/python3
"""Runs the real shimmerd daemon under umockdev on a fixture accelerometer, first on a
moving tilt path, then still, and reports what it costs: CPU (utime + stime from
/proc/PID/stat, read at nanosecond resolution from /proc/PID/task/*/schedstat), frames
written, RSS, wakeups per second (context switches), the time to the first frame, and
sample-to-publish latency; and beside each phase the machine's floor: the CPU of a bare C
program (benchmarks/wakefloor) that does nothing but wake as often as the daemon did.

The poll floor: benchmarks/pollfloor, a C program that only wakes at 100 Hz and reads the
three in_accel_{x,y,z}_raw attributes (open, read, close, as the daemon does in poll mode;
`--floor-read pread` for kept-open descriptors instead), run in the daemon's testbed while
the script moves the attributes as it does for the daemon, before the daemon starts and
again after it stops; the moving and still daemon are reported as multiples of it.

Frames and latency come from the shared-memory header, read by a reader thread that
waits on its futex like any client: a frame's `frame_time_ns` (CLOCK_MONOTONIC at
publish) minus the moment the newest sample it could show became readable (buffer mode:
the scan group written into the emulated device node; poll mode: the attribute write, so
the poll interval is included). With `--trace` the daemon also writes its trace (off by
default, as in the shipped configuration) and the in-loop latency, `published - t` of
frames published in the iteration that read their sample, is reported too.

    /usr/bin/python3 benchmarks/daemon.py [--seconds 20] [--mode buffer|poll] [--trace] [--binary PATH] [--noise LSB]
                                          [--floor-read open|pread]

`--mode buffer` (the mode `auto` picks on a device with a trigger whose buffer the daemon
may run) turns the emulated device node into a FIFO that the script feeds as the kernel
would: scans at the sampling frequency the daemon set, handed over `buffer/watermark` at a
time. `--mode poll` moves the emulated `in_accel_*_raw` attributes instead; the daemon
reads them at `Sensor.rate`.

Run it on a quiet machine; it prints a Markdown table for docs/PERFORMANCE.md."""
import argparse
import bisect
import json
import math
import random
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "IntegrationTests"))
if "libumockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
    os.environ["LD_PRELOAD"] = (os.environ.get("LD_PRELOAD", "") + " libumockdev-preload.so.0").strip()
    os.execv(sys.executable, [sys.executable] + sys.argv)
from support import harness  # noqa: E402 (imported once re-executed under the preload library)
from support.sinks import shmread  # noqa: E402 (tools/shmread.py, as the tests load it)

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
    # Context switches: the daemon's own waits (voluntary) and preemptions (nonvoluntary).
    return int(out["VmRSS"].split()[0]), (int(out["voluntary_ctxt_switches"]), int(out["nonvoluntary_ctxt_switches"]))


def read_trace(path):
    with open(path) as f:
        return [json.loads(line) for line in f.read().split("\n")[:-1] if line]


def percentile(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p))]


def phase(pid, seconds, drive=None):
    cpu0, (_, sw0), t0 = proc_cpu(pid), proc_status(pid), time.monotonic()
    while time.monotonic() - t0 < seconds:
        if drive:
            drive(time.monotonic() - t0)
        time.sleep(0.01)
    cpu1, (rss1, sw1), t1 = proc_cpu(pid), proc_status(pid), time.monotonic()
    return {"start": t0, "end": t1, "seconds": t1 - t0, "cpu_percent": 100 * (cpu1 - cpu0) / (t1 - t0), "rss_kib": rss1,
            "wakeups_per_s": (sum(sw1) - sum(sw0)) / (t1 - t0), "preempted_per_s": (sw1[1] - sw0[1]) / (t1 - t0)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", ".build", "release", "shimmerd"))
    ap.add_argument("--fixture", default="bmc150_bosc0200_ideapad_d330")
    ap.add_argument("--mode", default="buffer", choices=("buffer", "poll"), help="Sensor.mode (default buffer)")
    ap.add_argument("--rate", default="100", help="Sensor.rate (default 100: the bmc150 then samples at 125 Hz)")
    ap.add_argument("--fps", default="60", help="Sink.fps, a maximum (default 60: 3 scans of 125 Hz a frame, 41.7 "
                                                "frames a second; 63 gives 2 scans a frame, 62.5 frames a second)")
    ap.add_argument("--trace", action="store_true", help="also write the trace (Trace.path) and report in-loop latency")
    ap.add_argument("--no-reader", action="store_true",
                    help="no client waiting on the frames' futex (then no frame latency is measured)")
    ap.add_argument("--noise", type=float, default=0, metavar="LSB",
                    help="white noise of this many counts RMS on each axis, moving and still (a real sensor reads "
                         "1-3 LSB lying still; default 0: values constant between tilts)")
    ap.add_argument("--floor-read", default="open", choices=("open", "pread"),
                    help="how the poll floor reads the attributes (default open: open, read, close each time)")
    ap.add_argument("--perf", metavar="FILE", help="record a perf profile of the daemon's moving phase into FILE")
    ap.add_argument("--claims", action="store_true",
                    help="Sink.demand = auto on a private system bus: the daemon unclaimed and moving, claimed and "
                         "moving, claimed and still; then the real iio-sensor-proxy in the same testbed, unclaimed and "
                         "claimed by monitor-sensor (poll mode, as on a desktop with iio-sensor-proxy)")
    ap.add_argument("--trials", type=int, default=20, help="--claims: first motions after a rest timed per rest watch")
    args = ap.parse_args()
    if args.claims:
        return claims(args)
    binary = os.path.abspath(args.binary)
    harness.SHIMMERD = binary
    w = harness.Workbench(args.fixture, "bench")
    dev, bed, trace, conf, name = w.dev, w.bed, w.trace, w.conf, w.name
    current = [0.0, 0.0]    # (roll, lean) of the moving path, read by the buffer feeder
    sent = []               # CLOCK_MONOTONIC ns at which each new sample became readable
    stop = threading.Event()
    rng = random.Random(1)
    # Noise of `--noise` counts as an angle: a count is scale / g radians across gravity.
    jitter = args.noise * dev.scale[0] / harness.G

    def noisy(roll, lean):
        return (roll + rng.gauss(0, jitter), lean + rng.gauss(0, jitter)) if jitter else (roll, lean)

    def tilt(t):   # a slow circle through the mapper's range, 0.25 Hz
        roll, lean = 0.15 * math.sin(2 * math.pi * 0.25 * t), 0.06 * math.cos(2 * math.pi * 0.25 * t)
        current[:] = [roll, lean]
        if args.mode == "poll":
            sent.append(time.monotonic_ns())
            bed.set_raw(dev, dev.raw_for(harness.pose(*noisy(roll, lean))))

    if args.mode == "buffer":
        harness.ScanPipe(bed, dev).feed(bed, lambda t: noisy(*current), stop, sent)
    # The poll floor, in this testbed, while the script moves the attributes as it will
    # for the daemon: before the daemon starts and again after it stops (floor, daemon,
    # floor), so the daemon's moving figure is compared with what the same minutes cost.
    floor_seconds = min(args.seconds, 10)
    floors = [poll_floor(bed, dev, floor_seconds, args.floor_read, lambda t: tilt(t))]
    spawned = time.monotonic_ns()
    d = bed.spawn("run", "--config", conf, "--set", "Sink.type=shm", "--set", "Sink.fps=" + args.fps,
                  "--set", "Card.scale=2", "--set", "Sensor.mode=" + args.mode, "--set", "Sensor.rate=" + args.rate,
                  "--set", "Trace.path=" + (trace if args.trace else ""), "--set", "Log.level=warning",
                  "--set", "Sink.name=" + name)
    pid = d.p.pid

    # The first frame, from the header: the daemon publishes the card at rest at once.
    segment, first = None, None
    while segment is None and (time.monotonic_ns() - spawned) < 20e9:
        try:
            segment = shmread.Segment(name)
        except (OSError, shmread.FormatError):
            time.sleep(0.002)
    f, _ = segment.wait(0, timeout=20)
    h = segment.header()
    if h["frame"] == 1:
        first = (h["frame_time_ns"] - spawned) / 1e6
    published = []          # (frame, frame_time_ns) of every frame the reader saw

    def follow():
        seen = segment.frame()
        while not stop.is_set():
            f, how = segment.wait(seen, timeout=0.5)
            if f != seen:
                h = segment.header()
                if h["frame"] == f:
                    published.append((f, h["frame_time_ns"]))
                seen = f
    follower = threading.Thread(target=follow, daemon=True)
    if not args.no_reader:
        follower.start()
    time.sleep(1)

    f0 = segment.frame()
    profiler = None
    if args.perf:   # the moving phase only, not start-up
        profiler = subprocess.Popen(["perf", "record", "-g", "-p", str(pid), "-o", args.perf],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    moving = phase(pid, args.seconds, tilt)
    f1 = segment.frame()
    if profiler:
        profiler.send_signal(signal.SIGINT)
        profiler.wait()
    current[:] = [0.0, 0.0]
    bed.set_raw(dev, dev.raw_for(harness.pose(0, 0)))
    time.sleep(3)   # settle: the smoothing, then the stillness window
    f2 = segment.frame()

    def write_raw_atomically(raw):
        # A sysfs read is a snapshot; a file rewritten in place can be read half written
        # ("-1" of "-120"), which no sensor does: each value goes in by rename.
        for axis, v in zip("xyz", raw):
            path = bed.root + dev.syspath + "/in_accel_%s_raw" % axis
            with open(path + ".new", "w") as f:
                f.write("%d\n" % v)
            os.replace(path + ".new", path)

    # Lying still: a noisy sensor keeps changing its raw values (poll mode: rewritten at
    # the sensor's pace; buffer mode: each scan the feeder writes).
    still = phase(pid, args.seconds, (lambda t: write_raw_atomically(dev.raw_for(harness.pose(*noisy(0, 0)))))
                  if jitter and args.mode == "poll" else None)
    f3 = segment.frame()
    smaps = proc_smaps(pid)
    d.stop()
    floors.append(poll_floor(bed, dev, floor_seconds, args.floor_read, lambda t: tilt(t)))
    current[:] = [0.0, 0.0]
    stop.set()
    if follower.is_alive():
        follower.join()   # it reads the mapping: unmap only after it is done
    segment.close()
    try:
        os.unlink("/dev/shm/" + name)
    except OSError:
        pass
    moving["frames"], still["frames"] = f1 - f0, f3 - f2
    # End to end: each frame of the moving phase against the newest sample readable before it.
    sent.sort()
    e2e = []
    for f, t in published:
        if f0 < f <= f1:
            i = bisect.bisect_right(sent, t) - 1
            if i >= 0:
                e2e.append((t - sent[i]) / 1e3)
    # The machine's floor: a bare C program that only wakes as often as the daemon did.
    for p in (moving, still):
        p["wake_floor_cpu_percent"] = wake_floor(p["wakeups_per_s"], min(args.seconds, 10))
    floor = sum(floors) / len(floors)
    moving["poll_floor_cpu_percent"] = floors
    moving["vs_poll_floor"] = moving["cpu_percent"] / floor
    still["vs_poll_floor"] = still["cpu_percent"] / floor
    result = {"binary": binary, "mode": args.mode, "trace": args.trace, "reader": not args.no_reader,
              "first_frame_ms": first,
              "moving": moving, "still": still, "smaps_kib": smaps, "latency_us": stats(e2e)}
    if args.trace:
        records = read_trace(trace)
        start, end = moving["start"] - spawned / 1e9, moving["end"] - spawned / 1e9
        window = [r for r in records if "t" in r and start <= r["t"] < end]
        sample_t = {r["t"] for r in window if r["type"] == "sample"}
        result["in_loop_latency_us"] = stats([1e6 * (r["published"] - r["t"]) for r in window
                                              if r["type"] == "frame" and r["t"] in sample_t])
    for p in (moving, still):
        del p["start"], p["end"]
    print(json.dumps(result, indent=2))
    print()
    print("| phase | CPU (% of one core) | frames | frames/s | RSS (MiB) | wakeups/s (preempted) "
          "| floor: only waking as often |")
    print("|---|---|---|---|---|---|---|")
    setup = (args.mode + " mode, Sensor.rate " + args.rate + (", %g LSB of noise" % args.noise if args.noise else "")
             + ("" if args.fps == "60" else ", Sink.fps " + args.fps) + (", trace on" if args.trace else "")
             + (", no reader" if args.no_reader else ", a reader"))
    for label, p in (("moving (%s)" % setup, moving),
                     ("still", still)):
        print("| %s | %.2f | %d | %.1f | %.1f | %.1f (%.1f) | %.2f |" % (label, p["cpu_percent"], p["frames"],
                                                                         p["frames"] / p["seconds"],
                                                                         p["rss_kib"] / 1024, p["wakeups_per_s"],
                                                                         p["preempted_per_s"],
                                                                         p["wake_floor_cpu_percent"]))
    print()
    print("poll floor (benchmarks/pollfloor, %s, 100 Hz, 3 attributes, %g s before and after the daemon): %s%%; "
          "the moving daemon %.2f%% = %.2fx their mean, the still daemon %.2f%% = %.2fx"
          % (args.floor_read, floor_seconds, ", ".join("%.2f" % f for f in floors), moving["cpu_percent"],
             moving["vs_poll_floor"], still["cpu_percent"], still["vs_poll_floor"]))
    lat = result["latency_us"]
    print("sample readable to frame published (shm header): p50 %.0f us, p99 %.0f us, max %.0f us over %d frames"
          % (lat["p50"], lat["p99"], lat["max"], lat["frames"]))
    if args.trace:
        lat = result["in_loop_latency_us"]
        print("sample read to frame published (trace, in-loop): p50 %.0f us, p99 %.0f us, max %.0f us over %d frames"
              % (lat["p50"], lat["p99"], lat["max"], lat["frames"]))
    print("first frame %s ms after start; RSS of the still daemon: %s"
          % ("%.0f" % first if first is not None else "n/a",
             ", ".join("%s %.1f MiB" % (k, v / 1024) for k, v in smaps.items())))
    bed.close()


def claims(args):
    """What the daemon costs as a desktop sees it: a shm sink on a system bus, with
    Sink.demand = auto, beside the anchor a user compares it with, iio-sensor-proxy, read
    in the same testbed on the same moving path."""
    from support.bus import POLICY, SYSTEM_DEFAULTS, Claimant
    binary = os.path.abspath(args.binary)
    harness.SHIMMERD = binary
    w = harness.Workbench(args.fixture, "claims")
    dev, bed = w.dev, w.bed
    bus = harness.SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY
                            + '<policy user="root"><allow own="net.hadess.SensorProxy"/>'
                              '<allow send_destination="net.hadess.SensorProxy"/></policy>')

    def tilt(t):   # the slow circle of the moving phase, as the attributes a poll reads
        bed.set_raw(dev, dev.raw_for(harness.pose(0.15 * math.sin(2 * math.pi * 0.25 * t),
                                                  0.06 * math.cos(2 * math.pi * 0.25 * t))))
    rows = []
    d = bed.spawn("run", "--config", w.conf, "--set", "Sink.type=shm", "--set", "Sink.name=" + w.name,
                  "--set", "Sensor.mode=poll", "--set", "Sensor.rate=" + args.rate, "--set", "Card.scale=2",
                  "--set", "Log.level=notice", extra_env=bus.env)
    d.wait_log(r"idle: nobody has claimed the frames", "idle")
    time.sleep(1)

    def frames():
        return harness.frames_published(w.name)
    for label, drive, claim in (("shimmerd, unclaimed, moving", tilt, False), ("shimmerd, claimed, moving", tilt, True),
                                ("shimmerd, claimed, still", None, True)):
        if claim and not any("resumed" in line for line in d.logs):
            reader = Claimant(bus)
            reader.claim()
            d.wait_log(r"resumed: 1 claim", "resumed")
        if drive is None:
            bed.set_raw(dev, dev.raw_for(harness.pose(0, 0)))
            time.sleep(3)
        f0 = frames()
        p = phase(d.p.pid, args.seconds, drive)
        p["frames"] = frames() - f0
        rows.append((label, p))
    reader.close()
    d.stop()
    os.unlink("/dev/shm/" + w.name)
    still_rows, latency_rows = rest_watches(args, bus, w)
    rows += still_rows
    env = dict(bed.env, **bus.env)
    proxy = harness.Lines(["/usr/sbin/iio-sensor-proxy"], env)
    bed.children.append(proxy)
    time.sleep(2)
    p = phase(proxy.p.pid, args.seconds, tilt)
    rows.append(("iio-sensor-proxy, unclaimed, moving", p))
    mon = harness.Lines(["monitor-sensor"], env)
    bed.children.append(mon)
    mon.wait_line(r"=== Has accelerometer", "monitor-sensor: an accelerometer")
    p = phase(proxy.p.pid, args.seconds, tilt)
    rows.append(("iio-sensor-proxy, claimed by monitor-sensor, moving", p))
    mon.terminate()
    proxy.terminate()
    bed.close()
    bus.close()
    print(json.dumps({label: {k: v for k, v in p.items() if k not in ("start", "end")} for label, p in rows}, indent=2))
    print()
    print("| %s, Sensor.rate %s, %g s a phase | CPU (%% of one core) | wakeups/s (preempted) | frames |"
          % (args.fixture, args.rate, args.seconds))
    print("|---|---|---|---|")
    for label, p in rows:
        print("| %s | %.2f | %.1f (%.1f) | %s |" % (label, p["cpu_percent"], p["wakeups_per_s"], p["preempted_per_s"],
                                                    p.get("frames", "-")))
    print()
    print("| first motion after a rest, drawn (the shm header's focal point moves), %d trials | p50 | p95 | max |"
          % args.trials)
    print("|---|---|---|---|")
    for label, values in latency_rows:
        print("| %s | %.1f ms | %.1f ms | %.1f ms |" % (label, 1000 * percentile(values, 0.5),
                                                        1000 * percentile(values, 0.95), 1000 * max(values)))


def rest_watches(args, bus, w):
    """Claimed and still, per rest watch (`RestWatch`: what tells the daemon that a still
    device moved), each device in a testbed of its own on the same bus: `args.seconds`
    from 2 s after the rest began; then the first motion after a rest, drawn, over
    `args.trials` trials (support/rest.py's emulations: a bmc150's event stream, lis3lv02d's
    event node, a HID hub that honours its change sensitivity, one that re-sends every 200 ms)."""
    from support import rest as rw
    from support.bus import Claimant
    from support.evdev_emulation import LIS3, EvdevNode, lis3_counts
    still, latencies = [], []

    def lis3(bed):
        node = EvdevNode(bed, LIS3 + ".event6")
        node.report(lis3_counts(harness.pose(0, 0.2)))
        poses = [harness.pose(0.05, 0.2), harness.pose(0, 0.2)]
        return (), (lambda k: rw.hand(node.report, lis3_counts(poses[k % 2]), seed=k)), (lambda: None), ()

    def events(bed):
        from support.iio_events_emulation import EventStream
        stream = EventStream(bed, "/dev/iio:device0")
        held = rw.Held(bed, (0.0, 0.2), noise=0)
        poses = [(0.05, 0.2), (0.0, 0.2)]

        def move(k):
            held.start()     # after the daemon's libiio context: see Held
            held.move(poses[k % 2])
            stream.motion("xyz"[k % 3])

        def close():
            held.close()
            stream.close()
        return ("--set", "Sensor.mode=poll", "--set", "Sensor.rate=" + args.rate), move, close, (stream.fd,)

    def hub(every):
        def setup(bed):
            pipe = harness.ScanPipe(bed, rw.HID_DEV)
            held = {"pose": (0.0, 0.2)}
            h = rw.Hub(bed, pipe, lambda: held["pose"], every=every)
            poses = [(0.05, 0.2), (0.0, 0.2)]

            def move(k):
                held["pose"] = poses[k % 2]
                h.hand_until = time.monotonic() + 0.5
            return ("--set", "Sensor.mode=buffer"), move, h.close, ()
        return setup

    # A HID hub is polled where iio-sensor-proxy may read it (its udev tag, and a system bus
    # it could start on: BufferSharing), and its change sensitivity needs buffer mode: the
    # hubs run without the bus, where the frames are painted as for a claim.
    for label, fixture, setup, trials, on_bus in (
            ("bmc150 with its motion interrupt, poll mode, claimed, still: events", rw.EVENTS, events, True, True),
            ("lis3lv02d (input device), claimed, still: node", LIS3, lis3, True, True),
            ("HID hub honouring in_accel_hysteresis, buffer mode, no bus, still: hysteresis", rw.HID, hub(None), True,
             False),
            ("HID hub re-sending every 200 ms, buffer mode, no bus, still: hysteresis, then read", rw.HID, hub(0.2),
             False, False)):
        bed = harness.Bed(fixture)
        extra, move, close, fds = setup(bed)
        d = bed.spawn("run", "--config", w.conf, "--set", "Sink.type=shm", "--set", "Sink.name=" + w.name,
                      "--set", "Card.scale=2", "--set", "Log.level=debug", "--set", "Attitude.baseline_samples=3",
                      *extra, extra_env=bus.env if on_bus else None, pass_fds=fds)
        reader = Claimant(bus)
        try:
            if on_bus:
                d.wait_log(r"idle: nobody has claimed the frames", "idle")
                d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1", "the name taken")
                reader.claim()
            d.wait_log(r"using .* mode", "attached")
            rest, _ = d.wait_log(rw.REST, "the device at rest")
            if not trials:   # the hub found out first: what it costs from then on
                rest, _ = d.wait_log(r"ignores its change sensitivity", "the hub found out", start=rest, timeout=30)
            time.sleep(2)
            f0 = harness.frames_published(w.name)
            p = phase(d.p.pid, args.seconds)
            p["frames"] = harness.frames_published(w.name) - f0
            still.append((label, p))
            if trials:
                latencies.append((label.split(",")[0], rw.first_motion_latencies(d, w.name, move, args.trials)))
        finally:
            reader.close()
            d.stop()
            close()
            bed.close()
            if os.path.exists("/dev/shm/" + w.name):
                os.unlink("/dev/shm/" + w.name)
    return still, latencies


def poll_floor(bed, dev, seconds, how, drive):
    """CPU % of benchmarks/pollfloor/pollfloor.c reading the device's three
    in_accel_{x,y,z}_raw at 100 Hz (`Sensor.rate`'s default) for `seconds`, in the
    daemon's testbed (its environment: umockdev's preload library intercepts the floor's
    calls as it does the daemon's) and at the path libiio reads (/sys/bus/iio/devices/ID),
    while `drive(t)` moves the attributes every 10 ms as it does for the daemon. `how`:
    `open` (open, read, close each time, as the daemon must, see the program) or `pread`
    (kept-open descriptors)."""
    src = os.path.join(HERE, "pollfloor", "pollfloor.c")
    exe = os.path.join(tempfile.mkdtemp(prefix="pollfloor-"), "pollfloor")
    subprocess.run(["gcc", "-O2", "-o", exe, src], check=True)
    p = subprocess.Popen([exe, "100", "%.1f" % seconds, "/sys/bus/iio/devices/" + dev.id, how], env=bed.env,
                         stdout=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while p.poll() is None:
        drive(time.monotonic() - t0)
        time.sleep(0.01)
    out, _ = p.communicate()
    if p.returncode != 0:
        raise RuntimeError("pollfloor failed (%d)" % p.returncode)
    return float(out)


def wake_floor(hz, seconds):
    """CPU % of benchmarks/wakefloor/wakefloor.c waking `hz` times a second: on a VM the cost
    of a wakeup alone moves with the host's load (0.45-0.51% at 100 Hz on the same machine
    within an hour), so the daemon's figure is reported beside it."""
    src = os.path.join(HERE, "wakefloor", "wakefloor.c")
    exe = os.path.join(tempfile.mkdtemp(prefix="wakefloor-"), "wakefloor")
    subprocess.run(["cc", "-O2", "-o", exe, src], check=True)
    out = subprocess.run([exe, "%.3f" % max(hz, 0.1), "%.1f" % seconds], check=True, capture_output=True, text=True)
    return float(out.stdout)


def stats(values):
    return {"frames": len(values), "p50": percentile(values, 0.5), "p99": percentile(values, 0.99),
            "max": max(values) if values else float("nan")}


def proc_smaps(pid):
    """/proc/PID/smaps_rollup: what the RSS is made of."""
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Rss", "Pss", "Shared_Clean", "Private_Clean", "Private_Dirty", "Shared_Dirty", "Anonymous"):
                out[k] = int(v.split()[0])
    return out


if __name__ == "__main__":
    main()
