#!/usr/bin/python3
"""Motion quality: how closely the drawn focal point follows a known tilt path.

Synthetic tilt paths are turned into sensor readings by a sensor model, written as a
trace (`reading` records for the accelerometer, `gyro` records for the gyroscope, 100 Hz
each) and fed to the real daemon as its sensor:

    shimmerd run --config EMPTY --set Sensor.device=trace:FILE --set Sensor.trace_speed=max \
        --set Sink.type=null --set Trace.path=OUT [--set Sensor.gyro=none]

The daemon runs the trace on trace time (deterministic, as fast as possible), and its own
trace's `frame` records are what it drew. They are compared with the true focal point,
which this script computes independently from the true orientation (docs/TILT.md, "Axes
and signs" to "The two angles"; docs/CARD.md's mapper with the default card and ranges)
against the baseline the daemon captured (its trace's `baseline` record), so the figures say how the
drawn point follows the device.

Sensor model (a 12-bit accelerometer and a 16-bit gyroscope, both at 100 Hz):
- accelerometer: the direction of gravity in the device frame times g, plus hand-held
  linear acceleration where the path has it (a sum of sinusoids between 0.5 and 3 Hz,
  0.5 m/s^2 RMS as a vector), plus white noise of `noise` LSB RMS, quantised to a
  0.009582 m/s^2 LSB (a +-2 g 12-bit part, as bmc150), clipped to its full scale.
- gyroscope: the body rate (rad/s, device frame, du/dt = -w x u), plus a constant offset
  (0.5 deg/s as a vector), white noise 0.1 deg/s RMS, quantised to 0.0010653 rad/s
  (2000 deg/s full scale, 16 bits). Every random draw is seeded: the inputs are the same
  on every run.

Paths:
- sweep: held 30 degrees from flat; after 1 s, pitch +-4 deg at 0.5 Hz and roll +-8 deg
  at 0.3 Hz for 20 s.
- hand: the sweep, with hand-held linear acceleration (from 1 s on, as the sweep).
- hand-0.87, hand-1, hand-2: the same at 0.87 m/s^2 RMS as a vector (0.5 per axis: a
  shaking hand), 1 and 2 m/s^2.
- walking: the sweep carried by a walker: a 2 Hz step bounce in the world frame, mostly
  vertical (2.5 m/s^2, with harmonics at 4 and 6 Hz: about 3.5 m/s^2 peak), a little
  fore-aft at 2 Hz and a 1 Hz sway.
- taps: the sweep, tapped every 0.7-2 s (at random): a 10-30 ms knock of 10-30 m/s^2 in a
  random direction and its rebound (the hand holds the device: a tap leaves it where it
  was, its velocity unchanged), the case ringing for a moment (a 40 Hz vibration of up to
  0.3 rad/s that leaves the orientation where it was).
- still, still-1lsb, still-3lsb: lying flat for 26 s (accelerometer noise 2, 1 and 3 LSB).
- tilt: lying flat 6 s, then tilted 0.5 deg in pitch within 10 ms, then held for 2 s.
- start-moving: the sweep's motion and a shaking hand (0.87 m/s^2) from the first reading
  on, for 10 s: a device started (or claimed) in the hand.
- hand-0.87-mirrored: hand-0.87 with the gyroscope's rates read in a mirrored frame (x
  reversed, as a wrong hwdb matrix gives them); the peers are given the same rates.
- still-noisy-gyro: lying flat for 26 s, accelerometer noise 0.02 m/s^2, a noisy gyroscope
  (0.3 deg/s RMS per axis, a 0.6 deg/s offset).
- fold: a convertible folded into tablet mode: 3 s in laptop mode (the screen leaned back
  15 degrees), then leaned back to 1.3 rad within 1.5 s (a smooth start and end) and left
  still; the tablet-mode switch fires (a `recapture` record) as the lean passes 1.1 rad.
  fold-early: the same, the switch firing 0.5 s after the fold ends. The truth is taken
  against the pose the fold ends in (the baseline the switch asks for): the card's origin.

Figures (each path with and without a gyroscope):
- error: RMS and 95th percentile of |drawn - true| (points), sampled every 5 ms while the
  path moves (sweep, hand: from 2 s on).
- lag: the delay (ms) that best fits drawn(t) to true(t - lag), and the RMS left at it.
- frames while still: frames published after the first 4 s (still), and the largest
  distance of the drawn point from the true one at the end (drift, points).
- small tilt: ms from the start of the tilt until half of it, and 90 %, is drawn.
- fold: the drawn point's distance from the card's origin, RMS and p95, from 1 s after
  the fold ends (fold-early: after the switch) to the end.
- start-moving: the first frame's time, the frames in the first second and the first
  three, and the error from 0.5 s on.

    /usr/bin/python3 benchmarks/motion.py [--binary PATH] [--json] [--svg FILE] [--keep DIR]
        [--paths sweep,hand,...,tilt] [--accelerometer-only] [--set Section.key=value]...

Against the field's peers (--peers; docs/MOTION.md, "Against the field's peers"): the same
numbers go to the daemon, fused and with `Sensor.gyro=none`, and to VQF, xio Fusion (its
defaults, and its README's rejection settings with its gyroscope offset removal), Madgwick
and Mahony (the `ahrs` package), each at 100 Hz with its default parameters, and to the
accelerometer's direction alone:
- the synthetic paths: the focal point error (points) sample by sample, RMS over the
  moving span, and the best-fit lag, for each estimator's up direction against the
  baseline the daemon captured; for the daemon, its samples' focal point (the mapper's
  target) and its frames (the drawn point) separately;
- the fifteen BROAD trials (../shared/fixtures/broad beside the repository; Laidig et al.
  2021, CC-BY-4.0): the inclination error, the angle between the estimated and the true
  up direction in the sensor frame, RMS over BROAD's movement phases where the truth is
  known, per trial (and against VQF's) and the median;
- for every run of the daemon, whether it gave its gyroscope up (its log's verdicts and
  the trace's `gyro-*` records) and when (its last gyroscope reading used), how many
  gyroscope readings it fused at a weight below one (`gyro` records with a `weight`), and
  on BROAD every frame verdict it gave, word for word.
The peers need a venv (numpy, vqf, imufusion, ahrs, pinned): ./scripts/motion-benchmark.sh
makes it under .build/ and runs this mode.

    .build/motion-venv/bin/python benchmarks/motion.py --peers --binary PATH [--json] [--svg-dir DIR]
        [--paths ...|none] [--broad DIR|none] [--broad-plot TRIAL] [--fusion-rejection-timeout SECONDS]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

G = 9.80665
RATE = 100.0
ACCEL_LSB = 0.009582          # m/s^2 per count, +-2 g 12-bit
GYRO_LSB = 0.0010653          # rad/s per count, +-2000 deg/s 16-bit
DEG = math.pi / 180
# The default card and mapper (docs/CARD.md, config/shimmerd.conf).
ORIGIN = (175.0, 350.0 * 2 / 3)
ROLL_RANGE, PITCH_RANGE, MAX_OFFSET = 0.2, 0.1, 100.0


# --- rotations --------------------------------------------------------------------------

def rx(a):
    c, s = math.cos(a), math.sin(a)
    return [[1, 0, 0], [0, c, -s], [0, s, c]]


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, 0, s], [0, 1, 0], [-s, 0, c]]


def mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def transpose(m):
    return [[m[c][r] for c in range(3)] for r in range(3)]


def apply(m, v):
    return [sum(m[r][c] * v[c] for c in range(3)) for r in range(3)]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def norm(v):
    n = math.sqrt(dot(v, v))
    return [x / n for x in v]


# --- the attitude and mapper of the spec, written independently -----------------------

def tilt_axes(u0):
    """docs/TILT.md, "The two angles": e1 (pitch axis), e2 (roll axis)."""
    ref = [1, 0, 0]
    if abs(u0[0]) > math.sqrt(0.5):
        ref = [0, -1, 0] if u0[0] > 0 else [0, 1, 0]
    d = dot(ref, u0)
    e1 = norm([ref[i] - d * u0[i] for i in range(3)])
    return e1, cross(u0, e1)


def focal(u0, u):
    """The focal point (points) of up direction u against baseline u0 (sections 5-6, mapper)."""
    e1, e2 = tilt_axes(u0)
    v = cross(u, u0)
    s = math.sqrt(dot(v, v))
    if s == 0:
        pitch = roll = 0.0
    else:
        angle = math.atan2(s, dot(u, u0))
        w = [x * angle / s for x in v]
        pitch, roll = dot(w, e1), dot(w, e2)

    def off(v, rng):
        return max(-MAX_OFFSET, min(MAX_OFFSET, v / rng * MAX_OFFSET))
    return (ORIGIN[0] + off(roll, ROLL_RANGE), ORIGIN[1] + off(pitch, PITCH_RANGE))


# --- paths: orientation R(t), device to world, world z up --------------------------------

class Path:
    def __init__(self, name, duration, orientation, hand=False, noise=1.5, moving=None, still_after=None,
                 step_at=None, hand_rms=0.5, walk=False, taps=False, gyro_frame=None, gyro_noise=0.1,
                 gyro_offset=0.5, switch_at=None, rest_at=None, hand_from=1.0):
        self.name = name
        self.duration = duration
        self.orientation = orientation
        self.hand = hand
        self.hand_rms = hand_rms        # m/s^2 RMS as a vector
        self.walk = walk                # a walker's bounce, in the world frame
        self.taps = taps                # short acceleration spikes
        self.noise = noise
        self.moving = moving            # (start, end) of the span the error is measured on
        self.still_after = still_after  # frames are counted after this time
        self.step_at = step_at          # the small tilt starts here
        self.gyro_frame = gyro_frame    # the gyroscope's rates as read: this matrix times the body rate
        self.gyro_noise = gyro_noise    # deg/s RMS per axis
        self.gyro_offset = gyro_offset  # deg/s, as a vector
        self.switch_at = switch_at      # a tablet-mode switch fires here (a `recapture` record)
        self.rest_at = rest_at          # the device comes to rest here: the baseline it should get
        self.hand_from = hand_from      # the hand's acceleration eases in over the second from here

    def up(self, t):
        """The world's up direction seen from the device (unit)."""
        return apply(transpose(self.orientation(t)), [0, 0, 1])

    def rate(self, t, h=1e-4):
        """Body angular velocity (rad/s, device frame): vee(R^T dR/dt)."""
        r = self.orientation(t)
        d = [[(a - b) / (2 * h) for a, b in zip(ra, rb)]
             for ra, rb in zip(self.orientation(t + h), self.orientation(t - h))]
        o = mul(transpose(r), d)
        return [(o[2][1] - o[1][2]) / 2, (o[0][2] - o[2][0]) / 2, (o[1][0] - o[0][1]) / 2]


def sweep_orientation(t):
    k = max(0.0, min(1.0, t - 1.0))   # eases in over the first second of motion
    p = k * 4 * DEG * math.sin(2 * math.pi * 0.5 * (t - 1))
    r = k * 8 * DEG * math.sin(2 * math.pi * 0.3 * (t - 1))
    return mul(rx(30 * DEG), mul(rx(p), ry(r)))


def start_moving_orientation(t):
    """The sweep's motion from the first reading on: a device already in the hand."""
    p = 4 * DEG * math.sin(2 * math.pi * 0.5 * t)
    r = 8 * DEG * math.sin(2 * math.pi * 0.3 * t)
    return mul(rx(30 * DEG), mul(rx(p), ry(r)))


def flat(_t):
    return rx(0.0)


def small_tilt(t):
    k = max(0.0, min(1.0, (t - 6.0) / 0.01))
    return rx(0.5 * DEG * k)


# A convertible folded into tablet mode: the display leans back from 0.26 rad (15 degrees
# from upright: laptop mode) to 1.3 rad between 3.0 and 4.5 s (a smooth start and end),
# then lies still. The tablet-mode switch fires as the lean passes 1.1 rad, mid-fold; or,
# on `fold-early`, 0.5 s after the fold has ended.
FOLD = (3.0, 4.5, 0.26, 1.3)


def fold_lean(t):
    start, end, lean0, lean1 = FOLD
    s = max(0.0, min(1.0, (t - start) / (end - start)))
    return lean0 + (lean1 - lean0) * s * s * (3 - 2 * s)


def fold_orientation(t):
    # Leaning the screen back by L from upright: up, in the device frame, is (0, cos L, sin L).
    return rx(math.pi / 2 - fold_lean(t))


def fold_switch_time(lean):
    """When the fold passes `lean` (bisection on the monotonic fold)."""
    lo, hi = FOLD[0], FOLD[1]
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fold_lean(mid) < lean else (lo, mid)
    return round(hi, 6)


MIRRORED_X = [[-1, 0, 0], [0, 1, 0], [0, 0, 1]]


PATHS = [
    Path("sweep", 21.0, sweep_orientation, moving=(2.0, 21.0)),
    Path("hand", 21.0, sweep_orientation, hand=True, moving=(2.0, 21.0)),
    Path("hand-0.87", 21.0, sweep_orientation, hand=True, hand_rms=0.5 * math.sqrt(3), moving=(2.0, 21.0)),
    Path("hand-1", 21.0, sweep_orientation, hand=True, hand_rms=1.0, moving=(2.0, 21.0)),
    Path("hand-2", 21.0, sweep_orientation, hand=True, hand_rms=2.0, moving=(2.0, 21.0)),
    Path("walking", 21.0, sweep_orientation, walk=True, moving=(2.0, 21.0)),
    Path("taps", 21.0, sweep_orientation, taps=True, moving=(2.0, 21.0)),
    Path("still", 26.0, flat, noise=2.0, still_after=4.0),
    Path("still-1lsb", 26.0, flat, noise=1.0, still_after=4.0),
    Path("still-3lsb", 26.0, flat, noise=3.0, still_after=4.0),
    Path("tilt", 8.0, small_tilt, noise=2.0, step_at=6.0),
    # A gyroscope read in a mirrored frame (x reversed: a hwdb entry's mistake) on the
    # shaking hand's path; the peers get the same rates.
    Path("hand-0.87-mirrored", 21.0, sweep_orientation, hand=True, hand_rms=0.5 * math.sqrt(3), moving=(2.0, 21.0),
         gyro_frame=MIRRORED_X),
    # Lying still with 0.02 m/s^2 of accelerometer noise and a noisy gyroscope (0.3 deg/s
    # RMS a axis, a 0.6 deg/s offset).
    Path("still-noisy-gyro", 26.0, flat, noise=0.02 / ACCEL_LSB, still_after=4.0, gyro_noise=0.3, gyro_offset=0.6),
    # Folded into tablet mode, the switch firing mid-fold (or after it): the error is the
    # drawn point's distance from the card's origin from 1 s after the fold ends.
    Path("start-moving", 10.0, start_moving_orientation, hand=True, hand_rms=0.5 * math.sqrt(3), moving=(0.5, 10.0),
         hand_from=-1.0),
    Path("fold", 12.0, fold_orientation, noise=1.5, moving=(FOLD[1] + 1.0, 12.0), switch_at=fold_switch_time(1.1),
         rest_at=FOLD[1]),
    Path("fold-early", 12.0, fold_orientation, noise=1.5, moving=(FOLD[1] + 1.5, 12.0), switch_at=FOLD[1] + 0.5,
         rest_at=FOLD[1]),
]


# --- the sensor model -------------------------------------------------------------------

class Hand:
    """Hand-held linear acceleration: per axis a sum of sinusoids in 0.5-3 Hz, scaled to
    0.5 m/s^2 RMS as a vector."""

    def __init__(self, rng, rms=0.5):
        per_axis = rms / math.sqrt(3)
        self.axes = []
        for _ in range(3):
            waves = [(rng.uniform(0.5, 3.0), rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.0)) for _ in range(6)]
            power = sum(a * a / 2 for _, _, a in waves)
            k = per_axis / math.sqrt(power)
            self.axes.append([(f, ph, a * k) for f, ph, a in waves])

    def __call__(self, t):
        return [sum(a * math.sin(2 * math.pi * f * t + ph) for f, ph, a in waves) for waves in self.axes]


def walk_acceleration(t):
    """A walker's linear acceleration in the world frame (m/s^2, z up): the 2 Hz step
    bounce, mostly vertical, with its harmonics, a little fore-aft at the step rate and
    the 1 Hz side-to-side sway of the stride."""
    two_pi = 2 * math.pi
    vertical = (2.5 * math.sin(two_pi * 2 * t) + 1.0 * math.sin(two_pi * 4 * t + 0.7)
                + 0.4 * math.sin(two_pi * 6 * t + 1.9))
    fore_aft = 0.8 * math.sin(two_pi * 2 * t + 1.2) + 0.3 * math.sin(two_pi * 4 * t + 0.4)
    sway = 0.5 * math.sin(two_pi * 1 * t + 0.3)
    return [sway, fore_aft, vertical]


class Taps:
    """Taps on the case: every 0.7-2 s (at random, from 2 s on) a 10-30 ms knock of
    10-30 m/s^2 in a random direction (device frame) and the rebound that stops it (the
    same, reversed, for as long: a held device ends a tap at rest where it was), and the
    case ringing for a moment: an angle of A exp(-t / 30 ms) sin(2 pi 40 Hz t), its rate
    peaking at 0.05-0.3 rad/s, which starts and ends at no turn."""

    def __init__(self, rng, duration):
        self.taps = []
        t = 2.0
        while True:
            t += rng.uniform(0.7, 2.0)
            if t > duration - 0.5:
                break
            d = norm([rng.gauss(0, 1) for _ in range(3)])
            axis = norm([rng.gauss(0, 1) for _ in range(3)])
            self.taps.append((t, rng.uniform(0.010, 0.030), rng.uniform(10.0, 30.0), d, rng.uniform(0.05, 0.3), axis))

    def acceleration(self, t):
        a = [0.0, 0.0, 0.0]
        for t0, length, size, d, _, _ in self.taps:
            if t0 <= t < t0 + length:
                a = [a[k] + size * d[k] for k in range(3)]
            elif t0 + length <= t < t0 + 2 * length:
                a = [a[k] - size * d[k] for k in range(3)]
        return a

    def rate(self, t):
        """The ringing's rate: the derivative of its angle (so it integrates to no turn)."""
        w = [0.0, 0.0, 0.0]
        omega, tau = 2 * math.pi * 40, 0.03
        for t0, _, _, _, size, axis in self.taps:
            if t0 <= t < t0 + 0.3:
                x = t - t0
                s = size / omega * math.exp(-x / tau) * (omega * math.cos(omega * x) - math.sin(omega * x) / tau)
                w = [w[k] + s * axis[k] for k in range(3)]
        return w


def quantise(counts, lsb, bits):
    """A reading as the part gives it: whole counts of `lsb`, clipped to its signed `bits`
    range (a tap beyond the accelerometer's +-2 g is read as full scale)."""
    top = 2 ** (bits - 1)
    return max(-top, min(top - 1, round(counts))) * lsb


def readings(path, gyro, seed=1):
    """Trace lines: (t, record) for the accelerometer, and the gyroscope when `gyro`."""
    rng = random.Random(seed)
    hand = Hand(rng, path.hand_rms) if path.hand else None
    taps = Taps(random.Random(seed + 1000), path.duration) if path.taps else None
    offset = [path.gyro_offset * DEG * x for x in norm([0.6, -0.5, 0.62])]
    gyro_noise = path.gyro_noise * DEG
    out = []
    n = int(path.duration * RATE)
    for i in range(n + 1):
        t = round(i / RATE, 6)
        ease = max(0.0, min(1.0, t - path.hand_from))   # picked up after the baseline, like the sweep
        if gyro:
            w = path.rate(t)
            if taps:
                ring = taps.rate(t)
                w = [w[k] + ring[k] for k in range(3)]
            if path.gyro_frame:
                w = apply(path.gyro_frame, w)
            q = [quantise((w[k] + offset[k] + rng.gauss(0, gyro_noise)) / GYRO_LSB, GYRO_LSB, 16) for k in range(3)]
            out.append({"type": "gyro", "t": t, "anglvel": q})
        u = path.up(t)
        a = [-G * x for x in u]
        if hand:
            lin = hand(t)
            a = [a[k] + ease * lin[k] for k in range(3)]
        if path.walk:
            # The reading is minus the specific force: -g u - R^T a_world.
            lin = apply(transpose(path.orientation(t)), walk_acceleration(t))
            a = [a[k] - ease * lin[k] for k in range(3)]
        if taps:
            lin = taps.acceleration(t)
            a = [a[k] + lin[k] for k in range(3)]
        a = [quantise(a[k] / ACCEL_LSB + rng.gauss(0, path.noise), ACCEL_LSB, 12) for k in range(3)]
        if path.switch_at is not None and t - 1 / RATE < path.switch_at <= t:
            # Replayed just before this reading, as a recorded switch is.
            out.append({"type": "recapture", "t": t, "reason": "tablet-mode switch Intel Virtual Switches: tablet mode",
                        "rest": True})
        out.append({"type": "reading", "t": t, "accel": a, "use": "sensor"})
    return out


# --- running the daemon -----------------------------------------------------------------

def gave_up_line(line):
    """A log line in which the daemon gives its gyroscope up (the self-check's verdict)."""
    low = line.lower()
    return "disagrees" in low or ("gyroscope" in low and "frame" in low
                                  and any(w in low for w in ("wrong", "disagree", "alone", "giving up", "given up")))


class DaemonRun:
    """What one run of the daemon wrote: its trace's records and its log."""

    def __init__(self, records, stderr):
        self.stderr = stderr
        self.frames = [(r["t"], r["focal"]) for r in records if r["type"] == "frame"]
        self.baselines = [(r["t"], r["up"]) for r in records if r["type"] == "baseline"]
        self.baseline = self.baselines[0][1] if self.baselines else None
        # Each sample with the baseline it was taken against: the newest one before it.
        self.samples, u0 = [], None
        for r in records:
            if r["type"] == "baseline":
                u0 = r["up"]
            elif r["type"] == "sample" and u0 is not None:
                self.samples.append((r["t"], r["dpitch"], r["droll"], r["focal"], r["accel"], u0))
        # Gyroscope readings the daemon used: none after it gave the gyroscope up.
        used = [r["t"] for r in records if r["type"] == "gyro"]
        self.gyro_used, self.last_gyro = len(used), (used[-1] if used else None)
        self.verdicts = [line for line in stderr.splitlines() if gave_up_line(line)]
        self.gyro_events = [r for r in records if "gyro-" in r["type"]]
        # Gyroscope readings fused at a weight below one (the frame check doubts or contests
        # the gyroscope's frame).
        self.gyro_weighed = sum(1 for r in records if r["type"] == "gyro" and "weight" in r)
        self.gyro_given_up = len(self.verdicts) + len(self.gyro_events)


def run_trace(binary, records, tag, workdir, extra=()):
    """The daemon on a trace of `records` as its sensor, on trace time."""
    src = os.path.join(workdir, tag + ".in.jsonl")
    if not os.path.exists(src):
        with open(src, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    out = os.path.join(workdir, tag + ".out.jsonl")
    conf = os.path.join(workdir, "empty.conf")
    open(conf, "w").close()
    if os.path.exists(out):
        os.unlink(out)
    cmd = [binary, "run", "--config", conf, "--set", "Sensor.device=trace:" + src, "--set", "Sensor.trace_speed=max",
           "--set", "Sink.type=null", "--set", "Trace.path=" + out]
    for s in extra:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    with open(out) as f:
        # The log names the trace by its path: the scratch directory's name, new each run,
        # is left out, so that two runs of one binary print the same report.
        return DaemonRun([json.loads(line) for line in f if line.strip()], p.stderr.replace(workdir + "/", ""))


def run(binary, path, gyro, workdir, extra=()):
    tag = "%s-%s" % (path.name, "gyro" if gyro else "accel")
    r = run_trace(binary, readings(path, gyro), tag, workdir, extra)
    return r.frames, r.baseline, r.stderr


def drawn_at(frames, t):
    """The focal point on screen at t: the newest frame published at or before t."""
    lo, hi = 0, len(frames)
    while lo < hi:
        mid = (lo + hi) // 2
        if frames[mid][0] <= t:
            lo = mid + 1
        else:
            hi = mid
    return frames[lo - 1][1] if lo > 0 else ORIGIN


def errors(path, frames, u0, lags=(0,), span=None):
    """|drawn(t) - true(t - lag)| every 5 ms of the moving span (or `span`), for each lag
    (whole ms)."""
    start, end = span or path.moving
    steps = int(round((end - start) / 0.005)) + 1
    times = [start + i * 0.005 for i in range(steps)]
    drawn = [drawn_at(frames, t) for t in times]
    lo, hi = min(lags), max(lags)
    true = {}   # focal point of the true path, by whole ms
    for ms in range(int(round(start * 1000)) - hi, int(round(end * 1000)) - lo + 1):
        true[ms] = focal(u0, path.up(ms / 1000))
    out = {}
    for lag in lags:
        e = []
        for t, d in zip(times, drawn):
            f = true[int(round(t * 1000)) - lag]
            e.append(math.hypot(d[0] - f[0], d[1] - f[1]))
        out[lag] = e
    return out


def rms(xs):
    return math.sqrt(sum(x * x for x in xs) / len(xs))


def p95(xs):
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.95 * len(s)))]


def reference_up(path, baseline):
    """The baseline the true focal point is taken against: the one the daemon captured (its
    first `baseline` record), so that the error is how the drawn point follows the device,
    not how the first readings' noise set the baseline; on a fold, the pose it comes to
    rest in (the baseline it should get: the truth is then the card's origin)."""
    if path.rest_at is not None:
        return path.up(path.rest_at)
    return baseline or path.up(0.0)


def measure(path, frames, baseline):
    """The figures of one run, against `reference_up`."""
    u0 = reference_up(path, baseline)
    m = {}
    if path.moving:
        by_lag = errors(path, frames, u0, range(-50, 401, 2) if path.rest_at is None else [0])
        e = by_lag[0]
        m["rms_pt"], m["p95_pt"] = rms(e), p95(e)
        if len(by_lag) > 1:
            best = min((rms(v), lag) for lag, v in by_lag.items())
            m["lag_ms"], m["rms_at_lag_pt"] = best[1], best[0]
    if path.still_after is not None:
        m["frames_still"] = sum(1 for t, _ in frames if t >= path.still_after)
        true = focal(u0, path.up(path.duration))
        last = drawn_at(frames, path.duration + 10)
        m["drift_pt"] = math.hypot(last[0] - true[0], last[1] - true[1])
    if path.step_at is not None:
        before = focal(u0, path.up(path.step_at - 0.001))
        after = focal(u0, path.up(path.duration))
        total = math.hypot(after[0] - before[0], after[1] - before[1])

        def shown(fraction):
            for t, f in frames:
                if t < path.step_at:
                    continue
                moved = ((f[0] - before[0]) * (after[0] - before[0])
                         + (f[1] - before[1]) * (after[1] - before[1])) / total
                if moved >= fraction * total:
                    return (t - path.step_at) * 1000
            return None
        m["t50_ms"], m["t90_ms"] = shown(0.5), shown(0.9)
        m["frames_before_tilt"] = sum(1 for t, _ in frames if 4.0 <= t < path.step_at)
    return m


# --- output -----------------------------------------------------------------------------

def fmt(v, digits=1):
    if v is None:
        return "never"
    if isinstance(v, int):
        return str(v)
    return "%.*f" % (digits, v)


def table(results):
    rows = ["| path | sensors | RMS error (pt) | p95 (pt) | best-fit lag (ms) | RMS at that lag (pt) "
            "| frames after 4 s still | drift (pt) | small tilt: half / 90 % shown (ms) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for (name, kind), m in results:
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, kind,
            fmt(m.get("rms_pt")) if "rms_pt" in m else "",
            fmt(m.get("p95_pt")) if "p95_pt" in m else "",
            fmt(m.get("lag_ms")) if "lag_ms" in m else "",
            fmt(m.get("rms_at_lag_pt")) if "rms_at_lag_pt" in m else "",
            fmt(m.get("frames_still")) if "frames_still" in m else
            (fmt(m.get("frames_before_tilt")) + " (4-6 s)" if "frames_before_tilt" in m else ""),
            fmt(m.get("drift_pt"), 2) if "drift_pt" in m else "",
            "%s / %s" % (fmt(m.get("t50_ms"), 0), fmt(m.get("t90_ms"), 0)) if "t50_ms" in m else ""))
    return "\n".join(rows)


def svg(path, runs, out):
    """True vs drawn focal point over time (x and y), one polyline per run (the truth
    against the first run's baseline)."""
    u0 = runs[0][2] or path.up(0.0)
    t0, t1 = 1.0, 9.0
    width, height, pad = 900, 520, 50
    colors = {"true": "#000000", "accelerometer": "#d62728", "accelerometer + gyroscope": "#1f77b4"}

    def series(fn):
        pts, t = [], t0
        while t <= t1:
            pts.append((t, fn(t)))
            t += 0.01
        return pts
    panels = [("focal x (pt)", 0, pad, 200), ("focal y (pt)", 1, pad + 240, 200)]
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
             % (width, height), '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="20" font-size="14">%s path: true vs drawn focal point</text>' % (pad, path.name)]
    for label, axis, top, h in panels:
        lines = [("true", series(lambda t: focal(u0, path.up(t))[axis]))]
        for kind, frames, _ in runs:
            lines.append((kind, series(lambda t: drawn_at(frames, t)[axis])))
        lo = min(v for _, pts in lines for _, v in pts)
        hi = max(v for _, pts in lines for _, v in pts)
        span = max(hi - lo, 1e-6)

        def xy(t, v):
            return (pad + (t - t0) / (t1 - t0) * (width - 2 * pad), top + h - (v - lo) / span * h)
        parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'
                     % (pad, top, width - 2 * pad, h))
        parts.append('<text x="%d" y="%d">%s</text>' % (pad + 4, top + 14, label))
        parts.append('<text x="4" y="%d">%.0f</text><text x="4" y="%d">%.0f</text>' % (top + 10, hi, top + h, lo))
        for kind, pts in lines:
            d = " ".join("%.1f,%.1f" % xy(t, v) for t, v in pts)
            parts.append('<polyline fill="none" stroke="%s" stroke-width="%s" points="%s"/>'
                         % (colors.get(kind, "#2ca02c"), "2" if kind == "true" else "1.2", d))
    for i in range(int(t1 - t0) + 1):
        x = pad + i / (t1 - t0) * (width - 2 * pad)
        parts.append('<text x="%.0f" y="%d" text-anchor="middle">%g s</text>' % (x, height - 18, t0 + i))
    lx = pad
    for kind in ["true"] + [k for k, _, _ in runs]:
        parts.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>'
                     % (lx, height - 8, colors.get(kind, "#2ca02c"), lx + 18, height - 3, kind))
        lx += 40 + 7 * len(kind)
    parts.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")


# --- against the field's peers ----------------------------------------------------------
#
# The same numbers go to the daemon (as a trace) and to each peer. The peers take the
# specific force (m/s^2, about +g along the axis pointing up at rest) and body rates
# (rad/s); their quaternion q (w, x, y, z) maps the sensor frame to the world's
# (v_world = q v_imu q*), so the up direction they estimate, in the sensor frame, is the
# third row of R(q). shimmerd's readings take the opposite sign (docs/TILT.md, "Axes and
# signs": `accel` = -specific force); its up direction is recovered from each `sample` record's
# dpitch and droll against the baseline it was taken against.

FIELD_PINS = ("numpy==2.4.6", "vqf==2.1.2", "imufusion==1.3.3", "ahrs==0.4.0")
PEERS = ("VQF", "Fusion", "Fusion (rejection)", "Madgwick", "Mahony", "accelerometer direction")
BROAD_TRIALS = ("01_undisturbed_slow_rotation_A", "02_undisturbed_slow_rotation_B",
                "04_undisturbed_slow_rotation_with_breaks_A", "06_undisturbed_fast_rotation_A",
                "07_undisturbed_fast_rotation_B", "08_undisturbed_fast_rotation_with_breaks_A",
                "10_undisturbed_slow_translation_A", "15_undisturbed_fast_translation_A",
                "21_undisturbed_fast_combined", "24_disturbed_tapping_A", "25_disturbed_tapping_B",
                "26_disturbed_phone_vibration_A", "28_disturbed_stationary_magnet_A",
                "29_disturbed_stationary_magnet_B", "32_disturbed_attached_magnet_1cm")


def up_from_tilt(u0, dpitch, droll):
    """The up direction u whose tilt against u0 is (dpitch, droll): sections 5 and 6 define
    w from v = u x u0 and angle = atan2(|v|, u.u0), so u0 is u turned by the rotation
    vector w = dpitch e1 + droll e2, and u is u0 turned by -w (Rodrigues; w is
    perpendicular to u0)."""
    e1, e2 = tilt_axes(u0)
    w = [dpitch * e1[i] + droll * e2[i] for i in range(3)]
    angle = math.sqrt(dot(w, w))
    if angle == 0:
        return list(u0)
    k = [-x / angle for x in w]
    kxu = cross(k, u0)
    c, s = math.cos(angle), math.sin(angle)
    return [u0[i] * c + kxu[i] * s for i in range(3)]


def field_imports():
    try:
        import numpy
        import vqf
        import imufusion
        import ahrs.filters
    except ImportError as e:
        sys.exit("motion.py --peers needs %s (%s): ./scripts/motion-benchmark.sh makes a venv with them"
                 % (", ".join(FIELD_PINS), e))
    return numpy, vqf, imufusion, ahrs


class Field:
    """The peers, each at 100 Hz with its default parameters (and Fusion a second time
    with its README's rejection settings)."""

    def __init__(self, fusion_rejection_timeout=5.0):
        self.np, self.vqf, self.imufusion, self.ahrs = field_imports()
        self.fusion_rejection_timeout = fusion_rejection_timeout

    def up_of_quaternions(self, q):
        w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
        u = self.np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)
        return u / self.np.linalg.norm(u, axis=1)[:, None]

    def fusion(self, gyr, acc, rejection):
        imufusion = self.imufusion
        ahrs = imufusion.Ahrs()
        bias = None
        if rejection:
            # The Fusion README's example: 2000 deg/s, 10 degrees, 5 s (this version takes
            # seconds and the sample rate), and the gyroscope offset removed by Bias.
            ahrs.set_settings(imufusion.AhrsSettings(sample_rate=RATE, gyroscope_range=2000.0,
                                                     acceleration_rejection=10.0,
                                                     rejection_timeout=self.fusion_rejection_timeout))
            bias = imufusion.Bias()
        deg, g = self.np.degrees(gyr), acc / G
        q = self.np.empty((len(acc), 4))
        for k in range(len(acc)):
            w = deg[k] if bias is None else bias.update(deg[k])
            ahrs.update_no_magnetometer(w, g[k])
            q[k] = ahrs.get_quaternion()
        return q

    def ups(self, gyr, acc):
        """Each peer's up direction (sensor frame, unit) after each sample: gyr in rad/s,
        acc the specific force in m/s^2, both (N, 3) at 100 Hz."""
        np = self.np
        gyr = np.ascontiguousarray(gyr, dtype=np.float64)
        acc = np.ascontiguousarray(acc, dtype=np.float64)
        filters = self.ahrs.filters
        return {
            "VQF": self.up_of_quaternions(self.vqf.VQF(1 / RATE).updateBatch(gyr, acc)["quat6D"]),
            "Fusion": self.up_of_quaternions(self.fusion(gyr, acc, False)),
            "Fusion (rejection)": self.up_of_quaternions(self.fusion(gyr, acc, True)),
            "Madgwick": self.up_of_quaternions(filters.Madgwick(gyr=gyr, acc=acc, frequency=RATE).Q),
            "Mahony": self.up_of_quaternions(filters.Mahony(gyr=gyr, acc=acc, frequency=RATE).Q),
            "accelerometer direction": acc / np.linalg.norm(acc, axis=1)[:, None],
        }

    def daemon_ups(self, run, n):
        """The daemon's up direction after each of the n input samples (NaN before its
        first sample; a reading that gave no sample holds the last one)."""
        np = self.np
        u = np.full((n, 3), np.nan)
        for t, dp, dr, _, _, u0 in run.samples:
            k = int(round(t * RATE))
            if 0 <= k < n:
                u[k] = up_from_tilt(u0, dp, dr)
        for k in range(1, n):
            if np.isnan(u[k, 0]):
                u[k] = u[k - 1]
        return u


def inputs(records):
    """The gyroscope's and the accelerometer's numbers of a trace, as the peers take them:
    rad/s and specific force (minus the readings)."""
    gyr = [r["anglvel"] for r in records if r["type"] == "gyro"]
    acc = [[-x for x in r["accel"]] for r in records if r["type"] == "reading"]
    return gyr, acc


def inversion_check(run, first=100):
    """The up direction recovered from the first samples against the readings' own
    direction (degrees: median, largest), and the daemon's focal point against the one
    this script's mapper gives for the recovered direction (points, largest)."""
    angles, mapper = [], 0.0
    for i, (_, dp, dr, f, a, u0) in enumerate(run.samples):
        u = up_from_tilt(u0, dp, dr)
        mine = focal(u0, u)
        mapper = max(mapper, math.hypot(mine[0] - f[0], mine[1] - f[1]))
        if i < first:
            r = norm([-x for x in a])
            angles.append(math.degrees(math.acos(max(-1.0, min(1.0, dot(u, r))))))
    angles.sort()
    return {"first_samples": len(angles), "median_deg": angles[len(angles) // 2] if angles else None,
            "max_deg": angles[-1] if angles else None, "mapper_max_pt": mapper}


class Truth:
    """The true focal point of a path against a baseline, by whole ms."""

    def __init__(self, np, path, u0, start, end, lags):
        self.lo = int(round(start * 1000)) - max(lags)
        hi = int(round(end * 1000)) - min(lags)
        self.table = np.array([focal(u0, path.up(ms / 1000)) for ms in range(self.lo, hi + 1)])

    def at(self, ms):
        return self.table[ms - self.lo]


def focal_figures(np, truth, times, points, lags):
    """RMS and p95 of |point - true| at `times` (s), and the best-fit lag (ms) with the
    RMS at it when `lags` has more than one."""
    ms = np.rint(np.asarray(times) * 1000).astype(int)
    points = np.asarray(points, dtype=float)

    def err(lag):
        return np.hypot(*(points - truth.at(ms - lag)).T)
    e = err(0)
    m = {"rms_pt": float(np.sqrt(np.mean(e * e))), "p95_pt": float(np.percentile(e, 95))}
    if len(lags) > 1:
        best = min((float(np.sqrt(np.mean(err(lag) ** 2))), lag) for lag in lags)
        m["lag_ms"], m["rms_at_lag_pt"] = best[1], best[0]
    return m


def given_up(run):
    """The self-check's verdicts on the gyroscope in one run, and when (the last gyroscope
    reading it used)."""
    return {"gyro_given_up": run.gyro_given_up, "gyro_used": run.gyro_used,
            "gyro_given_up_at_s": run.last_gyro if run.gyro_given_up else None,
            "verdicts": run.verdicts, "gyro_weighed": run.gyro_weighed}


def field_path(field, binary, path, workdir, extra):
    """One synthetic path through the daemon (fused and with Sensor.gyro=none) and the peers."""
    np = field.np
    records = readings(path, True)
    fused = run_trace(binary, records, path.name + "-field", workdir, extra)
    alone = run_trace(binary, records, path.name + "-field", workdir, list(extra) + ["Sensor.gyro=none"])
    gyr, acc = inputs(records)
    n = len(acc)
    times = [i / RATE for i in range(n)]
    start, end = path.moving or ((path.still_after, path.duration) if path.still_after is not None
                                 else (2.0, path.duration))
    lags = list(range(-50, 401, 2)) if path.moving and path.rest_at is None else [0]
    span = [k for k in range(n) if start - 1e-9 <= times[k] <= end + 1e-9]
    ts = [times[k] for k in span]
    steps = int(round((end - start) / 0.005)) + 1
    drawn_times = [start + i * 0.005 for i in range(steps)]
    rows, truths = {}, {}

    def truth_for(u0):
        key = tuple(u0)
        if key not in truths:
            truths[key] = Truth(np, path, u0, start, end, lags)
        return truths[key]
    for label, run in (("shimmerd", fused), ("shimmerd accelerometer", alone)):
        truth = truth_for(reference_up(path, run.baseline))
        rows[label + " drawn"] = focal_figures(np, truth, drawn_times,
                                               [drawn_at(run.frames, t) for t in drawn_times], lags)
        target = {int(round(t * RATE)): f for t, _, _, f, _, _ in run.samples}
        held, last = [], ORIGIN
        for k in range(n):
            last = target.get(k, last)
            held.append(last)
        rows[label + " target"] = focal_figures(np, truth, ts, [held[k] for k in span], lags)
        rows[label + " drawn"].update(measure(path, run.frames, run.baseline) if not path.moving else {})
        if path.name == "start-moving":
            rows[label + " drawn"].update(start_figures(run.frames))
        for key in (label + " drawn", label + " target"):
            rows[key].update(given_up(run))
    u0 = reference_up(path, fused.baseline)
    truth = truth_for(u0)
    for name, u in field.ups(gyr, acc).items():
        rows[name] = focal_figures(np, truth, ts, [focal(u0, list(u[k])) for k in span], lags)
    return rows, fused, alone


def start_figures(frames):
    """A device moving from the first reading: when the first frame came (s) and how many
    frames came in the first second and in the first three."""
    return {"first_frame_s": frames[0][0] if frames else None,
            "frames_first_s": sum(1 for t, _ in frames if t < 1.0),
            "frames_first_3s": sum(1 for t, _ in frames if t < 3.0)}


def still_draws(binary, names, workdir, extra, seeds):
    """The still paths, the small tilt and the folds over `seeds` draws of the noise (seeds
    1 to `seeds`): a held point's drift, or a fold's baseline, is a fraction of a point,
    decided by which readings the held mean (the baseline) averages, so one draw judges
    two builds no better than a coin; the mean of ten does. Per path and sensors: the
    drift's (the tilt's RMS error from 2 s on, the fold's RMS distance from the origin, as
    in the main table) mean and worst (pt) and the most frames one draw drew after 4 s
    (none counted on the tilt and the folds)."""
    out = []
    chosen = [p for name in names for p in PATHS if p.name == name
              and ((p.still_after is not None and not p.moving) or p.rest_at is not None or p.step_at is not None)]
    for path in chosen:
        for label, more in (("accelerometer + gyroscope", []), ("accelerometer", ["Sensor.gyro=none"])):
            drift, frames = [], []
            for seed in range(1, seeds + 1):
                tag = "%s-seed%d%s" % (path.name, seed, "-alone" if more else "")
                r = run_trace(binary, readings(path, True, seed), tag, workdir, list(extra) + more)
                m = measure(path, r.frames, r.baseline)
                if path.step_at is not None:
                    u0 = reference_up(path, r.baseline)
                    drift.append(rms(errors(path, r.frames, u0, span=(2.0, path.duration))[0]))
                else:
                    drift.append(m["rms_pt"] if path.rest_at is not None else m["drift_pt"])
                frames.append(m.get("frames_still", 0))
            out.append({"path": path.name, "sensors": label, "draws": seeds, "drift_mean_pt": sum(drift) / seeds,
                        "drift_worst_pt": max(drift), "frames_still_most": max(frames)})
    return out


def still_table(rows):
    if not rows:
        return ""
    out = ["Still paths, the tilt and the folds over %d draws of the noise (seeds 1-%d): the drawn point's drift "
           "after 4 s still (tilt: its RMS error from 2 s on; folds: its RMS distance from the origin; as in the table "
           "above), mean / worst (pt), and the most frames one draw drew after 4 s."
           % (rows[0]["draws"], rows[0]["draws"]),
           "",
           "| path | sensors | drift, mean / worst (pt) | frames after 4 s, most |", "|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %.3f / %.3f | %d |" % (r["path"], r["sensors"], r["drift_mean_pt"], r["drift_worst_pt"],
                                                       r["frames_still_most"]))
    return "\n".join(out)


def broad_dir():
    return os.path.join(os.path.dirname(REPO), "shared", "fixtures", "broad")


def inclination_errors(np, u, truth):
    """Degrees between estimated and true up, per sample (NaN where either is unknown)."""
    c = np.clip(np.sum(u * truth, axis=1), -1.0, 1.0)
    return np.degrees(np.arccos(c))


def field_broad(field, binary, trial, directory, workdir, extra):
    """One BROAD trial through the daemon (fused and with Sensor.gyro=none) and the peers:
    the inclination error, RMS over BROAD's movement phases where the truth is known."""
    np = field.np
    d = np.load(os.path.join(directory, trial + ".npz"))
    acc, gyr = d["acc"].astype(np.float64), d["gyr"].astype(np.float64)
    if float(d["rate"]) != RATE:
        sys.exit("%s: %s Hz, not %g" % (trial, float(d["rate"]), RATE))
    truth = field.up_of_quaternions(d["quat"].astype(np.float64))   # NaN where untracked
    n = len(acc)
    records = []
    for k in range(n):
        t = round(k / RATE, 6)
        records.append({"type": "gyro", "t": t, "anglvel": [float(x) for x in gyr[k]]})
        records.append({"type": "reading", "t": t, "accel": [-float(x) for x in acc[k]], "use": "sensor"})
    fused = run_trace(binary, records, "broad-" + trial, workdir, extra)
    alone = run_trace(binary, records, "broad-" + trial, workdir, list(extra) + ["Sensor.gyro=none"])
    ups = {"shimmerd": field.daemon_ups(fused, n), "shimmerd accelerometer": field.daemon_ups(alone, n)}
    ups.update(field.ups(gyr, acc))
    mask = d["movement"].astype(bool) & np.all(np.isfinite(truth), axis=1)
    rows, series = {}, {}
    for name, u in ups.items():
        e = inclination_errors(np, u, truth)
        ok = mask & np.isfinite(e)
        rows[name] = {"rms_deg": float(np.sqrt(np.mean(e[ok] ** 2))), "samples": int(ok.sum()),
                      "unjudged": int((mask & ~np.isfinite(e)).sum())}
        series[name] = e
    for name, run in (("shimmerd", fused), ("shimmerd accelerometer", alone)):
        rows[name].update(given_up(run))
    return rows, series, mask, fused


# --- the field's output -----------------------------------------------------------------

SYNTHETIC_COLUMNS = ("shimmerd drawn", "shimmerd target", "shimmerd accelerometer drawn",
                     "shimmerd accelerometer target") + PEERS
BROAD_COLUMNS = ("shimmerd", "shimmerd accelerometer") + PEERS


def gave_up_cell(m):
    n = m.get("gyro_given_up", 0)
    return "%d (at %.2f s)" % (n, m["gyro_given_up_at_s"]) if n and m.get("gyro_given_up_at_s") is not None else str(n)


def field_tables(synthetic, broad):
    out = []
    if synthetic:
        out.append("Synthetic paths: focal point error, RMS over the moving span (pt) / best-fit lag (ms); "
                   "still paths: RMS from 4 s on, tilt: from 2 s on. \"drawn\": the frames; \"target\": "
                   "the samples' focal point (the mapper's target); peers: the focal point of their up "
                   "direction against the daemon's baseline; folds: the distance from the card's origin "
                   "(the truth against the pose the fold ends in) from 1 s after the fold ends, no lag; "
                   "still paths: the frames the daemon drew after 4 s.")
        out.append("")
        out.append("| path | " + " | ".join(SYNTHETIC_COLUMNS) + " | gyroscope given up |")
        out.append("|---" * (len(SYNTHETIC_COLUMNS) + 2) + "|")
        for name, rows in synthetic:
            cells = []
            for c in SYNTHETIC_COLUMNS:
                m = rows[c]
                cell = "%.1f / %d" % (m["rms_pt"], m["lag_ms"]) if "lag_ms" in m else "%.2f" % m["rms_pt"]
                if "frames_still" in m:
                    cell += " (%d frames)" % m["frames_still"]
                if m.get("first_frame_s") is not None:
                    cell += " (first frame at %.2f s, %d frames in 1 s, %d in 3 s)" % (
                        m["first_frame_s"], m["frames_first_s"], m["frames_first_3s"])
                cells.append(cell)
            out.append("| %s | %s | %s |" % (name, " | ".join(cells), gave_up_cell(rows["shimmerd target"])))
    if broad:
        if out:
            out.append("")
        out.append("BROAD: inclination error, RMS over the movement phases (degrees).")
        out.append("")
        out.append("| trial | " + " | ".join(BROAD_COLUMNS)
                   + " | shimmerd / VQF | frame verdicts | readings weighed down |")
        out.append("|---" * (len(BROAD_COLUMNS) + 4) + "|")
        for trial, rows in broad:
            out.append("| %s | %s | %.3f | %s | %d |" % (
                trial, " | ".join("%.3f" % rows[c]["rms_deg"] for c in BROAD_COLUMNS),
                rows["shimmerd"]["rms_deg"] / rows["VQF"]["rms_deg"], gave_up_cell(rows["shimmerd"]),
                rows["shimmerd"].get("gyro_weighed", 0)))
        medians = [sorted(rows[c]["rms_deg"] for _, rows in broad) for c in BROAD_COLUMNS]
        med = ["%.3f" % (v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2) for v in medians]
        gave = sum(1 for _, rows in broad if rows["shimmerd"].get("gyro_given_up"))
        weighed = sum(1 for _, rows in broad if rows["shimmerd"].get("gyro_weighed"))
        out.append("| **median** | %s | | %d of %d trials | %d of %d trials |" % (
            " | ".join("**%s**" % v for v in med), gave, len(broad), weighed, len(broad)))
        said = [(trial, v) for trial, rows in broad for v in rows["shimmerd"].get("verdicts", [])]
        out.append("")
        out.append("Frame verdicts on BROAD: %s" % ("none" if not said else ""))
        for trial, v in said:
            out.append("- %s: %s" % (trial, v.split(": ", 1)[-1]))
    return "\n".join(out)


def svg_broad(np, trial, series, mask, fused, out, names=("shimmerd", "shimmerd accelerometer", "VQF",
                                                          "accelerometer direction")):
    """Inclination error over time on one BROAD trial: BROAD's movement phases shaded, the
    moment the daemon gave its gyroscope up dashed; each pixel column keeps its lowest and
    highest value."""
    colors = {"shimmerd": "#1f77b4", "shimmerd accelerometer": "#d62728", "VQF": "#2ca02c",
              "accelerometer direction": "#999999"}
    n = len(mask)
    t1 = (n - 1) / RATE
    width, height, pad, top, h = 900, 360, 50, 40, 260
    ymax = 30.0

    def x(t):
        return pad + t / t1 * (width - 2 * pad)

    def y(v):
        return top + h - min(v, ymax) / ymax * h
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
             % (width, height), '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="20" font-size="14">BROAD %s: inclination error (degrees; above %g drawn at the top)'
             '</text>' % (pad, trial, ymax)]
    k = 0
    while k < n:
        if mask[k]:
            j = k
            while j < n and mask[j]:
                j += 1
            parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#f0f0f0"/>'
                         % (x(k / RATE), top, x((j - 1) / RATE) - x(k / RATE), h))
            k = j
        k += 1
    parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'
                 % (pad, top, width - 2 * pad, h))
    for v in (0, 10, 20, 30):
        parts.append('<text x="%d" y="%.0f" text-anchor="end">%d</text>' % (pad - 4, y(v) + 4, v))
    columns = width - 2 * pad
    for name in reversed(names):   # the daemon's line on top
        e = series[name]
        pts = []
        for c in range(columns):
            a, b = int(c * n / columns), int((c + 1) * n / columns)
            seg = e[a:b]
            seg = seg[np.isfinite(seg)]
            if len(seg):
                pts += [(x(a / RATE), y(float(seg.min()))), (x(a / RATE), y(float(seg.max())))]
        parts.append('<polyline fill="none" stroke="%s" stroke-width="1" points="%s"/>'
                     % (colors[name], " ".join("%.1f,%.1f" % p for p in pts)))
    if fused.gyro_given_up and fused.last_gyro is not None:
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1f77b4" stroke-dasharray="4,3"/>'
                     '<text x="%.1f" y="%d" fill="#1f77b4">gyroscope given up</text>'
                     % (x(fused.last_gyro), top, x(fused.last_gyro), top + h, x(fused.last_gyro) + 4, top + 12))
    for s in range(0, int(t1) + 1, 20):
        parts.append('<text x="%.0f" y="%d" text-anchor="middle">%d s</text>' % (x(s), top + h + 16, s))
    lx = pad
    for name in names:
        parts.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>'
                     % (lx, height - 12, colors[name], lx + 18, height - 7, name))
        lx += 40 + 7 * len(name)
    parts.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")


def field_main(args, workdir):
    field = Field(args.fusion_rejection_timeout)
    if not os.access(args.binary, os.X_OK):
        sys.exit("%s: no such program (./scripts/build-release.sh builds it and prints its path)" % args.binary)
    wanted = args.paths.split(",") if args.paths != "none" else []
    synthetic, broad, checks = [], [], {}
    directory = args.broad or broad_dir()
    if args.broad != "none":
        missing = [t for t in BROAD_TRIALS if not os.path.exists(os.path.join(directory, t + ".npz"))]
        if missing:
            sys.exit("BROAD trials not found in %s (%s): the fixtures live in shared/fixtures/broad beside "
                     "the repository; --broad DIR names another place, --broad none skips them"
                     % (directory, ", ".join(missing)))
    for path in [p for name in wanted for p in PATHS if p.name == name]:
        print("path %s ..." % path.name, file=sys.stderr)
        rows, fused, alone = field_path(field, args.binary, path, workdir, args.set)
        synthetic.append((path.name, rows))
        checks[path.name] = {"fused": inversion_check(fused), "accelerometer": inversion_check(alone)}
        if path.name == "hand-0.87" and args.svg_dir:
            svg(path, [("accelerometer", alone.frames, alone.baseline),
                       ("accelerometer + gyroscope", fused.frames, fused.baseline)],
                os.path.join(args.svg_dir, "motion-peers-hand.svg"))
    if args.broad != "none":
        for trial in BROAD_TRIALS:
            print("BROAD %s ..." % trial, file=sys.stderr)
            rows, series, mask, fused = field_broad(field, args.binary, trial, directory, workdir, args.set)
            broad.append((trial, rows))
            if args.svg_dir and trial == args.broad_plot:
                svg_broad(field.np, trial, series, mask, fused, os.path.join(args.svg_dir, "motion-peers-broad.svg"))
    for name, c in checks.items():
        print("check %s: recovered up vs the first %d readings' direction, accelerometer alone: median %.3f, "
              "largest %.3f degrees; fused: median %.3f, largest %.3f; daemon's focal point vs this script's "
              "mapper: largest %.2g pt" % (name, c["accelerometer"]["first_samples"], c["accelerometer"]["median_deg"],
                                           c["accelerometer"]["max_deg"], c["fused"]["median_deg"],
                                           c["fused"]["max_deg"],
                                           max(c["accelerometer"]["mapper_max_pt"], c["fused"]["mapper_max_pt"])),
              file=sys.stderr)
    print("still paths over %d draws ..." % args.seeds, file=sys.stderr)
    still = still_draws(args.binary, wanted, workdir, args.set, args.seeds) if args.seeds > 1 else []
    if args.json:
        print(json.dumps({"peers": {"pins": FIELD_PINS, "fusion_rejection_timeout_s": args.fusion_rejection_timeout},
                          "synthetic": [{"path": n, "estimators": rows} for n, rows in synthetic],
                          "broad": [{"trial": n, "estimators": rows} for n, rows in broad],
                          "still_draws": still, "checks": checks}, indent=1))
    else:
        print(field_tables(synthetic, broad))
        if still:
            print()
            print(still_table(still))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(REPO, ".build", "debug", "shimmerd"))
    ap.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    ap.add_argument("--svg", help="draw the sweep path, true vs drawn, into this SVG file")
    ap.add_argument("--keep", help="keep the input and output traces in this directory")
    ap.add_argument("--set", action="append", default=[], metavar="Section.key=value",
                    help="a configuration override for every run (repeatable)")
    ap.add_argument("--accelerometer-only", action="store_true", help="skip the runs with a gyroscope")
    ap.add_argument("--paths", default=",".join(p.name for p in PATHS),
                    help="comma-separated subset of the paths (with --peers, none: BROAD only)")
    ap.add_argument("--peers", action="store_true",
                    help="against the field's peers (VQF, Fusion, Madgwick, Mahony; needs %s), on the paths "
                         "and on BROAD" % ", ".join(FIELD_PINS))
    ap.add_argument("--broad", help="with --peers: the directory of the BROAD trials (default "
                                    "../shared/fixtures/broad beside the repository), or none")
    ap.add_argument("--broad-plot", default="15_undisturbed_fast_translation_A",
                    help="with --peers and --svg-dir: the BROAD trial to plot")
    ap.add_argument("--svg-dir", help="with --peers: write motion-peers-broad.svg (inclination error over "
                                      "time) and motion-peers-hand.svg (hand-0.87, true vs drawn) here")
    ap.add_argument("--fusion-rejection-timeout", type=float, default=5.0, metavar="SECONDS",
                    help="with --peers: Fusion (rejection)'s rejection_timeout (default 5 s, as its README)")
    ap.add_argument("--seeds", type=int, default=10, metavar="N",
                    help="with --peers: the still paths again over N draws of the noise, their drift's mean "
                         "(default 10; 1: only the one draw of the tables)")
    args = ap.parse_args()
    wanted = args.paths.split(",")
    workdir = args.keep or tempfile.mkdtemp(prefix="shimmerd-motion-")
    os.makedirs(workdir, exist_ok=True)
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
    if args.peers:
        field_main(args, workdir)
    else:
        results, sweep_runs = [], []
        for path in [p for p in PATHS if p.name in wanted]:
            for gyro in (False,) if args.accelerometer_only else (False, True):
                kind = "accelerometer + gyroscope" if gyro else "accelerometer"
                frames, baseline, _ = run(args.binary, path, gyro, workdir, args.set)
                results.append(((path.name, kind), measure(path, frames, baseline)))
                if path.name == "sweep":
                    sweep_runs.append((kind, frames, baseline))
        if args.svg and sweep_runs:
            svg(PATHS[0], sweep_runs, args.svg)
        if args.json:
            print(json.dumps([{"path": n, "sensors": k, **m} for (n, k), m in results], indent=1))
        else:
            print(table(results))
    if not args.keep:
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        os.rmdir(workdir)


if __name__ == "__main__":
    main()
