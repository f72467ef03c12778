"""docs/CARD.md written out again in Python, independently of the Swift renderer: the
dot layout and each dot's start and end colors for a focal point, and where a point of a
dot's own square lands on the card. The sink tests sample frame pixels against it."""
import colorsys
import math

W, H, SCALE = 350.0, 350.0 * 2 / 3, 2.0
OX, OY = W / 2, H


def map_range(v, a, b, c, d):
    return (v - a) * (d - c) / (b - a) + c


def clip01(v):
    return min(1.0, max(0.0, v))


def round2(v):
    """Two decimals, half away from zero."""
    return math.floor(v * 100 + 0.5) / 100 if v >= 0 else -math.floor(-v * 100 + 0.5) / 100


def dots():
    """[(cx, cy, size, rotation)] in points, the kept dots of the default card."""
    out = []
    for i in range(7):
        size = 13 * map_range(abs(i - 3), 0, 6, 1.0, 0.1)
        radius = 40 + i * map_range(i, 0, 6, 26, 22)
        step = math.pi / (6 * (i + 1))
        k = 0
        while k * step < 2 * math.pi:
            a = k * step
            cx, cy = radius * math.sin(a) + OX, radius * math.cos(a) + OY
            rot = math.pi - a
            half = size / 2 * (abs(math.cos(rot)) + abs(math.sin(rot)))
            if cx + half > 0 and cx - half < W and cy + half > 0 and cy - half < H:
                out.append((cx, cy, size, rot))
            k += 1
    return out


def rgb8(h, s, l):
    r, g, b = colorsys.hls_to_rgb(h, l, s)
    return tuple(int(math.floor(c * 255 + 0.5)) for c in (r, g, b))


def dot_colors(cx, cy, fx, fy):
    d = math.hypot(cx - fx, cy - fy)
    sh = round2(clip01(map_range(d - 30, 0, 380, 0.2, 0.8)))
    eh = round2(clip01(map_range(d, 0, 380, 0.2, 0.8)))
    sat = 0.6 if d < 400 else clip01(map_range(d, 400, 700, 0.6, 0.0))
    sat = round2(sat)
    return rgb8(sh, sat, 0.7), rgb8(eh, sat, 0.7)


def samples(fx, fy):
    """[(px, py, rgb, what)]: card pixels whose color docs/CARD.md fixes for focal (fx, fy).
    Per dot wholly inside the card and clear of the label band, the pixel at local point
    (-0.3 s, 0) of its square (gradient t < 0: the start color, left of the arrow's stem)
    and at (0.25 s, 0.25 s) (t = 0.5 at that point: the mean of start and end; the pixel
    centre's own t is used). Local points turn with the dot: x' = x cos r - y sin r,
    y' = x sin r + y cos r (y down), which makes the arrow face outward as docs/CARD.md says."""
    out = []
    for cx, cy, size, rot in dots():
        r = size / 2
        if cx - r < 2 or cx + r > W - 2 or cy + r > H - 2 or cy - r < 52:
            continue
        start, end = dot_colors(cx, cy, fx, fy)
        c, s = math.cos(rot), math.sin(rot)
        for lx, ly, what in ((-0.3 * size, 0.0, "start"), (0.25 * size, 0.25 * size, "mid")):
            wx, wy = cx + lx * c - ly * s, cy + lx * s + ly * c
            px, py = int(wx * SCALE), int(wy * SCALE)
            # The pixel centre, back in the dot's local square.
            qx, qy = (px + 0.5) / SCALE - cx, (py + 0.5) / SCALE - cy
            ux, uy = qx * c + qy * s, -qx * s + qy * c
            t = clip01((ux + uy) / size)   # projection on the centre -> bottom-right axis
            if what == "start" and t > 0:
                continue
            rgb = tuple(a + (b - a) * t for a, b in zip(start, end))
            out.append((px, py, rgb, what))
    return out
