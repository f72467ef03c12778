"""The fused tilt follows a hand-held path: the real shimmerd on the emulated MPU-6500
(accelerometer and gyroscope in one IIO device and one 24-byte scan) and on a HID sensor
hub (accel_3d and gyro_3d, sibling devices, each read from its own buffer), in buffer mode,
fed scans at 100 Hz as the kernel would hand them over. The scans come from a known path
through a sensor model like the motion benchmark's: a slow sweep (pitch +-4 degrees at
0.5 Hz, roll +-8 degrees at 0.3 Hz, held 30 degrees from upright) with hand-held linear
acceleration (0.5 m/s^2 RMS as a vector, 0.7-2.3 Hz; and a shaking hand's 0.87 m/s^2, 0.5 per
axis), accelerometer noise of 1.5 LSB, and a gyroscope
with a 0.5 deg/s zero-rate offset and 1 LSB of noise.

Each traced `sample` is matched to the scan it came from (by its accelerometer reading,
in order), and its dpitch and droll are compared with the true tilt of that scan
(docs/TILT.md, "Axes and signs" to "The two angles", computed here independently). With the gyroscope the error
stays small; with `Sensor.gyro = none` the same scans, read by the accelerometer alone,
show the hand's acceleration as tilt: the test shows both, so it cannot pass by accident.
Angles, not times: the feeder's timing moves when scans arrive, not what they say."""
import math
import random
import struct
import subprocess
import sys
import threading
import time

import pytest

from support.harness import HUB, IMU, Device, ScanPipe, read_trace, tilt, wait_until
from support.motion_paths import STILL, SWEEP, HandHeld, matched, true_reading

# Fed in real time at 100 Hz: ahead of the rest of a parallel run (conftest.py's
# `realtime`), and one at a time.
pytestmark = [pytest.mark.usefixtures("realtime"), pytest.mark.xdist_group("realtime")]

RATE = 100


def body_rate(t, h=1e-4):
    """rad/s, device frame: the turn that moves gravity's direction as the path does
    (da/dt = -w x a, so w = (da/dt x a) / |a|^2; a turn about gravity itself is invisible
    to the accelerometer and left out)."""
    a = true_reading(t)
    da = [(p - m) / (2 * h) for p, m in zip(true_reading(t + h), true_reading(t - h))]
    n2 = sum(x * x for x in a)
    return [(da[1] * a[2] - da[2] * a[1]) / n2, (da[2] * a[0] - da[0] * a[2]) / n2,
            (da[0] * a[1] - da[1] * a[0]) / n2]


class SensorModel:
    """Scans of the path with noise and quantisation; remembers, for each scan in the order
    it was made, the accelerometer reading the daemon will compute from it and the tilt
    it truly had."""

    def __init__(self, dev, seed, hand_rms=0.5, hub=False, gyro_pipe=None):
        self.dev = dev
        self.rng = random.Random(seed)
        self.hand = HandHeld(self.rng, hand_rms)
        self.hub = hub
        self.gyro_pipe = gyro_pipe   # a hub: the gyroscope's scans go to its own node
        offset = math.radians(0.5) / math.sqrt(3)
        self.gyro_offset = [offset, -offset, offset]
        self.baseline = true_reading(0)
        self.made = []          # (accel the daemon reads, true (dpitch, droll))

    def __call__(self, t, ts_ns):
        a = [g + h for g, h in zip(true_reading(t), self.hand(t))]
        raw = [r + int(round(self.rng.gauss(0, 1.5))) for r in self.dev.raw_for(a)]
        w = [x + o for x, o in zip(body_rate(t), self.gyro_offset)]
        self.made.append((self.dev.accel_of(raw), tilt(self.baseline, true_reading(t))))
        if self.hub:
            # hid-sensor-gyro-3d: x, y, z le:s32 and the timestamp le:s64 at 16; identity frame.
            gyro_raw = [int(round(x / self.dev.exp["gyro_scale"] + self.rng.gauss(0, 1.0))) for x in w]
            try:
                if self.gyro_pipe is not None:
                    self.gyro_pipe.send(struct.pack("<3i4xq", *gyro_raw, ts_ns))
            except BlockingIOError:
                pass
            return struct.pack("<3i4xq", *raw, ts_ns)
        gyro_raw = [r + int(round(self.rng.gauss(0, 1.0))) for r in self.dev.gyro_raw_for(w)]
        return self.dev.scans(None, count=1, ts0=ts_ns, raw=raw, gyro_raw=gyro_raw)


def run_path(bed_factory, tmp_path, gyro, fixture=IMU, hand_rms=0.5, sweep=SWEEP, extra=(), verdict=None, late=None):
    """The path through the daemon; the tilt error over the sweep after its first second
    (RMS and worst, degrees). `verdict`, a list, gets the seconds from the start of the
    sweep to the self-check's log line; without it, that line fails the run."""
    dev = Device(fixture)
    bed = bed_factory(fixture)
    pipe = ScanPipe(bed, dev)
    gyro_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device3"})()) if fixture == HUB and gyro != "none" else None
    trace = str(tmp_path / ("trace-%s.jsonl" % gyro))
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=%d" % RATE,
                  "--set", "Sensor.gyro=" + gyro, "--set", "Sink.type=null", "--set", "Trace.path=" + trace, *extra)
    if fixture == HUB:
        d.wait_log(r"using iio:device2 \(accel_3d\) in buffer mode", "buffer mode")
    else:
        d.wait_log(r"using iio:device0 \(mpu6500\) in buffer mode", "buffer mode")
    model = SensorModel(dev, seed=7, hand_rms=hand_rms, hub=fixture == HUB, gyro_pipe=gyro_pipe)
    stop = threading.Event()
    started = time.monotonic()
    feeder = pipe.feed(bed, None, stop, scan_at=model, late=late)

    def played():
        if verdict is not None and not verdict and any("disagrees" in x for x in d.logs):
            verdict.append(time.monotonic() - started - STILL)
        return model.made and len(model.made) >= (STILL + sweep) * RATE
    try:
        wait_until(played, "the path to be played", d, timeout=3 * (STILL + sweep) + 20)
    finally:
        stop.set()
        feeder.join()
    assert d.poll() is None
    assert d.stop() == 0
    pipe.close()
    if gyro_pipe is not None:
        gyro_pipe.close()
    records = read_trace(trace, final=True)
    samples = [r for r in records if r["type"] == "sample"]
    pairs = matched(samples, model.made)
    assert len(pairs) == len(samples), "every sample is one of the scans fed, in order"
    # The sweep only, after its first second (the estimator's start-up is not the point).
    moving = [(s, want) for s, want in pairs if s["t"] - pairs[0][0]["t"] > STILL + 1.0]
    assert len(moving) >= 50, "samples during the sweep: %d" % len(moving)
    errors = [math.degrees(math.hypot(s["dpitch"] - want[0], s["droll"] - want[1])) for s, want in moving]
    rms = math.sqrt(sum(e * e for e in errors) / len(errors))
    gyro_records = sum(1 for r in records if r["type"] == "gyro")
    if verdict is None:
        assert not any("disagrees" in x for x in d.logs), [x for x in d.logs if "disagrees" in x]
    return rms, max(errors), gyro_records, d


def test_the_fused_tilt_follows_a_hand_held_path_within_a_third_of_a_degree(bed_factory, tmp_path):
    rms, worst, gyro_records, d = run_path(bed_factory, tmp_path, "auto")
    assert gyro_records >= 50, gyro_records
    # 1 degree of tilt is 17 points of focal travel: a third of a degree is under 6 points.
    assert rms < 0.33, "fused tilt error %.3f deg RMS (worst %.3f)" % (rms, worst)
    assert worst < 1.0, "fused tilt error worst %.3f deg (RMS %.3f)" % (worst, rms)


def test_the_accelerometer_alone_takes_the_hands_acceleration_for_tilt(bed_factory, tmp_path):
    """The same scans without the gyroscope: what the fused result is measured against."""
    rms, worst, gyro_records, d = run_path(bed_factory, tmp_path, "none")
    assert gyro_records == 0
    assert rms > 1.0, "accelerometer-only tilt error %.3f deg RMS: the path does not test fusion" % rms


@pytest.mark.parametrize("fixture", [IMU, HUB])
def test_the_fused_tilt_follows_a_shaking_hand_within_0_35_degrees(bed_factory, tmp_path, fixture):
    """A shaking hand (0.87 m/s^2 RMS as a vector) on a combined IMU and on a hub's sibling
    devices: the gyroscope is kept (no verdict) and the fused tilt stays within 0.35
    degrees RMS of the truth, where the accelerometer alone is degrees off."""
    rms, worst, gyro_records, d = run_path(bed_factory, tmp_path, "auto", fixture=fixture, hand_rms=0.87)
    assert gyro_records >= 50, gyro_records
    assert rms <= 0.35, "fused tilt error %.3f deg RMS (worst %.3f)" % (rms, worst)
    alone, _, _, _ = run_path(bed_factory, tmp_path, "none", fixture=fixture, hand_rms=0.87)
    print("%s: fused %.3f deg RMS (worst %.3f), accelerometer alone %.3f" % (fixture, rms, worst, alone))
    assert alone > 1.5, "accelerometer-only tilt error %.3f deg RMS: the path does not test fusion" % alone


def test_a_gyroscope_read_in_a_mirrored_frame_never_makes_the_tilt_worse_than_the_accelerometer_alone(
        bed_factory, tmp_path):
    """The combined IMU with `Sensor.gyro_mount_matrix` mirroring x (a hwdb entry's mistake;
    the frame that fits is another), held in a shaking hand (0.87 m/s^2) for 14 s: until
    the frame fits, the gyroscope's weight follows the evidence, so the fused tilt is no
    worse than the accelerometer's alone on the same scans, and the mismatch is reported,
    naming the frame that fits, within 10 s of the hand starting to move."""
    when = []
    rms, worst, gyro_records, d = run_path(bed_factory, tmp_path, "auto", hand_rms=0.87, sweep=14.0,
                                           extra=("--set", "Sensor.gyro_mount_matrix=-1, 0, 0; 0, 1, 0; 0, 0, 1"),
                                           verdict=when)
    assert gyro_records >= 50, gyro_records
    [line] = [x for x in d.logs if "disagrees" in x]
    assert 'turned by the matrix "0, 1, 0; -1, 0, 0; 0, 0, -1"' in line, line
    alone, _, _, _ = run_path(bed_factory, tmp_path, "none", hand_rms=0.87, sweep=14.0)
    print("mirrored frame: fused %.3f deg RMS (worst %.3f), accelerometer alone %.3f; reported %.1f s into the "
          "hand's motion" % (rms, worst, alone, when[0] if when else float("nan")))
    assert when and when[0] <= 10.0, "reported %s s into the motion" % when
    assert rms <= alone, "fused %.3f deg RMS, the accelerometer alone %.3f" % (rms, alone)


def bursts(g):
    """Seconds a group of scans comes late: every tenth group and the two after it by
    120 ms (a daemon that wakes late, then finds them all at once), the rest on time."""
    return 0.12 if g % 10 in (3, 4, 5) else 0.0


@pytest.mark.parametrize("fixture", [IMU, HUB])
def test_scans_read_late_give_the_same_tilt_as_scans_read_on_time(bed_factory, tmp_path, fixture):
    """The shaking hand's path on the combined IMU and on the hub's two buffers, the scans
    handed over in late bursts: a reading's time is its scan's own timestamp, so the fused
    tilt is as close to the truth as when every scan is read on time."""
    quiet, _, _, _ = run_path(bed_factory, tmp_path, "auto", fixture=fixture, hand_rms=0.87)
    late, worst, gyro_records, _ = run_path(bed_factory, tmp_path, "auto", fixture=fixture, hand_rms=0.87, late=bursts)
    print("%s: fused %.3f deg RMS read on time, %.3f read late in bursts (worst %.3f)" % (fixture, quiet, late, worst))
    assert gyro_records >= 50, gyro_records
    # On main: 0.09 on time, 3.7 late (the IMU); 0.13 and 3.5 (the hub). Now, with the
    # release build, 0.09 and 0.09, 0.07 and 0.07; a debug build, slower per wakeup, has
    # shown the hub at 0.13 and 0.25.
    assert late <= 0.35 and late <= quiet + 0.15, "on time %.3f, late %.3f deg RMS" % (quiet, late)


@pytest.mark.parametrize("fixture", [IMU, HUB])
def test_the_fused_tilt_is_the_same_while_both_cores_are_busy(bed_factory, tmp_path, fixture):
    """The same path with two busy loops (one a core, at the daemon's priority) running
    beside it: the machine's load moves when scans are read, not what they say. (How late
    the daemon wakes under load depends on the machine and its other work; the bursts of
    the test above make it late by design.)"""
    quiet, _, _, _ = run_path(bed_factory, tmp_path, "auto", fixture=fixture, hand_rms=0.87)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded, worst, gyro_records, _ = run_path(bed_factory, tmp_path, "auto", fixture=fixture, hand_rms=0.87)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print("%s: fused %.3f deg RMS on a quiet machine, %.3f with both cores busy (worst %.3f)"
          % (fixture, quiet, loaded, worst))
    assert gyro_records >= 50, gyro_records
    assert loaded <= 0.35 and loaded <= quiet + 0.15, "quiet %.3f, busy %.3f deg RMS" % (quiet, loaded)
