"""`shimmerd view` on an X server of its own, checked by screenshots against docs/CARD.md's
dot colors."""
import re
import subprocess

from support import scene_colors, xshot
from support.bus import prop
from support.harness import SHIMMERD, WAIT, Daemon, frames_published, wait_until
from support.sinks import CARD_H, CARD_W, reader_env, shmread


class Viewer:
    """`shimmerd view` on `display`, outside the umockdev testbed (it reads no sensor)."""

    def __init__(self, display, name, prefix=()):
        self.display, self.name = display, name
        self.env = dict(reader_env(), DISPLAY=display, SDL_VIDEODRIVER="x11", LC_ALL="C")
        self.d = Daemon([*prefix, SHIMMERD, "view", "--name", name], self.env)
        # The mapped window, moved to the screen's top-left, so no size tried below reaches
        # past the screen's edge (xwd only captures what is on screen). Found again if it
        # is gone by the time it is moved (BadWindow: SDL may replace a window it has just
        # created while it sets up its renderer).
        self.window = int(wait_until(self._find_and_move_window, "the viewer's window, mapped and moved", self.d))

    def _find_and_move_window(self):
        r = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", r"^shimmer \(%s\)" % re.escape(self.name)],
                           env=self.env, capture_output=True, text=True, timeout=WAIT)
        if r.returncode != 0 or not r.stdout.strip():
            return None
        window = r.stdout.split()[0]
        moved = subprocess.run(["xdotool", "windowmove", "--sync", window, "0", "0"], env=self.env,
                               capture_output=True, text=True, timeout=WAIT)
        return window if moved.returncode == 0 else None

    def shot(self):
        return xshot.window(self.display, self.window, env=self.env)

    def xdotool(self, *args):
        r = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=WAIT)
        assert r.returncode == 0, r.stderr

    def maps(self):
        """Lines of /proc/PID/maps naming the segment."""
        with open("/proc/%d/maps" % self.d.p.pid) as f:
            return [l.split() for l in f if l.rstrip().endswith("/dev/shm/" + self.name)]

    def stop(self):
        return self.d.stop()


def wait_for_frame_on_screen(viewer, name, daemon=None):
    """Waits until the window shows the segment's newest frame (the header is the same
    before and after the screenshot, and the dot pixels match its focal point); returns
    that header. Fails with the last mismatch."""
    last = {}

    def matches():
        seg = shmread.Segment(name)
        try:
            before = seg.header()
            shot = viewer.shot()
            after = seg.header()
        finally:
            seg.close()
        if before["frame"] == 0 or before["frame"] != after["frame"]:
            last["why"] = "no settled frame (%s -> %s)" % (before["frame"], after["frame"])
            return None
        if (shot.width, shot.height) != (CARD_W, CARD_H):
            last["why"] = "window is %dx%d" % (shot.width, shot.height)
            return None
        checked, bad = dot_mismatches(shot, (before["focal_x"], before["focal_y"]))
        last["why"] = bad
        if bad is None and checked > 200:
            return before, shot
        return None
    try:
        return wait_until(matches, "the window showing the newest frame", daemon)
    except AssertionError as e:
        raise AssertionError("%s; last: %s" % (e, last.get("why")))


def claiming_viewer(display, shm_name, bus, daemon, monkeypatch):
    """`shimmerd view` on `bus`, opened once `daemon` idles at its start: returns it once its
    claim is counted and frames come for it."""
    daemon.wait_log(r"idle: nobody has claimed the frames", "idle at start")
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address)
    v = Viewer(display, shm_name)
    v.d.wait_log(r"view: claimed the frames of org\.shimmerd\.Shimmerd1", "the viewer's claim")
    wait_until(lambda: prop(bus, "Claims") == 1, "Claims 1 while the window is open", daemon=daemon)
    wait_until(lambda: frames_published(shm_name) > 0, "frames for the viewer", daemon=daemon)
    return v


def dot_mismatches(shot, focal):
    """(checked, first mismatch) of docs/CARD.md's dot pixels for `focal` in a 1:1 shot."""
    checked, bad = 0, None
    for px, py, rgb, what in scene_colors.samples(*focal):
        got = shot.pixel(px, py)
        if max(abs(g - e) for g, e in zip(got, rgb)) > 3:
            bad = bad or "%s pixel (%d, %d) is %s, docs/CARD.md says %s" % (what, px, py, got, rgb)
        checked += 1
    return checked, bad
