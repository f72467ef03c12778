#!/usr/bin/python3
"""Motion quality: how closely the drawn focal point follows a known tilt path.

Synthetic tilt paths are turned into sensor readings by a sensor model, written as a
trace (`reading` records for the accelerometer, `gyro` records for the gyroscope, 100 Hz
each) and fed to the real daemon as its sensor:

    shimmerd run --config EMPTY --set Sensor.device=trace:FILE --set Sensor.trace_speed=max \
        --set Sink.type=null --set Trace.path=OUT [--set Sensor.gyro=none]

The daemon runs the trace on trace time (deterministic, as fast as possible), and its own
trace's `frame` records are what it drew. They are compared with the true focal point,
which this script computes independently from the true orientation (spec/attitude.md
sections 3-6, spec/scene.md's mapper with the default card and ranges) against the
baseline the daemon captured (its trace's `baseline` record), so the figures say how the
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
- taps: the sweep, tapped every 0.7-2 s (at random): a 10-30 ms spike of 10-30 m/s^2 in a
  random direction, the gyroscope ringing for a moment (40 Hz, up to 0.3 rad/s).
- still, still-1lsb, still-3lsb: lying flat for 26 s (accelerometer noise 2, 1 and 3 LSB).
- tilt: lying flat 6 s, then tilted 0.5 deg in pitch within 10 ms, then held for 2 s.

Figures (each path with and without a gyroscope):
- error: RMS and 95th percentile of |drawn - true| (points), sampled every 5 ms while the
  path moves (sweep, hand: from 2 s on).
- lag: the delay (ms) that best fits drawn(t) to true(t - lag), and the RMS left at it.
- frames while still: frames published after the first 4 s (still), and the largest
  distance of the drawn point from the true one at the end (drift, points).
- small tilt: ms from the start of the tilt until half of it, and 90 %, is drawn.

    /usr/bin/python3 benchmarks/motion.py [--binary PATH] [--json] [--svg FILE] [--keep DIR]
        [--paths sweep,hand,still,still-1lsb,still-3lsb,tilt] [--accelerometer-only] [--set Section.key=value]...
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
# The default card and mapper (spec/scene.md, spec/interfaces.md).
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
    """attitude.md section 5: e1 (pitch axis), e2 (roll axis)."""
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
                 step_at=None, hand_rms=0.5, walk=False, taps=False):
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


def flat(_t):
    return rx(0.0)


def small_tilt(t):
    k = max(0.0, min(1.0, (t - 6.0) / 0.01))
    return rx(0.5 * DEG * k)


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
    """Taps on the case: every 0.7-2 s (at random, from 2 s on) a 10-30 ms spike of
    10-30 m/s^2 in a random direction (device frame), and the gyroscope ringing for a
    moment (40 Hz, 0.05-0.3 rad/s, decaying in 30 ms)."""

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
        return a

    def rate(self, t):
        w = [0.0, 0.0, 0.0]
        for t0, _, _, _, size, axis in self.taps:
            if t0 <= t < t0 + 0.15:
                s = size * math.exp(-(t - t0) / 0.03) * math.sin(2 * math.pi * 40 * (t - t0))
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
    offset = [0.5 * DEG * x for x in norm([0.6, -0.5, 0.62])]
    gyro_noise = 0.1 * DEG
    out = []
    n = int(path.duration * RATE)
    for i in range(n + 1):
        t = round(i / RATE, 6)
        ease = max(0.0, min(1.0, t - 1.0))   # picked up after the baseline, like the sweep
        if gyro:
            w = path.rate(t)
            if taps:
                ring = taps.rate(t)
                w = [w[k] + ring[k] for k in range(3)]
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
        out.append({"type": "reading", "t": t, "accel": a, "use": "sensor"})
    return out


# --- running the daemon -----------------------------------------------------------------

def run(binary, path, gyro, workdir, extra=()):
    tag = "%s-%s" % (path.name, "gyro" if gyro else "accel")
    src = os.path.join(workdir, tag + ".in.jsonl")
    out = os.path.join(workdir, tag + ".out.jsonl")
    with open(src, "w") as f:
        for r in readings(path, gyro):
            f.write(json.dumps(r) + "\n")
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
        records = [json.loads(line) for line in f if line.strip()]
    frames = [(r["t"], r["focal"]) for r in records if r["type"] == "frame"]
    baselines = [r["up"] for r in records if r["type"] == "baseline"]
    return frames, baselines[0] if baselines else None, p.stderr


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


def errors(path, frames, u0, lags=(0,)):
    """|drawn(t) - true(t - lag)| every 5 ms of the moving span, for each lag (whole ms)."""
    start, end = path.moving
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


def measure(path, frames, baseline):
    """The figures of one run. The true focal point is taken against the baseline the
    daemon captured (its `baseline` record): the error is then how the drawn point
    follows the device, not how the first tenth of a second's noise set the baseline."""
    u0 = baseline or path.up(0.0)
    m = {}
    if path.moving:
        by_lag = errors(path, frames, u0, range(-50, 401, 2))
        e = by_lag[0]
        m["rms_pt"], m["p95_pt"] = rms(e), p95(e)
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
                moved = ((f[0] - before[0]) * (after[0] - before[0]) + (f[1] - before[1]) * (after[1] - before[1])) / total
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(REPO, ".build", "debug", "shimmerd"))
    ap.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    ap.add_argument("--svg", help="draw the sweep path, true vs drawn, into this SVG file")
    ap.add_argument("--keep", help="keep the input and output traces in this directory")
    ap.add_argument("--set", action="append", default=[], metavar="Section.key=value",
                    help="a configuration override for every run (repeatable)")
    ap.add_argument("--accelerometer-only", action="store_true", help="skip the runs with a gyroscope")
    ap.add_argument("--paths", default=",".join(p.name for p in PATHS), help="comma-separated subset of the paths")
    args = ap.parse_args()
    wanted = args.paths.split(",")
    workdir = args.keep or tempfile.mkdtemp(prefix="shimmerd-motion-")
    os.makedirs(workdir, exist_ok=True)
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
