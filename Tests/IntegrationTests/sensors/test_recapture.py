"""When the baseline is taken, through the real binary. At start the first readings are
the baseline, so a device already in the hand is followed from the first frames. A new
baseline where the device comes to rest far from the old one (a convertible folded into
tablet mode, a tablet laid down), and on a change of the kernel's tablet-mode switch
(SW_TABLET_MODE of an input device found with libudev): logged and traced as a
`recapture` with its reason. The switch's baseline comes from readings of the device at
rest, never from the fold itself: the switch fires while the lid is still moving."""
import math
import os
import random
import struct
import subprocess
import sys
import threading
import time

import pytest

from support.harness import (Device, Heartbeats, ScanPipe, following, in_the_hand, move_in_the_hand, norm, pose,
                             read_trace, wait_trace, wait_until)

SWITCH = "intel_vbtn_tablet_mode_switch"
TECLAST = "kxcjk_teclast_f6pro_convertible"


def switch_fifo(bed):
    """The switch's evdev node as a FIFO the test writes `struct input_event`s into (a
    writer stays open, so the reader never sees an end); its descriptor."""
    node = os.path.join(bed.root, "dev", "input", "event13")
    if os.path.lexists(node):
        os.unlink(node)
    os.makedirs(os.path.dirname(node), exist_ok=True)
    os.mkfifo(node)
    return os.open(node, os.O_RDWR | os.O_NONBLOCK)


def switch_event(tablet):
    """SW_TABLET_MODE = tablet, then SYN_REPORT."""
    def event(type_, code, value):
        return struct.pack("<qqHHi", 1_800_000_000, 0, type_, code, value)
    return event(0x05, 0x01, 1 if tablet else 0) + event(0x00, 0x00, 0)


@pytest.mark.usefixtures("realtime")
@pytest.mark.xdist_group("realtime")
@pytest.mark.parametrize("mode", ["poll", "buffer"])
def test_started_in_the_hand_the_card_follows_from_the_first_second(bed_factory, tmp_path, mode):
    """Started while the device moves (a tablet in the hand): the first frame within 1 s of
    the start, at least 10 frames in the 3 s after it at Sink.fps = 30, and from 0.5 s on
    the drawn point follows the tilt, with no word of a device that did not rest."""
    dev = Device(TECLAST)
    bed = bed_factory(TECLAST)
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    made = []
    stop = threading.Event()

    def reading(t):
        return dev.accel_of(dev.raw_for(pose(*in_the_hand(t))))
    t0 = time.monotonic()
    if mode == "poll":
        thread = move_in_the_hand(bed, dev, stop, made, t0)
        pipe = None
    else:
        pipe = ScanPipe(bed, dev)

        def scan_at(t, ts_ns):
            made.append((reading(t + offset_of_feed[0]), t + offset_of_feed[0]))
            return dev.scans(pose(*in_the_hand(t + offset_of_feed[0])), count=1, ts0=ts_ns)
        offset_of_feed = [0.0]
    d = bed.spawn("run", "--config", str(conf), "--set", "Sensor.mode=" + mode, "--set", "Sensor.rate=100",
                  "--set", "Sink.type=null", "--set", "Sink.fps=30", "--set", "Trace.path=" + trace,
                  "--duration", "4")
    try:
        if pipe is not None:
            d.wait_log(r"using iio:device1 .*in buffer mode", "buffer mode")
            offset_of_feed[0] = time.monotonic() - t0
            thread = pipe.feed(bed, None, stop, scan_at=scan_at)
        assert d.wait(timeout=30) == 0
    finally:
        stop.set()
        thread.join()
        if pipe is not None:
            pipe.close()
    records = read_trace(trace, final=True)
    first, frames, rms, span = following(records, made, reading)
    print("%s: first frame at %.2f s, %d frames in the 3 s after it, drawn %.1f pt RMS from the true point "
          "(which moved %.0f pt)" % (mode, first, frames, rms, span))
    assert first < 1.0, "the first frame came %.2f s after the start" % first
    assert frames >= 10, "%d frames in the 3 s after the first" % frames
    assert span > 40, "the true point moved only %.0f pt" % span
    assert rms < 10, "the drawn point is %.1f pt RMS from the tilt" % rms
    assert not any("did not come to rest" in x for x in d.logs), [x for x in d.logs if "rest" in x]


def run_with_a_switch(bed_factory, tmp_path, extra_env=None):
    """The daemon on the level fixture accelerometer (poll mode) beside the emulated
    tablet-mode switch, once it has found the switch and taken its first baseline: (bed,
    the switch's FIFO, the daemon, its trace)."""
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture, SWITCH)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    fd = switch_fifo(bed)
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sink.type=null", "--set", "Sensor.mode=poll",
                  "--set", "Trace.path=" + trace, "--set", "Log.level=info", extra_env=extra_env)
    d.wait_log(r"tablet-mode switch /dev/input/event13 \(Intel Virtual Switches\)", "the switch found")
    wait_trace(trace, lambda r: r["type"] == "baseline", "the first baseline", d)
    return bed, fd, d, trace


def test_the_tablet_mode_switch_captures_a_new_baseline(bed_factory, tmp_path):
    bed, fd, d, trace = run_with_a_switch(bed_factory, tmp_path)
    try:
        os.write(fd, switch_event(True))
        d.wait_log(r"tablet-mode switch Intel Virtual Switches: tablet mode; capturing a new baseline", "the notice")
        recaptures = wait_until(lambda: [r for r in read_trace(trace) if r["type"] == "recapture"],
                                "the recapture record",
                                daemon=d)
        assert recaptures[0]["reason"] == "tablet-mode switch Intel Virtual Switches: tablet mode"
        os.write(fd, switch_event(False))
        wait_until(lambda: any(r.get("reason") == "tablet-mode switch Intel Virtual Switches: laptop mode"
                               for r in read_trace(trace)), "the second recapture", daemon=d)
        assert d.stop() == 0
    finally:
        os.close(fd)


# The fold of the Teclast convertible's display (its accelerometer in buffer mode, 100 Hz):
# laptop mode (leaned back 15 degrees from upright) for 2 s, then leaned back to 1.3 rad
# within 1.5 s, starting and ending smoothly, then left still.
FOLD = (2.0, 3.5, 0.26, 1.3)


def fold_lean(t):
    start, end, lean0, lean1 = FOLD
    s = max(0.0, min(1.0, (t - start) / (end - start)))
    return lean0 + (lean1 - lean0) * s * s * (3 - 2 * s)


def fold_into_tablet_mode(bed_factory, tmp_path, switch_at, noise=0.0, made=None):
    """The fold played as scans, the switch written when `switch_at(t)` first says so (t:
    seconds since the first scan), with `noise` LSB of noise on each axis; `made`, a list,
    gets (the reading the daemon computes, t) for every scan. Returns the trace's records,
    the reading at rest and the daemon."""
    rng = random.Random(5)
    dev = Device(TECLAST)
    bed = bed_factory(TECLAST, SWITCH)
    pipe = ScanPipe(bed, dev)
    fd = switch_fifo(bed)
    trace = str(tmp_path / "fold.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=100",
                  "--set", "Sink.type=null", "--set", "Trace.path=" + trace)
    stop = threading.Event()
    fired = []

    def scan_at(t, ts_ns):
        if not fired and switch_at(t):
            fired.append(t)
            os.write(fd, switch_event(True))
        raw = [r + int(round(rng.gauss(0, noise))) if noise else r for r in dev.raw_for(pose(0, fold_lean(t)))]
        if made is not None:
            made.append((dev.accel_of(raw), t))
        return dev.scans(None, count=1, ts0=ts_ns, raw=raw)
    try:
        d.wait_log(r"tablet-mode switch /dev/input/event13 \(Intel Virtual Switches\)", "the switch found")
        d.wait_log(r"using iio:device1 .*in buffer mode", "buffer mode")
        feeder = pipe.feed(bed, None, stop, scan_at=scan_at)
        started = time.monotonic()
        while time.monotonic() - started < FOLD[1] + 4.0:   # 4 s at rest
            assert d.poll() is None, "shimmerd exited during the fold"
            time.sleep(0.1)
        assert fired, "the switch was not written"
        stop.set()
        feeder.join()
        assert d.stop() == 0
    finally:
        stop.set()
        os.close(fd)
        pipe.close()
    rest = dev.accel_of(dev.raw_for(pose(0, FOLD[3])))
    return read_trace(trace, final=True), rest, d


def check_the_new_baseline_is_the_rest(records, rest, rested=None):
    """The switch's baseline is the pose at rest, and from 1 s after coming to rest (at
    `rested` on the daemon's clock; by default the first reading of the rest pose, with
    noiseless scans) each second's median of the drawn point is within 1 pt of the card's
    origin; with noiseless scans, every frame within 2 pt."""
    [r] = [r for r in records if r["type"] == "recapture"]
    assert r["reason"] == "tablet-mode switch Intel Virtual Switches: tablet mode"
    baselines = [b for b in records if b["type"] == "baseline" and b["t"] >= r["t"]]
    assert len(baselines) == 1, baselines
    # No reading of the fold in it: the mean of the readings at rest (noiseless scans: the
    # one reading at rest, to rounding), where one reading 0.001 rad off in 50 would move
    # it by 2e-5.
    up, want = baselines[0]["up"], norm([-x for x in rest])
    off = math.acos(min(1.0, sum(a * b for a, b in zip(up, want))))
    noisy = rested is not None
    assert off < (2e-3 if noisy else 1e-6), "the baseline is %.2e rad from the pose at rest" % off
    if not noisy:
        # At rest from the first reading of the final pose, on the daemon's clock.
        readings = [x for x in records if x["type"] in ("sample", "reading") and x["t"] > r["t"] - 0.5]
        rested = next(x["t"] for x in readings if max(abs(a - b) for a, b in zip(x["accel"], rest)) < 1e-9)
    origin = (175.0, 350.0 * 2 / 3)
    frames = [(f["t"], f["focal"]) for f in records if f["type"] == "frame"]
    shown = [p for t, p in frames if t <= rested + 1.0][-1:] + [p for t, p in frames if t > rested + 1.0]
    worst = max(math.hypot(p[0] - origin[0], p[1] - origin[1]) for p in shown)
    assert worst <= 2.0 or noisy, "drawn %.1f pt from the origin after 1 s at rest (%s)" % (worst, shown[:5])
    # Each second's median from 1 s after rest (the point shown at each 10 ms).
    end = max(t for t, _ in frames)
    for k in range(int(end - rested - 1.0)):
        a = rested + 1.0 + k
        shown_at = [[p for t, p in frames if t <= a + i * 0.01][-1] for i in range(100)]
        median = sorted(math.hypot(p[0] - origin[0], p[1] - origin[1]) for p in shown_at)[50]
        assert median <= 1.0, "second %d after rest: drawn %.2f pt from the origin (median)" % (k + 1, median)
    print("baseline %.2e rad from the pose at rest, %.2f s after it came to rest; drawn at most %.2f pt from the "
          "origin from 1 s after" % (off, baselines[0]["t"] - rested, worst))
    return baselines[0]["t"] - rested


@pytest.mark.usefixtures("realtime")
@pytest.mark.xdist_group("realtime")
def test_a_switch_that_fires_mid_fold_takes_the_baseline_once_the_device_rests(bed_factory, tmp_path):
    """The switch fires at a lean of 1.1 rad; the lid goes on 0.2 rad to rest."""
    records, rest, d = fold_into_tablet_mode(bed_factory, tmp_path, lambda t: fold_lean(t) >= FOLD[3] - 0.2)
    waited = check_the_new_baseline_is_the_rest(records, rest)
    assert waited < 1.0, "the baseline came %.2f s after the device came to rest" % waited
    assert not any("did not come to rest" in x for x in d.logs)


@pytest.mark.usefixtures("realtime")
@pytest.mark.xdist_group("realtime")
def test_a_noisy_fold_s_baseline_holds_only_readings_from_after_the_lid_stopped(bed_factory, tmp_path):
    """The fold with 4 LSB of noise on each axis, the switch firing at a lean of 1.1 rad:
    the new baseline is the mean of a run of readings (its up, to rounding, is the
    normalized sum of their up directions), and every one of them was taken after the lid
    stopped; from 1 s after that the drawn point stays within 1 pt of the origin."""
    made = []
    records, rest, d = fold_into_tablet_mode(bed_factory, tmp_path, lambda t: fold_lean(t) >= FOLD[3] - 0.2,
                                             noise=4.0, made=made)
    [r] = [r for r in records if r["type"] == "recapture"]
    [b] = [b for b in records if b["type"] == "baseline" and b["t"] >= r["t"]]
    # The readings the daemon got after the switch, in order, with their times on the
    # feeder's clock: matched through the trace's readings and samples, which carry them.
    after = [x for x in records if x["type"] in ("reading", "sample") and x["t"] >= r["t"]]
    taken, j = [], 0
    for x in after:
        k = j
        while k < len(made) and max(abs(p - q) for p, q in zip(made[k][0], x["accel"])) > 2e-6:
            k += 1
        if k < len(made):
            taken.append((norm([-v for v in x["accel"]]), made[k][1], x["t"]))
            j = k + 1
    assert len(taken) > 100, len(taken)
    # The run whose mean is the baseline: found to 1e-6 rad (acos near 1 resolves no finer
    # than 1e-8), where a reading more or less moves the mean by 1e-4 with this noise.
    runs = []
    for i in range(len(taken)):
        total = [0.0, 0.0, 0.0]
        for n, (u, _, _) in enumerate(taken[i:]):
            total = [a + c for a, c in zip(total, u)]
            if n >= 9:
                runs.append((math.acos(min(1.0, sum(a * c for a, c in zip(norm(total), b["up"])))), (i, i + n + 1)))
    runs.sort()
    found = runs[0][1] if runs and runs[0][0] < 1e-6 and runs[1][0] > 100 * runs[0][0] else None
    assert found, "the baseline is no run of the readings after the switch"
    first_t = taken[found[0]][1]
    print("baseline: readings %d-%d after the switch, the first taken %.2f s after the lid stopped" %
          (found[0], found[1] - 1, first_t - FOLD[1]))
    assert first_t >= FOLD[1], "the baseline holds a reading taken %.2f s before the lid stopped" % (FOLD[1] - first_t)
    assert r.get("rest") is True, "the trace says the switch's baseline waits for rest: %s" % r
    check_the_new_baseline_is_the_rest(records, rest, rested=next(t for _, made_t, t in taken if made_t >= FOLD[1]))


@pytest.mark.usefixtures("realtime")
@pytest.mark.xdist_group("realtime")
def test_a_switch_that_fires_after_the_fold_takes_the_baseline_at_once(bed_factory, tmp_path):
    """The switch fires 0.5 s after the lid came to rest."""
    records, rest, d = fold_into_tablet_mode(bed_factory, tmp_path, lambda t: t >= FOLD[1] + 0.5)
    check_the_new_baseline_is_the_rest(records, rest)


def test_monitor_recaptures_and_settles_as_the_daemon_does(bed_factory, tmp_path):
    """`shimmerd run` and `shimmerd monitor` on the same emulated device (poll mode, both
    reading it): leaned back as a laptop, turned 90 degrees to portrait and left there.
    Both recapture after resting 3 s far from the baseline, at the same angle, take the
    portrait pose as the new baseline and settle on it: one motion stage, one behaviour."""
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    bed.set_raw(dev, dev.raw_for(pose(0, 0.26)))
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    common = ["--config", str(conf), "--set", "Sensor.mode=poll", "--set", "Sensor.rate=50"]
    daemon = bed.spawn("run", *common, "--set", "Sink.type=null", "--set", "Trace.path=" + trace)
    monitor = bed.spawn("monitor", "--json", *common)
    wait_trace(trace, lambda r: r["type"] == "baseline", "the daemon's first baseline", daemon)
    monitor.wait_for(lambda r: r["type"] == "baseline", "monitor's first baseline")
    # Turned to portrait within half a second, then left still for 7 s.
    for k in range(26):
        bed.set_raw(dev, dev.raw_for(pose(math.pi / 2 * k / 25, 0.26)))
        time.sleep(0.02)
    time.sleep(7.0)
    assert daemon.stop() == 0
    assert monitor.stop() == 0
    records = read_trace(trace, final=True)
    [recapture] = [r for r in records if r["type"] == "recapture"]
    said = [x for x in monitor.logs if "recapturing the baseline" in x]
    assert len(said) == 1 and said[0].endswith("recapturing the baseline: " + recapture["reason"]), (said, recapture)
    ours = [r["up"] for r in records if r["type"] == "baseline"]
    theirs = [r["up"] for r in monitor.records if r["type"] == "baseline"]
    assert len(ours) == 2 and len(theirs) == 2, (ours, theirs)
    portrait = norm([-x for x in dev.accel_of(dev.raw_for(pose(math.pi / 2, 0.26)))])
    for up in (ours[1], theirs[1]):
        assert math.acos(min(1.0, sum(a * b for a, b in zip(up, portrait)))) < 0.01, (up, portrait)
    last = [r for r in records if r["type"] == "sample"][-1], monitor.samples()[-1]
    for s in last:
        assert abs(s["dpitch"]) < 0.01 and abs(s["droll"]) < 0.01, last


def test_a_flapping_tablet_mode_switch_gives_a_bounded_number_of_lines(bed_factory, tmp_path):
    """A switch that toggles every 25 ms for 10 s (400 changes: a loose hinge sensor, or a
    uinput device that claims SW_TABLET_MODE): the daemon follows it, and says so in at most
    20 lines (counting the changes it held back); the last change still captures a new
    baseline."""
    bed, fd, d, trace = run_with_a_switch(bed_factory, tmp_path)
    try:
        start = len(d.logs)
        t0 = time.monotonic()
        for k in range(400):
            time.sleep(max(0.0, t0 + 0.025 * (k + 1) - time.monotonic()))
            os.write(fd, switch_event(k % 2 == 0))
        time.sleep(1.5)
        lines = [x for x in d.logs[start:] if "tablet" in x]
        print("400 changes in %.1f s: %d lines mention the switch (%d lines in all); the first: %s; the last: %s"
              % (time.monotonic() - t0 - 1.5, len(lines), len(d.logs) - start, lines[:1], lines[-1:]))
        assert d.poll() is None
        assert len(d.logs) - start <= 20, d.logs[start:start + 30]
        # The last change, laptop mode (the 400th), is followed by a recapture.
        recaptures = [r for r in read_trace(trace) if r["type"] == "recapture"]
        assert recaptures and recaptures[-1]["reason"] == "tablet-mode switch Intel Virtual Switches: laptop mode", \
            recaptures[-3:]
        assert d.stop() == 0
    finally:
        os.close(fd)


SWITCH_FLOOD = r"""
import os, struct, sys, time
path, seconds = sys.argv[1], float(sys.argv[2])
def event(type_, code, value):
    return struct.pack("<qqHHi", 1_800_000_000, 0, type_, code, value)
block = b"".join(event(0x05, 0x01, k % 2) + event(0x00, 0x00, 0) for k in range(32))   # 1536 bytes, atomic
fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
sent = 0
t0 = time.monotonic()
while time.monotonic() - t0 < seconds:
    try:
        os.write(fd, block)
        sent += 32
    except BlockingIOError:
        pass
print(sent, time.monotonic() - t0)
"""


def test_a_flooding_tablet_mode_switch_leaves_the_heartbeat_its_pace(bed_factory, tmp_path):
    """A switch node written as fast as a process can for 10 s (tablet, laptop, tablet...;
    the node's pipe kept full, so no read finds it empty; the last change is tablet mode):
    with WATCHDOG_USEC = 100 ms the loop's heartbeat keeps at least 8 a second in every
    second, the lines stay at most 20, a new baseline is asked for at most every 0.5 s (so
    the trace gets at most 2 recapture records a second), the last for tablet mode, and
    the daemon stops cleanly after."""
    beats = Heartbeats(str(tmp_path / "notify"))
    fd = None
    try:
        bed, fd, d, trace = run_with_a_switch(bed_factory, tmp_path, extra_env=beats.env)
        start = len(d.logs)
        seconds = 10.0
        flooder = subprocess.Popen([sys.executable, "-c", SWITCH_FLOOD,
                                    os.path.join(bed.root, "dev", "input", "event13"),
                                    str(seconds)], stdout=subprocess.PIPE, text=True)
        bed.children.append(flooder)
        t0 = time.monotonic()
        flooder.wait(timeout=seconds + 30)
        t1 = time.monotonic()
        sent, took = flooder.stdout.read().split()
        per_second = [sum(1 for t, m in beats.messages if m == "WATCHDOG=1" and s <= t < s + 1)
                      for s in [t0 + 0.5 + k for k in range(int(t1 - t0 - 1))]]
        time.sleep(1.5)         # what was left read, the held change handed on
        recaptures = [r for r in read_trace(trace) if r["type"] == "recapture"]
        print("switch flood: %s changes in %.1f s; heartbeats a second min %d, median %d; %d lines; %d recaptures "
              "(trace %d bytes), the last: %s"
              % (sent, float(took), min(per_second), sorted(per_second)[len(per_second) // 2], len(d.logs) - start,
                 len(recaptures), os.path.getsize(trace), recaptures[-1:]))
        assert d.poll() is None
        assert min(per_second) >= 8, per_second
        assert len(d.logs) - start <= 20, d.logs[start:start + 30]
        # At most one recapture every 0.5 s, the last one for where the switch came to rest.
        assert len(recaptures) <= 2 * seconds + 3, len(recaptures)
        assert recaptures[-1]["reason"] == "tablet-mode switch Intel Virtual Switches: tablet mode", recaptures[-1]
        assert d.stop() == 0
    finally:
        beats.close()
        if fd is not None:
            os.close(fd)
