"""A trace written by hand, as docs/TRACES.md defines it, to feed `replay`, `plot` and
the trace sensor."""
import json
import math

from support.harness import expected_focal, pose, tilt

H = 350 * 2 / 3


def header(scale=1, fps=30):
    return {"type": "header", "version": 1, "sensor": {"selector": "test", "rate": 60},
            "card": {"width": 350, "height": H, "scale": scale, "origin": [175, H]},
            "mapper": {"roll_range": 0.2, "pitch_range": 0.1, "max_offset": 100, "clamp": True},
            "sink": {"type": "null", "fps": fps}}


def synthetic_trace(path, seconds=5.0, rate=60, fps=30):
    """A trace as the spec defines it: samples from t = 0 to t = `seconds`, tilting on a
    loop (roll and pitch out of phase), baseline readings first, a baseline record."""
    base = pose(0, 0)
    lines = [header(fps=fps)]
    for i in range(3):
        lines.append({"type": "reading", "t": i / 1000, "accel": base, "use": "baseline"})
    lines.append({"type": "baseline", "t": 0.0, "up": [-x / math.sqrt(sum(y * y for y in base)) for x in base]})
    n = int(round(seconds * rate))
    for i in range(n + 1):
        t = i / rate
        a = pose(0.12 * math.sin(2 * math.pi * t / seconds), 0.06 * math.sin(4 * math.pi * t / seconds))
        dp, dr = tilt(base, a)
        lines.append({"type": "sample", "t": t, "seq": i, "accel": a, "dpitch": dp, "droll": dr,
                      "focal": expected_focal(dp, dr)})
    with open(path, "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")
    return lines
