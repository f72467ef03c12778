"""Accelerometers the kernel exposes as input devices, through the real binary under
umockdev with emulated evdev nodes (evdev_emulation.py): a DualSense's "Motion Sensors"
node with its gamepad and touchpad beside it under one HID device (hid-playstation), and
lis3lv02d on an HP laptop with a hwdb mount matrix. What is checked, with figures:

- `auto` never takes a game controller (its joystick sibling), and `shimmerd sensors` says
  why; named, it is read, its gyroscope fused, its axes from the controller table;
- a hand-held path at 250 Hz with a shaking hand (0.87 m/s^2): the fused tilt within 0.35
  degrees RMS of the truth, where the accelerometer alone is degrees off;
- lis3lv02d: taken by `auto`, milli-g through the udev matrix, two held tilts each within
  0.01 rad, Sensor.rate through its poller's interval (restored on exit);
- events the kernel dropped (SYN_DROPPED) while the controller was tipped: within 1 s the
  tilt, fused and accelerometer alone, is the controller's;
- a 250 Hz controller moving costs at most Sink.fps + 10 wakeups a second;
- a controller whose table entry is wrong (one gyroscope axis mirrored) against its
  accelerometer alone;
- hotplug: a named controller waited for, attached, gone with one line, back again."""
import collections
import math
import os
import random
import re
import struct
import subprocess
import sys
import threading
import time

import pytest

from support.evdev_emulation import (ABS_RX, ABS_RY, ABS_RZ, ABS_X, ABS_Y, ABS_Z, LIS3, LIS3_INPUT, LIS3_MATRIX,
                                     EvdevNode,
                                     lis3_counts, sensors_json)
from support.harness import (FIXTURES, G, Heartbeats, ROUND_TRIP_CALLS, block_of, mat_inv, mat_vec, pose, read_trace,
                             record_switches, rss_kib, tilt, voluntary_switches, wait_trace, wait_until, wakeups)
from support.motion_paths import LEAN, STILL, SWEEP, HandHeld, matched, true_reading

DUALSENSE = "dualsense_usb"
DUALSENSE_HID = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3/1-3:1.3/0003:054C:0CE6.0005"
MOTION = DUALSENSE_HID + "/input/input21/event21"
MOTION_NAME = "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors"
# The controller table's frame for Sony's controllers (x right, y out of the face, z toward
# the player; +1 g up at rest), as a screen held like the controller sees it: device = M *
# sensor for the accelerometer, det(M) * M = -M for the gyroscope.
SONY = [[-1, 0, 0], [0, 0, 1], [0, -1, 0]]
# hid-playstation: DS_ACC_RES_PER_G, DS_GYRO_RES_PER_DEG_S.
ACC_PER_G, GYRO_PER_DPS = 8192, 1024
RATE = 250
# MSC_TIMESTAMP starts 2 s before its 32 bits wrap: every run crosses the wrap.
WRAP_START = (1 << 32) - 2_000_000


def in_real_time(test):
    """A test whose daemon keeps up with a device in real time: ahead of the rest of a
    parallel run, and one at a time (conftest.py's `realtime`)."""
    return pytest.mark.xdist_group("realtime")(pytest.mark.usefixtures("realtime")(test))


def controller_counts(accel, rate, mirrored_axis=None):
    """The report of a DualSense held so that its screen frame reads `accel` (m/s^2,
    gravity's direction) and turns at `rate` (rad/s): counts of ABS_X/Y/Z and ABS_RX/RY/RZ.
    `mirrored_axis` (0, 1, 2) flips one gyroscope axis: a controller whose real layout
    differs from its table entry there."""
    sensor = mat_vec(mat_inv(SONY), accel)
    w = mat_vec(mat_inv([[-x for x in row] for row in SONY]), rate)
    if mirrored_axis is not None:
        w[mirrored_axis] = -w[mirrored_axis]
    counts = [a / G * ACC_PER_G for a in sensor] + [math.degrees(x) * GYRO_PER_DPS for x in w]
    return dict(zip((ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ), counts))


def controller_accel(state):
    """The reading the daemon makes of the node's state (m/s^2, screen frame)."""
    return mat_vec(SONY, [state[c] * (G / ACC_PER_G) for c in (ABS_X, ABS_Y, ABS_Z)])


def lis3_accel(state):
    return mat_vec(LIS3_MATRIX, [state[c] * (G / 1000) for c in (ABS_X, ABS_Y, ABS_Z)])


class Feeder:
    """The device's side on a thread: `report(n, t)` gives the n-th report's counts at t
    seconds from the start (or None to skip one), handed to the node at `rate` reports a
    second (a function: read again each time, as a poller's interval may change), each
    with its MSC_TIMESTAMP where the device sends one; `report.reported(state)`, where it
    has one, is told the node's state after it. The thread runs under SCHED_FIFO where it
    may (as root): a device's reports come on time whatever else the machine does, and a
    feeder that fell behind would hand over a burst no device sends (late reports are
    handed over at once, with their own times)."""

    def __init__(self, node, report, rate, timestamps=True, stamp=None):
        """`stamp(n, t)`: the n-th report's MSC_TIMESTAMP (32 bits), where it is not the
        device's clock at t."""
        self.node, self.report, self.rate, self.timestamps, self.stamp = node, report, rate, timestamps, stamp
        self.stop = threading.Event()
        self.n = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        except (PermissionError, AttributeError):
            pass
        t0 = time.monotonic()
        t = 0.0
        while not self.stop.is_set():
            t += 1 / self.rate()
            time.sleep(max(0.0, t0 + t - time.monotonic()))
            values = self.report(self.n, t)
            if values is not None:
                stamp = (WRAP_START + int(t * 1e6)) & 0xFFFFFFFF if self.timestamps else None
                if self.stamp is not None:
                    stamp = self.stamp(self.n, t)
                state = self.node.report(values, timestamp_us=stamp, time_ns=int((t0 + t) * 1e9))
                if hasattr(self.report, "reported"):
                    self.report.reported(state)
            self.n += 1

    def close(self):
        self.stop.set()
        self.thread.join()


def run_daemon(bed, tmp_path, *extra, name="trace", binary=None, extra_env=None):
    """`binary`: the release build, for the tests that keep up with a 250 Hz controller in
    real time (the debug build spends milliseconds of CPU per reading in the fusion, a
    loop period of its own: it would measure the compiler's debug code)."""
    trace = str(tmp_path / (name + ".jsonl"))
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sink.type=null", "--set", "Trace.path=" + trace, *extra,
                  binary=binary, extra_env=extra_env)
    return d, trace


# --- discovery and selection ---

def test_sensors_lists_the_controller_and_says_why_auto_leaves_it_alone(bed_factory):
    bed = bed_factory(DUALSENSE)
    EvdevNode(bed, DUALSENSE + ".event21")
    auto = sensors_json(bed, status=69)     # nothing auto would use: the report, and 69
    assert auto["selected"] is None
    [dev] = [d for d in auto["devices"] if d["device"] == "input:event21"]
    assert [d["device"] for d in auto["devices"]] == ["input:event21"], "the gamepad and the touchpad are not listed"
    assert dev["usable"] and dev["name"] == MOTION_NAME
    assert "input20 beside it under the same parent" in dev["why"] and "ID_INPUT_JOYSTICK=1" in dev["why"]
    assert "auto leaves game controllers alone" in dev["why"]
    assert dev["mount_matrix"] == SONY and dev["mount_matrix_source"] == "table:054c:0ce6 (DualSense)"
    assert dev["scale"] == [G / ACC_PER_G] * 3
    i = dev["input"]
    assert i["vendor_product"] == "054c:0ce6" and i["timestamps"] == "MSC_TIMESTAMP"
    assert "resolution 8192 counts per g" in i["units_source"] and "hid-playstation" in i["controller_axes"]
    assert i["gyro_scale"] == [math.radians(1) / GYRO_PER_DPS] * 3 and i["kernel_buffer_events"] == 128
    named = sensors_json(bed, "--set", "Sensor.device=input:event21")
    assert named["selected"] == "input:event21" and "a game controller's motion sensors" in named["reason"]
    assert named["gyro_pairing"]["gyroscope"] == "input:event21"
    # The gyroscope's frame: det(M) * M.
    assert named["gyro_pairing"]["mount_matrix"] == SONY and named["gyro_pairing"]["mount_matrix_sign"] == -1
    by_name = sensors_json(bed, "--set", "Sensor.device=name:" + MOTION_NAME)
    assert by_name["selected"] == "input:event21"
    text = bed.run("sensors").stdout
    assert "auto leaves game controllers alone" in text and "controller axes: DualSense: hid-playstation" in text


def test_auto_with_only_a_controller_waits_and_never_reads_it(bed_factory, tmp_path):
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    feeder = Feeder(node, lambda n, t: controller_counts(pose(0, LEAN), [0, 0, 0]), lambda: RATE)
    d, trace = run_daemon(bed, tmp_path)
    try:
        d.wait_log(r"waiting for an accelerometer: .*input:event21: part of a game controller.*auto leaves game "
                   r"controllers alone", "the waiting line naming the controller")
        time.sleep(2.5)     # attach attempts every second
    finally:
        feeder.close()
    assert not any("using input:event21" in x for x in d.logs), d.logs
    assert node.unread() > 0 and node.dropped > 0, "the controller's events were read"
    assert d.stop() == 0
    assert not read_trace(trace, "sample", final=True)


# --- the hand-held path at 250 Hz ---

class Path:
    """Where the controller is at t seconds: the screen frame's reading of gravity (m/s^2)
    and the turn (rad/s) that moves it so (da/dt = -w x a; a turn about gravity itself is
    invisible to the accelerometer and left out)."""

    def __init__(self, reading):
        self.reading = reading

    def rate(self, t, h=1e-4):
        a = self.reading(t)
        da = [(p - m) / (2 * h) for p, m in zip(self.reading(t + h), self.reading(t - h))]
        n2 = sum(x * x for x in a)
        return [(da[1] * a[2] - da[2] * a[1]) / n2, (da[2] * a[0] - da[0] * a[2]) / n2,
                (da[0] * a[1] - da[1] * a[0]) / n2]


# test_motion_path's hand-held path: held 30 degrees from upright, a slow sweep (pitch +-4
# degrees at 0.5 Hz, roll +-8 at 0.3 Hz) after STILL seconds lying still.
HAND_HELD = Path(true_reading)
# Played with: tipped +-20 degrees at 0.3 Hz and rolled +-25 at 0.2 Hz, turns of a quarter
# radian and more within 3 s, which the gyroscope's frame check weighs.
PLAYED_WITH = Path(lambda t: pose(math.radians(25) * math.sin(2 * math.pi * 0.2 * max(0.0, t - STILL)),
                                  LEAN + math.radians(20) * math.sin(2 * math.pi * 0.3 * max(0.0, t - STILL))))


class HeldController:
    """The DualSense along a path with a hand's linear acceleration (test_motion_path's
    HandHeld), 250 reports a second with 1.5 counts of accelerometer noise (0.18 mg) and 1
    of gyroscope noise plus a 0.5 deg/s zero-rate offset. Remembers for each report the
    reading the daemon makes of it (the node's state after the input core's fuzz filter),
    the true tilt then and the report's time."""

    def __init__(self, node, path=HAND_HELD, seed=7, hand_rms=0.87, mirrored_axis=None):
        self.node, self.path = node, path
        self.rng = random.Random(seed)
        self.hand = HandHeld(self.rng, hand_rms)
        self.mirrored_axis = mirrored_axis
        offset = math.radians(0.5) / math.sqrt(3)
        self.offset = [offset, -offset, offset]
        self.baseline = path.reading(0)
        self.made = []
        self.t = 0.0

    def __call__(self, n, t):
        a = [g + h for g, h in zip(self.path.reading(t), self.hand(t))]
        w = [x + o for x, o in zip(self.path.rate(t), self.offset)]
        counts = controller_counts(a, w, self.mirrored_axis)
        self.t = t
        self.truth = tilt(self.baseline, self.path.reading(t)) + (t,)
        return {c: v + self.rng.gauss(0, 1.5 if c <= ABS_Z else 1.0) for c, v in counts.items()}

    def reported(self, state):
        self.made.append((controller_accel(state), self.truth))


class PathRun:
    """What a run along a path gave: per sample of the sweep (its report's time, its tilt
    error in degrees), their RMS and worst, the gyroscope records, the log, the drops, and
    the report time at which each watched log line appeared."""

    def __init__(self, errors, gyros, logs, drops, seen):
        self.errors, self.gyros, self.logs, self.drops, self.seen = errors, gyros, logs, drops, seen
        self.rms = rms([e for _, e in errors])
        self.worst = max(e for _, e in errors)

    def rms_between(self, start, end):
        return rms([e for t, e in self.errors if start <= t < end])


def rms(values):
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else float("nan")


def play_path(bed_factory, tmp_path, binary, gyro, path=HAND_HELD, sweep=SWEEP, mirrored_axis=None, watch=()):
    """The controller along `path` for STILL + `sweep` seconds, read by the daemon with
    `Sensor.gyro = gyro`; `watch`: log patterns whose first line's report time is noted."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    model = HeldController(node, path, mirrored_axis=mirrored_axis)
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21", "--set", "Sensor.gyro=" + gyro,
                          name="path-%s-%s" % (gyro, mirrored_axis), binary=binary)
    d.wait_log(r"using input:event21 .* in input mode", "input mode")
    seen = {}

    def played():
        for w in watch:
            if w not in seen and any(re.search(w, x) for x in d.logs):
                seen[w] = model.t
        return len(model.made) >= (STILL + sweep) * RATE
    feeder = Feeder(node, model, lambda: RATE)
    try:
        wait_until(played, "the path to be played", d, timeout=3 * (STILL + sweep) + 20)
    finally:
        feeder.close()
    assert d.poll() is None
    assert d.stop() == 0
    records = read_trace(trace, final=True)
    samples = [r for r in records if r["type"] == "sample"]
    pairs = matched(samples, model.made)
    assert len(pairs) >= 0.95 * len(samples), "samples matched to reports: %d of %d" % (len(pairs), len(samples))
    # The sweep, after its first second (the estimator's start-up is not the point).
    moving = [(s, want) for s, want in pairs if want[2] > STILL + 1.0]
    # Every report is a sample with the gyroscope; the newest of each frame's without.
    assert len(moving) >= (50 if gyro == "none" else 200) * (sweep - 1), "samples during the sweep: %d" % len(moving)
    errors = [(want[2], math.degrees(math.hypot(s["dpitch"] - want[0], s["droll"] - want[1]))) for s, want in moving]
    return PathRun(errors, sum(1 for r in records if r["type"] == "gyro"), d.logs, node.dropped, seen)


@in_real_time
def test_a_named_dualsense_on_a_hand_held_path_is_fused_within_0_35_degrees(bed_factory, tmp_path, release_shimmerd):
    fused = play_path(bed_factory, tmp_path, release_shimmerd, "auto")
    alone = play_path(bed_factory, tmp_path, release_shimmerd, "none")
    print("DualSense at %d Hz, 0.87 m/s^2: fused %.3f deg RMS (worst %.3f), accelerometer alone %.3f (worst %.3f); "
          "drops %d, %d" % (RATE, fused.rms, fused.worst, alone.rms, alone.worst, fused.drops, alone.drops))
    assert fused.gyros >= 0.9 * (STILL + SWEEP) * RATE, "gyroscope readings: %d" % fused.gyros
    assert not any("disagrees" in x for x in fused.logs), [x for x in fused.logs if "disagrees" in x]
    assert fused.rms <= 0.35, "fused tilt error %.3f deg RMS (worst %.3f)" % (fused.rms, fused.worst)
    assert alone.rms > 1.5, "accelerometer-only tilt error %.3f deg RMS: the path does not test fusion" % alone.rms


DISAGREES = r"the gyroscope disagrees with the accelerometer"
MIRRORED_SWEEP = 20.0


@in_real_time
def test_a_mirrored_gyroscope_axis_in_the_controller_table_is_caught_by_the_frame_check(bed_factory, tmp_path,
                                                                                        release_shimmerd):
    """A controller whose pitch rate (ABS_RX) is the opposite of what its table entry says,
    played with (turns the frame check weighs): the check doubts the gyroscope and names a
    frame that fits, and from then on the card is as good as the accelerometer alone
    makes it on the same stretch of the path."""
    mirrored = play_path(bed_factory, tmp_path, release_shimmerd, "auto", PLAYED_WITH, MIRRORED_SWEEP, mirrored_axis=0,
                         watch=[DISAGREES])
    alone = play_path(bed_factory, tmp_path, release_shimmerd, "none", PLAYED_WITH, MIRRORED_SWEEP)
    caught = mirrored.seen.get(DISAGREES)
    end = STILL + MIRRORED_SWEEP
    print("mirrored ABS_RX, played with: doubted %s; before: %.2f deg RMS (accelerometer alone %.2f); after: %.2f "
          "(alone %.2f); correct frame: see the hand-held test"
          % ("%.1f s into the motion" % (caught - STILL) if caught else "never",
             mirrored.rms_between(STILL + 1, caught or end),
             alone.rms_between(STILL + 1, caught or end), mirrored.rms_between((caught or end) + 1, end),
             alone.rms_between((caught or end) + 1, end)))
    line = [x for x in mirrored.logs if re.search(DISAGREES, x)]
    assert caught and len(line) == 1 and "input:event21" in line[0] and "another frame" in line[0], line
    assert caught - STILL <= 20, "doubted %.1f s into the motion" % (caught - STILL)
    after, alone_after = mirrored.rms_between(caught + 1, end), alone.rms_between(caught + 1, end)
    assert after <= 1.1 * alone_after, "after the verdict %.2f deg RMS, accelerometer alone %.2f" % (after, alone_after)


@in_real_time
def test_a_mirrored_gyroscope_axis_never_makes_the_card_worse_than_its_accelerometer_alone(bed_factory, tmp_path,
                                                                                           release_shimmerd):
    """A controller whose table entry has its pitch rate (ABS_RX) mirrored, on the hand-held
    path (0.87 m/s^2): until the frame check trusts the frame the gyroscope is weighed by how
    well it explains the motion, so the card is no worse than the accelerometer alone makes
    it, and the mismatch is named within 10 s."""
    mirrored = play_path(bed_factory, tmp_path, release_shimmerd, "auto", mirrored_axis=0, watch=[DISAGREES])
    alone = play_path(bed_factory, tmp_path, release_shimmerd, "none")
    caught = mirrored.seen.get(DISAGREES)
    print("mirrored ABS_RX on the hand-held path: %.3f deg RMS (worst %.3f); accelerometer alone %.3f; doubted %s"
          % (mirrored.rms, mirrored.worst, alone.rms,
             "%.1f s into the motion" % (caught - STILL) if caught else "never"))
    assert mirrored.rms <= alone.rms * 1.05, "mirrored %.3f deg RMS, accelerometer alone %.3f" % (mirrored.rms,
                                                                                                  alone.rms)
    # The frame check names the mismatch within 10 s of an ordinary hand's motion.
    assert caught and caught - STILL <= 10, "doubted %s" % (caught and caught - STILL)
    line = [x for x in mirrored.logs if re.search(DISAGREES, x)]
    assert len(line) == 1 and "input:event21" in line[0] and "another frame" in line[0], line


# --- events the kernel dropped ---

@in_real_time
@pytest.mark.parametrize("gyro", ["auto", "none"], ids=["fused", "accelerometer alone"])
def test_after_syn_dropped_while_tipped_the_tilt_is_right_within_a_second(bed_factory, tmp_path, release_shimmerd,
                                                                          gyro):
    """The controller lies at a pose, is tipped while the daemon's reads fall behind (the
    kernel drops the reports of the turn and hands over SYN_DROPPED), and lies still tipped:
    still, it sends no ABS event (the input core drops changes within fuzz), so only the
    resync knows where it is, and the fusion never saw the turn. Within 1 s of the drop
    the tilt is the controller's."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    rng = random.Random(3)
    held = {"accel": pose(0, LEAN)}
    tipped_by = (0.25, -0.15)          # radians of roll and of pitch

    def still(n, t):
        return {c: v + rng.gauss(0, 1.0) for c, v in controller_counts(held["accel"], [0, 0, 0]).items()}
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21", "--set", "Sensor.gyro=" + gyro,
                          binary=release_shimmerd)
    d.wait_log(r"using input:event21 .* in input mode", "input mode")
    feeder = Feeder(node, still, lambda: RATE)
    try:
        wait_trace(trace, lambda r: r["type"] == "baseline", "the baseline", d)
        time.sleep(1.5)                # fused: the zero-rate offset learnt at rest
        feeder.stop.set()
        feeder.thread.join()
        # The turn, 0.5 s of it, lost: the kernel's state follows, the reader gets nothing.
        start = pose(0, LEAN)
        for k in range(1, 126):
            f = k / 125
            node.set(controller_counts(pose(tipped_by[0] * f, LEAN + tipped_by[1] * f),
                                       [0.5 * tipped_by[1], 0, -0.5 * tipped_by[0]]))
        node.set(controller_counts(pose(*[a + b for a, b in zip((0, LEAN), tipped_by)]), [0, 0, 0]))
        held["accel"] = pose(tipped_by[0], LEAN + tipped_by[1])
        dropped_at = time.monotonic()
        node.drop()
        feeder = Feeder(node, still, lambda: RATE)
        d.wait_log(r"input:event21 .*: the kernel dropped events \(SYN_DROPPED\)", "the resync's line")
        noticed = time.monotonic() - dropped_at
        time.sleep(1.6)
    finally:
        feeder.close()
    assert d.stop() == 0
    assert node.dropped == 1
    samples = read_trace(trace, "sample", final=True)
    want = tilt(start, held["accel"])
    tipped_accel = controller_accel(node.state())
    # The first reading of the tipped state is the resync's; from it on, the drop's clock.
    first = next(s for s in samples if max(abs(a - b) for a, b in zip(s["accel"], tipped_accel)) < 0.05)
    late = [s for s in samples if first["t"] + 1.0 <= s["t"] <= first["t"] + 1.5]
    assert late, "no samples 1 s after the resync"
    worst = max(max(abs(s["dpitch"] - want[0]), abs(s["droll"] - want[1])) for s in late)
    print("%s: resync noticed %.3f s after the drop; tilt error 1-1.5 s after it at most %.4f rad (want %.3f, %.3f)"
          % (gyro, noticed, worst, want[0], want[1]))
    assert noticed < 1.0
    assert worst < 0.01, "tilt %.4f rad off 1 s after the drop" % worst


# --- lis3lv02d ---

@in_real_time
def test_lis3lv02d_is_taken_by_auto_and_two_held_tilts_read_within_0_01_rad(bed_factory, tmp_path):
    """milli-g (the units table), through the udev ACCEL_MOUNT_MATRIX; the reports come at
    the poller's interval, which Sensor.rate set (and the exit restores), and only while
    the values change: a held tilt sends nothing after its first report."""
    bed = bed_factory(LIS3)
    node = EvdevNode(bed, LIS3 + ".event6")
    rng = random.Random(5)
    poses = [pose(0, 0.2), pose(0.15, 0.3), pose(-0.1, 0.05)]
    held = {"i": 0}

    def poll_rate():
        return 1000 / max(1, int(bed.attr(LIS3_INPUT, "poll").strip() or 50))

    def report(n, t):
        return {c: v + rng.choice((-1, 0, 0, 1)) for c, v in lis3_counts(poses[held["i"]]).items()}
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.rate=60")
    _, line = d.wait_log(r"using input:event6 \(ST LIS3LV02DL Accelerometer\) in input mode", "lis3lv02d taken")
    assert "no usable IIO accelerometer; an input accelerometer, not part of a game controller" in line
    assert "mount matrix 0, -1, 0; -1, 0, 0; 0, 0, -1 from udev:ACCEL_MOUNT_MATRIX" in line
    assert "units: table: lis3lv02d: milli-g" in line and "poll 50 -> 17 ms (58.8 Hz" in line
    assert bed.attr(LIS3_INPUT, "poll").strip() == "17"
    feeder = Feeder(node, report, poll_rate, timestamps=False)
    try:
        wait_trace(trace, lambda r: r["type"] == "baseline", "the baseline", d)
        base = lis3_accel(node.state())
        errors = []
        for i in (1, 2):
            held["i"] = i
            time.sleep(1.5)
            want = tilt(base, lis3_accel(node.state()))
            s = read_trace(trace, "sample")[-1]
            errors.append(max(abs(s["dpitch"] - want[0]), abs(s["droll"] - want[1])))
            print("held tilt %d: dpitch %.4f droll %.4f, want %.4f %.4f" % (i, s["dpitch"], s["droll"], *want))
    finally:
        feeder.close()
    assert d.stop() == 0
    assert bed.attr(LIS3_INPUT, "poll").strip() == "50", "the poll interval restored on exit"
    assert all(e <= 0.01 for e in errors), errors


# --- the device's clock ---

@in_real_time
@pytest.mark.parametrize("stamps", ["sane", "frozen", "random"])
def test_implausible_controller_timestamps_fall_back_to_arrival_times_without_drops(bed_factory, tmp_path, stamps,
                                                                                    release_shimmerd):
    """A DualSense at 250 Hz lying on a desk for 8 s, its sensors' noise as an IMU's at that
    rate (15 counts, 1.8 mg, on the accelerometer; 90 counts, 0.09 deg/s, on the gyroscope:
    every axis changes in every report, 8 events each), whose MSC_TIMESTAMP counts its
    microseconds, stands still, or is random. The daemon reads a still device slowly, but
    never later than the kernel's buffer for it lasts, which the reports' arrival times tell
    whatever the device's clock says: the kernel drops nothing (no SYN_DROPPED), every
    report is a gyroscope reading, and a clock that cannot be right is said once, the
    reports placed at their arrival times. The release build, as the other real-time tests:
    the debug build's milliseconds per reading would make the reads late by themselves."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    noise, clock_rng = random.Random(7), random.Random(11)
    rest = controller_counts(pose(0, LEAN), [0, 0, 0])

    def model(n, t):
        return {c: v + noise.gauss(0, 15 if c <= ABS_Z else 90) for c, v in rest.items()}
    stamp = {"sane": None, "frozen": lambda n, t: 123456789, "random": lambda n, t: clock_rng.getrandbits(32)}[stamps]
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21", "--set", "Sensor.gyro=auto",
                          name="stamps-" + stamps, binary=release_shimmerd)
    d.wait_log(r"using input:event21 .* in input mode", "input mode")
    seconds = 8.0
    feeder = Feeder(node, model, lambda: RATE, stamp=stamp)
    try:
        wait_until(lambda: feeder.n >= seconds * RATE, "%g s of reports" % seconds, d, timeout=3 * seconds + 20)
    finally:
        feeder.close()
    time.sleep(0.5)
    assert d.poll() is None
    assert d.stop() == 0
    gyros = len(read_trace(trace, "gyro", final=True))
    drops = [x for x in d.logs if "SYN_DROPPED" in x]
    clock = [x for x in d.logs if "MSC_TIMESTAMP" in x]
    print("%s MSC_TIMESTAMP: %d reports, %d dropped by the kernel (SYN_DROPPED), %d gyroscope records (%.0f %%), "
          "%d lines about drops, %d about the clock: %s"
          % (stamps, feeder.n, node.dropped, gyros, 100.0 * gyros / feeder.n, len(drops), len(clock), clock))
    assert node.dropped == 0 and not drops, drops[:3]
    assert gyros >= 0.95 * feeder.n, "%d gyroscope records of %d reports" % (gyros, feeder.n)
    if stamps == "sane":
        assert not clock, clock
    else:
        assert len(clock) == 1 and "implausible MSC_TIMESTAMP" in clock[0] and "arrival times" in clock[0], clock


# --- which input device auto takes ---

VIRTUAL = "uinput_accelerometer"


def test_auto_takes_the_built_in_lis3lv02d_over_a_virtual_accelerometer_of_a_lower_event_number(bed_factory,
                                                                                                tmp_path):
    """A uinput device at event3 that copies lis3lv02d's name and BUS_HOST, and the laptop's
    own lis3lv02d at event6: `auto` takes the built-in one, whatever the event numbers, and
    `shimmerd sensors` and the attach line say why (the virtual one sits under
    /sys/devices/virtual)."""
    bed = bed_factory(LIS3, VIRTUAL)
    laptop = EvdevNode(bed, LIS3 + ".event6")
    forged = EvdevNode(bed, VIRTUAL + ".event3")
    report = sensors_json(bed)
    devices = {d["device"]: d for d in report["devices"]}
    print("sensors: selected %s (%s); input:event3: %s" % (report["selected"], report["reason"],
                                                           devices["input:event3"]["why"]))
    assert report["selected"] == "input:event6", report["reason"]
    assert ("built in (BUS_HOST, %s); preferred over 1 virtual, USB or Bluetooth one" % LIS3_INPUT) in report["reason"]
    assert devices["input:event3"]["why"] == ("virtual (/sys/devices/virtual/input/input3); auto prefers a built-in "
                                              "device, input:event6")
    assert devices["input:event3"]["input"]["built_in"] is False
    assert devices["input:event6"]["input"]["built_in"] is True
    text = bed.run("sensors").stdout
    assert "placement: virtual (/sys/devices/virtual/input/input3) (auto prefers a built-in device)" in text, text
    # The daemon takes it and says why; the virtual node is never read.
    rng = random.Random(5)
    feeders = [Feeder(node, lambda n, t: {c: v + rng.choice((-1, 0, 1)) for c, v in lis3_counts(pose(0, 0.2)).items()},
                      lambda: 20, timestamps=False) for node in (laptop, forged)]
    try:
        d, trace = run_daemon(bed, tmp_path)
        _, line = d.wait_log(r"using input:event\d+ ", "an input device taken")
        wait_until(lambda: len(read_trace(trace, "sample")) > 0, "samples", d)
        time.sleep(1.0)
    finally:
        for f in feeders:
            f.close()
    time.sleep(0.2)         # the last report read
    print("attach line: %s; unread events: laptop %d, virtual %d" % (line, laptop.unread(), forged.unread()))
    assert "using input:event6 (ST LIS3LV02DL Accelerometer) in input mode" in line, line
    assert "built in (BUS_HOST, %s); preferred over 1 virtual, USB or Bluetooth one" % LIS3_INPUT in line, line
    assert laptop.unread() == 0 and forged.unread() > 0, "the virtual device was read"
    assert d.stop() == 0


def test_a_bad_reading_of_an_input_device_names_its_axes(bed_factory, tmp_path):
    """lis3lv02d whose axes read (0, 0, 0) when it is taken, then a sane tilt: the
    skipped-sample line names the node's axes (ABS_X,ABS_Y,ABS_Z), not an IIO device's
    attributes, with the counts; the next good report is used."""
    bed = bed_factory(LIS3)
    node = EvdevNode(bed, LIS3 + ".event6")
    assert node.state() == {ABS_X: 0, ABS_Y: 0, ABS_Z: 0}
    d, trace = run_daemon(bed, tmp_path)
    d.wait_log(r"using input:event6 .* in input mode", "lis3lv02d taken")
    _, line = d.wait_log(r"sample skipped", "the skipped sample")
    node.report(lis3_counts(pose(0, 0.2)))
    wait_until(lambda: len(read_trace(trace, "sample")) > 0, "a sample of the good report", d)
    print("line: %s" % line)
    assert 'input:event6 (ST LIS3LV02DL Accelerometer): sample skipped: ABS_X,ABS_Y,ABS_Z = "0 0 0": zero ' \
           'acceleration vector' in line, line
    assert not [x for x in d.logs if "in_accel" in x], d.logs
    assert d.stop() == 0


# --- wakeups ---

def read_calls(pid):
    """read(2)-like system calls of the process (/proc/PID/io syscr): the daemon's reads of
    the node (it reads nothing else while it runs from a sensor and paints to null)."""
    with open("/proc/%d/io" % pid) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("syscr:"))


@in_real_time
def test_a_250_hz_controller_moving_costs_at_most_fps_plus_10_wakeups_a_second(bed_factory, tmp_path,
                                                                               release_shimmerd):
    """The daemon drains the node once a frame, whatever the controller's rate. Its
    wakeups: its voluntary context switches, all its threads, less those umockdev's round
    trips to the emulated node cost it (told apart by the call they sleep in), and its
    reads of the node (/proc/PID/io): at most one a frame."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    model = HeldController(node)
    fps = 60
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21", "--set", "Sink.fps=%d" % fps,
                          binary=release_shimmerd)
    d.wait_log(r"using input:event21 .* in input mode", "input mode")
    feeder = Feeder(node, lambda n, t: model(n, STILL + (t % SWEEP)), lambda: RATE)
    try:
        time.sleep(2.0)
        seconds = 5.0
        before, reads0, start = wakeups(d.p.pid), read_calls(d.p.pid), time.monotonic()
        data = record_switches(d.p.pid, seconds, tmp_path)
        elapsed = time.monotonic() - start
        woke, reads = (wakeups(d.p.pid) - before) / elapsed, (read_calls(d.p.pid) - reads0) / elapsed
    finally:
        feeder.close()
    assert d.stop() == 0
    by_call = voluntary_switches(data)
    round_trips = sum(n for call, n in by_call.items() if call in ROUND_TRIP_CALLS) / seconds
    recorded = sum(by_call.values()) / seconds
    own = recorded - round_trips
    print("Sink.fps = %d, 250 Hz controller moving: %.1f wakeups a second (%.1f voluntary switches a second, %.1f of "
          "them in umockdev's round trips for %.1f reads of the node a second); by call: %s; drops %d"
          % (fps, own, woke, round_trips, reads, sorted(by_call.items(), key=lambda x: -x[1]), node.dropped))
    # perf's window is the 5 s of its `sleep`; /proc's also holds perf's start.
    assert abs(recorded - woke) <= 0.1 * woke + 5, "perf saw %.1f switches a second, /proc %.1f" % (recorded, woke)
    assert reads <= fps + 10, "%.1f reads a second: more than one a frame" % reads
    assert own <= fps + 10, "%.1f wakeups a second" % own


# --- hotplug ---

def test_a_named_controller_is_waited_for_attached_released_with_one_line_and_taken_again(bed_factory, tmp_path):
    bed = bed_factory(DUALSENSE)
    with open(os.path.join(FIXTURES, DUALSENSE + ".umockdev")) as f:
        text = f.read()
    # Given as a file, not a pty: umockdev makes a node's pty once per testbed.
    motion = (block_of(text, MOTION[len("/sys"):]).replace("N: input/event21\n", "N: input/event21=00\n") + "\n"
              + block_of(text, MOTION[len("/sys"):-len("/event21")]))
    bed.remove(MOTION)
    bed.remove(MOTION[:-len("/event21")])
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=name:" + MOTION_NAME)
    d.wait_log(r"waiting for an accelerometer: no usable accelerometer matches name:", "waiting for the controller")
    for round_ in range(2):
        bed.add(motion)
        node = EvdevNode(bed, DUALSENSE + ".event21")
        feeder = Feeder(node, lambda n, t: controller_counts(pose(0, LEAN), [0, 0, 0]), lambda: RATE)
        try:
            start = len(d.logs)
            d.wait_log(r"using input:event21 .* in input mode", "the controller attached", start=start)
            wait_until(lambda: len(read_trace(trace, "sample")) > 0, "samples", d)
            bed.remove(MOTION)
            bed.remove(MOTION[:-len("/event21")])
            i, _ = d.wait_log(r"accelerometer input:event21 .* disappeared", "the controller gone", start=start)
            time.sleep(1.5)
        finally:
            feeder.close()
            node.close()
        gone = [x for x in d.logs[i:] if "input:event21" in x and "waiting for an accelerometer" not in x]
        assert len(gone) == 1, gone
        assert d.poll() is None
    assert d.stop() == 0


def test_a_node_whose_reads_fail_is_released_with_one_line_and_the_daemon_goes_on(bed_factory, tmp_path):
    """Unplugged, the kernel answers the node's reads with ENODEV before udev's remove event
    comes: one line, the card eases home, and the daemon waits for the controller."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    feeder = Feeder(node, lambda n, t: controller_counts(pose(0, LEAN), [0, 0, 0]), lambda: RATE)
    d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21")
    try:
        d.wait_log(r"using input:event21 .* in input mode", "attached")
        wait_until(lambda: len(read_trace(trace, "sample")) > 0, "samples", d)
        start = len(d.logs)
        node.vanish()
        i, line = d.wait_log(r"accelerometer input:event21 .* vanished \(/dev/input/event21: .*No such device",
                             "the node gone", start=start)
        bed.remove(MOTION)
        time.sleep(2.5)
    finally:
        feeder.close()
    assert d.poll() is None
    vanished = [x for x in d.logs[start:] if "input:event21" in x and "waiting for an accelerometer" not in x]
    assert vanished == [line], vanished
    assert d.stop() == 0


# --- a flood ---

FLOOD = r"""
import os, struct, sys, time
path, seconds, report_bytes = sys.argv[1], float(sys.argv[2]), sys.argv[3]
EVENT = struct.Struct("<qqHHi")
reports = [bytes.fromhex(r) for r in report_bytes.split(",")]
per_report = len(reports[0]) // EVENT.size
batch = 8                                  # 8 reports of 8 events: 1536 bytes, one atomic pipe write
block = bytearray(b"".join(reports[k % len(reports)] for k in range(batch)))
stamps = [k * per_report + i for k in range(batch) for i in range(per_report)
          if struct.unpack_from("<HH", block, (k * per_report + i) * EVENT.size + 16) == (4, 5)]
dropped_event = bytearray(EVENT.pack(0, 0, 0, 3, 0))
fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
sent = lost = 0
behind = False
t0 = time.monotonic()
while time.monotonic() - t0 < seconds:
    ns = time.monotonic_ns()
    sec, usec = divmod(ns // 1000, 1_000_000)
    for e in range(0, len(block), EVENT.size):
        struct.pack_into("<qq", block, e, sec, usec)
    for k, e in enumerate(stamps):        # MSC_TIMESTAMP: the device's microseconds, 16 apart
        us = (ns // 1000 + 16 * k) & 0xFFFFFFFF
        struct.pack_into("<i", block, e * EVENT.size + 20, us - (1 << 32) if us & 0x80000000 else us)
    data = block
    if behind:
        struct.pack_into("<qq", dropped_event, 0, sec, usec)
        data = dropped_event + block
    try:
        os.write(fd, data)
        behind = False
    except BlockingIOError:
        behind = True                     # the reader's buffer is full: these reports are lost
        lost += batch
    sent += batch
print(sent, lost, time.monotonic() - t0)
"""


def flood_reports(node, poses):
    """Each pose's report as the input core hands it over (every axis changed beyond its
    fuzz: the poses alternate), its times left for the flooder to stamp: hex."""
    out = []
    for k, counts in enumerate(poses):
        events = [(3, c, int(round(v))) for c, v in counts.items()]
        events += [(4, 5, 0), (0, 0, 0)]
        out.append(b"".join(struct.pack("<qqHHi", 0, 0, *e) for e in events).hex())
    return ",".join(out)


def test_a_flood_of_60000_reports_a_second_keeps_the_heartbeat_and_memory_bounded(bed_factory, tmp_path):
    """A controller that reports as fast as its node can be written (60,000 reports a
    second or more, 8 events each: the six axes, MSC_TIMESTAMP, SYN_REPORT) for 20 s, named and
    read with its gyroscope (every report a reading). The reader's buffer is the node's
    pipe (64 KiB, 2730 events: the flooder cannot take the oldest events out from under a
    reader, as evdev does, without splitting one), kept full, so a reader never finds it
    empty; reports that find it full are lost and SYN_DROPPED precedes the next. With
    WATCHDOG_USEC = 100 ms the loop's heartbeat (WATCHDOG=1, due every 50 ms) keeps at
    least 8 a second in every second of the flood, the RSS grows by at most 5 MB, the
    lines (SYN_DROPPED, the flood itself, libevdev's own) come at most one a second, and
    samples go on."""
    bed = bed_factory(DUALSENSE)
    node = EvdevNode(bed, DUALSENSE + ".event21")
    rest = controller_counts(pose(0, LEAN), [0, 0, 0])
    node.set(rest)
    beats = Heartbeats(str(tmp_path / "notify"))
    seconds, rate = 20.0, 60000
    try:
        d, trace = run_daemon(bed, tmp_path, "--set", "Sensor.device=input:event21", "--set", "Sensor.gyro=auto",
                              extra_env=beats.env)
        d.wait_log(r"using input:event21 .* in input mode", "input mode")
        feeder = Feeder(node, lambda n, t: controller_counts(pose(0.05 * math.sin(t), LEAN), [0, 0, 0]), lambda: RATE)
        try:
            wait_trace(trace, lambda r: r["type"] == "baseline", "the baseline", d)
            time.sleep(1.0)
        finally:
            feeder.close()
        before = rss_kib(d.p.pid)
        samples_before = len(read_trace(trace, "sample"))
        lines_before = len(d.logs)
        poses = [controller_counts(pose(0.1 * s, LEAN), [0.3 * s, -0.2 * s, 0.1 * s]) for s in (1, -1)]
        flooder = subprocess.Popen([sys.executable, "-c", FLOOD, bed.root + node.devnode, str(seconds),
                                    flood_reports(node, poses)],
                                   stdout=subprocess.PIPE, text=True)
        bed.children.append(flooder)
        t0 = time.monotonic()
        peak = before
        while flooder.poll() is None:
            peak = max(peak, rss_kib(d.p.pid))
            time.sleep(0.25)
        t1 = time.monotonic()
        sent, lost, took = flooder.stdout.read().split()
        assert d.poll() is None
        after_flood = rss_kib(d.p.pid)
        # Every whole second of the flood (the first half second the flooder starts up).
        per_second = [sum(1 for t, m in beats.messages if m == "WATCHDOG=1" and s <= t < s + 1)
                      for s in [t0 + 0.5 + k for k in range(int(t1 - t0 - 1))]]
        samples = len(read_trace(trace, "sample")) - samples_before
        resyncs = [x for x in d.logs[lines_before:] if "SYN_DROPPED" in x]
        kinds = collections.Counter(re.sub(r"[0-9.]+", "N", x)[:110] for x in d.logs[lines_before:])
        print("lines during the flood, by kind: %s" % kinds.most_common(6))
        print("flood: %s reports in %.1f s (%.0f a second), %s of them lost in the reader's full buffer; "
              "heartbeats a second min %d, median %d; RSS %d KiB before, peak %d KiB (+%d KiB), %d KiB after; "
              "%d samples; %d lines, %d of them SYN_DROPPED"
              % (sent, float(took), int(sent) / float(took), lost, min(per_second),
                 sorted(per_second)[len(per_second) // 2], before, peak, peak - before, after_flood, samples,
                 len(d.logs) - lines_before, len(resyncs)))
        assert int(sent) / float(took) >= rate, "the flood was slower than %d reports a second" % rate
        assert min(per_second) >= 8, per_second
        assert peak - before <= 5 * 1024, "RSS %d -> %d KiB" % (before, peak)
        assert samples > 0, "no sample during the flood"
        assert len(resyncs) <= seconds + 2, resyncs[:5]
        # Every line of the flood is one of the daemon's (libevdev's own messages included,
        # said through it), one a second at most of each kind.
        assert len(d.logs) - lines_before <= seconds + 5, kinds.most_common(6)
        assert all(x.startswith("shimmerd: ") for x in d.logs[lines_before:]), kinds.most_common(6)
        assert d.stop() == 0
    finally:
        beats.close()
