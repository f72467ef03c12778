"""The frame sinks under test: the fixture accelerometer tilted along a path until the
frames follow, framebuffer devices in the testbed, the card as `shimmerd render` draws
it, and tools/shmread.py (the shipped reader) run outside the testbed."""
import importlib.util
import os
import subprocess

from support.harness import BMC150, REPO, SHIMMERD, Device, frames_in, pose, read_trace, wait_trace, wait_until

READER = os.path.join(REPO, "tools", "shmread.py")


def _tool(path):
    """A script of tools/ as a module (tools/ is no package)."""
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shmread = _tool(READER)      # the shipped reader, in this process

SINK_QUIET = ["--set", "Sensor.mode=poll", "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3"]
CARD_W, CARD_H = 700, 467
# A tilt path: (roll, lean back) in radians; each step moves the focal point.
PATH = [(0.1, 0.0), (0.1, -0.05), (-0.08, 0.04), (0.05, 0.06)]


def reader_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("UMOCKDEV_DIR", None)
    return env


class Tilter:
    """Drives the fixture accelerometer through PATH and waits until the trace shows a
    frame whose focal point is the mapper's target for that step (the smoother settled)."""

    def __init__(self, bed, trace):
        self.dev = Device(BMC150)
        self.bed, self.trace = bed, trace
        self.since = -1.0   # trace time of the previous step's sample
        bed.set_raw(self.dev, self.dev.raw_for(pose(0, 0)))

    def step(self, roll, lean, daemon):
        # Move only once the baseline is captured (at rest), or the move becomes the baseline.
        wait_trace(self.trace, lambda r: r["type"] == "baseline", "baseline", daemon)
        self.bed.set_raw(self.dev, self.dev.raw_for(pose(roll, lean)))
        accel = self.dev.accel_of(self.dev.raw_for(pose(roll, lean)))

        def sample():
            s = [r for r in read_trace(self.trace) if r["type"] == "sample" and r["t"] > self.since
                 and all(abs(a - b) < 1e-6 for a, b in zip(r["accel"], accel))]
            return s[0] if s else None
        s = wait_until(sample, "sample of pose %s" % ((roll, lean),), daemon)
        self.since = s["t"]
        target = s["focal"]

        # Frames are published only when some dot's color changes (colors step every
        # ~6 pt of distance), so the last frame stops within a few points of the target.
        def near():
            return [f for f in frames_in(self.trace) if f["t"] >= s["t"]
                    and abs(f["focal"][0] - target[0]) < 8 and abs(f["focal"][1] - target[1]) < 8]
        wait_until(near, "frames reaching focal %s" % target, daemon)
        return target


SCREEN_W, SCREEN_H = 800, 600
PATTERN = bytes(range(7, 256, 13))   # any bytes not written by the sink


def add_framebuffer(bed, bpp=32, stride=SCREEN_W * 4, name="fb0", fill=PATTERN):
    """A framebuffer device /dev/NAME of SCREEN_W x SCREEN_H in the testbed: its geometry
    in sysfs, its node a file of `fill` repeated, written as a new node (inode), as a
    re-plugged device gets. Returns (the node's path, its bytes)."""
    bed.add("P: /devices/platform/vfb.0/graphics/%s\nE: SUBSYSTEM=graphics\nE: DEVNAME=/dev/%s\n"
            "A: virtual_size=%d,%d\nA: bits_per_pixel=%d\nA: stride=%d\n" % (name, name, SCREEN_W, SCREEN_H, bpp,
                                                                             stride))
    size = stride * SCREEN_H
    original = (fill * (size // len(fill) + 1))[:size]
    os.makedirs(os.path.join(bed.root, "dev"), exist_ok=True)
    path = os.path.join(bed.root, "dev", name)
    with open(path + ".new", "wb") as f:
        f.write(original)
    os.replace(path + ".new", path)
    return path, original


def shm_daemon(bed, name, trace, *extra, bus=None):
    """The daemon writing shared-memory frames to NAME with a trace; on `bus`, returned
    once it holds the bus name (then it idles until a reader claims the frames)."""
    d = bed.spawn("run", *SINK_QUIET, "--set", "Sink.type=shm", "--set", "Sink.name=" + name,
                  "--set", "Trace.path=" + trace, *extra, extra_env=bus.env if bus else None)
    if bus:
        d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1", "the name taken")
    return d


def reference_card(tmp_path, focal):
    """The card for `focal` from `shimmerd render` (straight RGBA PNG), decoded by ffmpeg
    and premultiplied back to what an XRGB8888 frame holds (black outside the corners)."""
    png = tmp_path / "ref.png"
    r = subprocess.run([SHIMMERD, "render", "--focal", "%r,%r" % tuple(focal), "--out", str(png)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    rgba = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(png), "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                          capture_output=True, check=True).stdout
    assert len(rgba) == CARD_W * CARD_H * 4
    px = []
    for i in range(0, len(rgba), 4):
        a = rgba[i + 3]
        px.append(tuple((c * a + 127) // 255 for c in rgba[i:i + 3]))
    return px
