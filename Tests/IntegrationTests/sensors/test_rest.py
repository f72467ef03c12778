"""Still means no frames, gyroscope or not: the real shimmerd, with a trace as its sensor
(on trace time, so the figures do not depend on the machine), lying flat for 26 s with
0.02 m/s^2 of accelerometer noise (a 12-bit part, quantised) and a noisy gyroscope (0.3
or 0.6 deg/s RMS an axis, quantised, with a 0.6 deg/s zero-rate offset). The gyroscope's
rate noise walks the fused direction by about 0.1 degree over seconds; the card must not
follow it."""
import math
import random
import subprocess

import pytest

from support.harness import G, SHIMMERD, read_trace

ACCEL_LSB = 0.009582          # m/s^2 per count, +-2 g 12-bit
GYRO_LSB = 0.0010653          # rad/s per count, +-2000 deg/s 16-bit
DEG = math.pi / 180


def still_trace(path, seed, rate_noise=0.3, seconds=26.0):
    rng = random.Random(seed)
    direction = [0.6, -0.5, 0.62]
    n = math.sqrt(sum(x * x for x in direction))
    offset = [0.6 * DEG * x / n for x in direction]
    with open(path, "w") as f:
        for i in range(int(seconds * 100) + 1):
            t = round(i / 100, 6)
            w = [round((offset[k] + rng.gauss(0, rate_noise * DEG)) / GYRO_LSB) * GYRO_LSB for k in range(3)]
            a = [round((g / ACCEL_LSB) + rng.gauss(0, 0.02 / ACCEL_LSB)) * ACCEL_LSB for g in (0.0, 0.0, -G)]
            f.write('{"type": "gyro", "t": %r, "anglvel": [%r, %r, %r]}\n' % (t, *w))
            f.write('{"type": "reading", "t": %r, "accel": [%r, %r, %r], "use": "sensor"}\n' % (t, *a))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("gyro,rate_noise", [("auto", 0.3), ("auto", 0.6), ("none", 0.3)])
def test_a_still_device_draws_at_most_two_frames_in_26_s_and_never_steps(tmp_path, seed, gyro, rate_noise):
    src, out = tmp_path / "still.jsonl", tmp_path / "out.jsonl"
    still_trace(src, seed, rate_noise)
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    p = subprocess.run([SHIMMERD, "run", "--config", str(conf), "--set", "Sensor.device=trace:%s" % src,
                        "--set", "Sensor.trace_speed=max", "--set", "Sink.type=null", "--set", "Trace.path=%s" % out,
                        "--set", "Sensor.gyro=" + gyro], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    records = read_trace(out, final=True)
    if gyro == "auto":
        assert sum(1 for r in records if r["type"] == "gyro") > 2000
    frames = [(r["t"], r["focal"]) for r in records if r["type"] == "frame"]
    # After the first 4 s (the baseline, the rest gate settling): the frames, and how far the
    # drawn point moved from where it was at 4 s.
    at4 = [f for t, f in frames if t < 4.0][-1]
    late = [f for t, f in frames if t >= 4.0]
    moved = max([math.hypot(f[0] - at4[0], f[1] - at4[1]) for f in late], default=0.0)
    print("gyro=%s (%.1f deg/s of noise) seed %d: %d frames after 4 s, the drawn point moved %.2f pt"
          % (gyro, rate_noise, seed, len(late), moved))
    assert len(late) <= 2, "%d frames in 22 s of rest: %s" % (len(late), late[:8])
    assert moved < 0.5, "the drawn point stepped %.2f pt while at rest" % moved
