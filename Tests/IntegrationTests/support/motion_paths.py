"""A hand-held path: a tablet held leaned back, still at first, then swept, with a hand's
linear acceleration on top; and the daemon's samples matched to the readings made."""
import math

from support.harness import pose

LEAN = math.radians(30)        # held like a tablet: the screen leaned back from upright
STILL = 1.5                    # seconds lying still before the sweep (baseline, offset learnt)
SWEEP = 6.0                    # seconds of hand-held sweep


def true_reading(t):
    """Gravity's direction times g in the device frame at t seconds (no hand motion)."""
    s = max(0.0, t - STILL)
    pitch = LEAN + math.radians(4) * math.sin(2 * math.pi * 0.5 * s)
    roll = math.radians(8) * math.sin(2 * math.pi * 0.3 * s)
    return pose(roll, pitch)


class HandHeld:
    """Linear acceleration of a hand: per axis a sum of sinusoids, `rms` m/s^2 RMS as a
    vector, from the start of the sweep."""

    def __init__(self, rng, rms=0.5):
        self.parts = [[(rng.uniform(0.7, 2.3), rng.uniform(0, 2 * math.pi)) for _ in range(3)] for _ in range(3)]
        self.amplitude = rms / math.sqrt(3) * math.sqrt(2 / 3)   # 3 axes x 3 sinusoids

    def __call__(self, t):
        if t < STILL:
            return [0.0, 0.0, 0.0]
        return [sum(self.amplitude * math.sin(2 * math.pi * f * t + ph) for f, ph in axis) for axis in self.parts]


def matched(samples, made):
    """(sample, true tilt) pairs: each sample is the next scan, in order, whose reading it
    carries (the daemon reads scans in order; the baseline's readings are not samples)."""
    pairs, i = [], 0
    for s in samples:
        j = i
        while j < len(made) and max(abs(p - q) for p, q in zip(made[j][0], s["accel"])) > 2e-6:
            j += 1
        if j == len(made):
            continue
        pairs.append((s, made[j][1]))
        i = j + 1
    return pairs
