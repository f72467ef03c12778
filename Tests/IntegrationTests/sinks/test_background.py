"""`shimmerd view --background` end to end: a real headless sway 1.7 (Debian 12: the
headless backend, the pixman renderer, no input devices) run as user nobody with a
runtime directory of its own, the real daemon under umockdev writing shared-memory frames
for a fixture accelerometer, a private system bus with the shipped policy for the claims,
and the background client as nobody too. grim screenshots (screencopy) of each output
are compared with the newest frame of the segment (read with the shipped
tools/shmread.py), the card's corners composited here from docs/CARD.md's radius;
`Claims` on the bus says when the client claims. Each test prints what it measured."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from support import xshot
from support.bus import prop
from support.harness import AS_NOBODY as NOBODY
from support.harness import BMC150 as FIXTURE
from support.harness import REPO, SHIMMERD, WAIT, Daemon, Lines, frames_published, wait_until, wakeups
from support.sinks import CARD_H, CARD_W, PATH, Tilter, reader_env, shm_daemon, shmread

FILL = "#336699"
FILL_RGB = (0x33, 0x66, 0x99)
RADIUS_PT = 12          # docs/CARD.md: the card's corners
CARD_WIDTH_PT = 350     # docs/CARD.md: the default card; its frame's scale is width / 350


class Sway:
    """A headless sway of its own, as user nobody: HEADLESS-1 is 1280 x 720 at scale 2
    (the default card's scale, so the card is copied 1:1). With `parent`, a sway nested in
    that one instead (its wayland backend): each of its outputs, WL-1 first, is a window
    of the parent, and closing the window removes the output (sway 1.7 cannot remove a
    headless output)."""

    def __init__(self, config=(), parent=None):
        self.dir = tempfile.mkdtemp(prefix="shimmerd-sway-", dir="/tmp")
        os.chown(self.dir, 65534, 65534)
        os.chmod(self.dir, 0o700)
        conf = os.path.join(self.dir, "config")
        with open(conf, "w") as f:
            f.write("xwayland disable\n" + ("" if parent else "output HEADLESS-1 scale 2\n")
                    + "".join(line + "\n" for line in config))
        os.chmod(conf, 0o644)
        env = {k: v for k, v in reader_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK")}
        self.env = dict(env, XDG_RUNTIME_DIR=self.dir, HOME=self.dir, WLR_BACKENDS="wayland" if parent else "headless",
                        WLR_RENDERER="pixman", WLR_LIBINPUT_NO_DEVICES="1", LC_ALL="C")
        if parent:
            self.env["WAYLAND_DISPLAY"] = os.path.join(parent.dir, parent.env["WAYLAND_DISPLAY"])
        self.log = open(os.path.join(tempfile.gettempdir(), os.path.basename(self.dir) + ".log"), "w")
        self.p = subprocess.Popen(NOBODY + ["sway", "-c", conf], env=self.env, stdout=self.log, stderr=self.log)
        self.children = []

        def sockets():
            names = os.listdir(self.dir)
            ipc = [n for n in names if n.startswith("sway-ipc.")]
            way = [n for n in names if n.startswith("wayland-") and not n.endswith(".lock")]
            return (way[0], ipc[0]) if ipc and way else None
        way, ipc = wait_until(sockets, "sway's sockets", self)
        self.env.update(WAYLAND_DISPLAY=way, SWAYSOCK=os.path.join(self.dir, ipc))
        if parent:
            wait_until(lambda: "WL-1" in self.outputs(), "the nested sway's WL-1", self)
        else:
            wait_until(lambda: self.outputs().get("HEADLESS-1", {}).get("scale") == 2.0, "HEADLESS-1 at scale 2", self)

    @property
    def logs(self):
        return []

    def poll(self):
        return self.p.poll()

    def msg(self, *args, kind=None):
        r = subprocess.run(NOBODY + ["swaymsg", "-r"] + (["-t", kind] if kind else []) + list(args), env=self.env,
                           capture_output=True, text=True, timeout=WAIT)
        return json.loads(r.stdout) if r.stdout.strip() else None

    def outputs(self):
        return {o["name"]: o for o in self.msg(kind="get_outputs") or []}

    def shot(self, output="HEADLESS-1"):
        r = subprocess.run(NOBODY + ["grim", "-o", output, "-t", "ppm", "-"], env=self.env, capture_output=True,
                           timeout=WAIT)
        assert r.returncode == 0, r.stderr
        return parse_ppm(r.stdout)

    def spawn(self, argv, env=None):
        """A client of this sway, as nobody."""
        p = subprocess.Popen(NOBODY + argv, env=dict(self.env, **(env or {})), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.children.append(p)
        return p

    def close(self):
        for c in self.children:
            if c.poll() is None:
                c.kill()
                c.wait(timeout=WAIT)
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.p.kill()
        self.log.close()
        os.unlink(self.log.name)
        shutil.rmtree(self.dir, ignore_errors=True)


def parse_ppm(data):
    """A binary PPM (P6, maxval 255), as grim -t ppm writes it."""
    fields, i = [], 0
    while len(fields) < 4:
        while data[i:i + 1].isspace():
            i += 1
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        fields.append(data[i:j])
        i = j
    assert fields[0] == b"P6" and fields[3] == b"255", fields
    w, h = int(fields[1]), int(fields[2])
    return xshot.Shot(w, h, data[i + 1:i + 1 + w * h * 3])


@pytest.fixture
def sway():
    s = Sway()
    yield s
    s.close()


def start_background(sway, shipped_bus, name, fill=FILL):
    """The background as nobody; `fill` None: the default fill."""
    env = dict(sway.env, DBUS_SYSTEM_BUS_ADDRESS=shipped_bus.address)
    return Daemon(NOBODY + [SHIMMERD, "view", "--name", name, "--background"] + (["--fill", fill] if fill else []), env)


def daemon_and_background(bed_factory, sway, shipped_bus, shm_name, tmp_path):
    """The daemon on the fixture accelerometer, its tilter, and the background, claimed."""
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = shm_daemon(bed, shm_name, trace, "--set", "Sink.mode=0644", bus=shipped_bus)
    bg = start_background(sway, shipped_bus, shm_name)
    bg.wait_log(r"view: claimed the frames of org\.shimmerd\.Shimmerd1", "the claim")
    return d, bg, tilter


def coverage(px, py, w, h, r):
    """The rounded card's coverage of the pixel centred at (px, py): a one-pixel linear
    ramp at every edge and along the corner arcs (docs/CARD.md: "anti-aliased")."""
    r = min(r, w / 2, h / 2)
    edge = min(px, py, w - px, h - py)

    def ramp(d):
        return min(max(d + 0.5, 0.0), 1.0)
    cx, cy = min(max(px, r), w - r), min(max(py, r), h - r)
    if cx == px or cy == py:
        return ramp(edge)
    dx, dy = px - cx, py - cy
    return min(ramp(r - (dx * dx + dy * dy) ** 0.5), ramp(edge))


def expected_card(header, pixels, fill):
    """The card as the background shows it at equal scale: the frame's pixels (B, G, R, X
    in memory), and in the corners the fill under them, weighted by 1 - coverage."""
    w, h, stride = header["width"], header["height"], header["stride"]
    radius = RADIUS_PT * w / CARD_WIDTH_PT
    rgb = bytearray(w * h * 3)
    for y in range(h):
        row = pixels[y * stride:y * stride + w * 4]
        o = y * w * 3
        rgb[o:o + w * 3:3], rgb[o + 1:o + w * 3:3], rgb[o + 2:o + w * 3:3] = row[2::4], row[1::4], row[0::4]
    side = int(radius) + 2
    for y in list(range(side)) + list(range(h - side, h)):
        for x in list(range(side)) + list(range(w - side, w)):
            c = coverage(x + 0.5, y + 0.5, w, h, radius)
            if c >= 1:
                continue
            weight = round((1 - c) * 256)
            o = (y * w + x) * 3
            for k in range(3):
                rgb[o + k] = min(255, rgb[o + k] + ((fill[k] * weight + 128) >> 8))
    return xshot.Shot(w, h, bytes(rgb))


def compare_card(shot, x0, y0, card):
    """(pixels equal, pixels off by one, worst other difference and where) of the card at
    (x0, y0) of `shot`."""
    equal = off_by_one = 0
    worst = None
    for y in range(card.height):
        got = shot.rgb[((y0 + y) * shot.width + x0) * 3:((y0 + y) * shot.width + x0 + card.width) * 3]
        want = card.rgb[y * card.width * 3:(y + 1) * card.width * 3]
        if got == want:
            equal += card.width
            continue
        for x in range(card.width):
            d = max(abs(got[x * 3 + k] - want[x * 3 + k]) for k in range(3))
            if d == 0:
                equal += 1
            elif d == 1:
                off_by_one += 1
            elif worst is None or d > worst[0]:
                worst = (d, x, y, tuple(got[x * 3:x * 3 + 3]), tuple(want[x * 3:x * 3 + 3]))
    return equal, off_by_one, worst


def outside_is_fill(shot, box, fill=FILL_RGB):
    """The number of pixels outside `box` (x0, y0, x1, y1) that are not the fill."""
    x0, y0, x1, y1 = box
    bad = 0
    full = bytes(fill) * shot.width
    for y in range(shot.height):
        row = shot.rgb[y * shot.width * 3:(y + 1) * shot.width * 3]
        if y < y0 or y >= y1:
            bad += 0 if row == full else sum(1 for x in range(shot.width) if row[x * 3:x * 3 + 3] != bytes(fill))
        else:
            for x in list(range(0, x0)) + list(range(x1, shot.width)):
                bad += row[x * 3:x * 3 + 3] != bytes(fill)
    return bad


def card_on_screen(sway, name, output="HEADLESS-1", at=(290, 126), daemon=None, min_frame=1):
    """Waits until `output` shows the segment's newest frame (frame >= min_frame) at `at`,
    pixel for pixel but for the corners' rounding, the header the same before and after
    the screenshot; returns (header, shot, comparison)."""
    last = {}

    def matches():
        seg = shmread.Segment(name)
        try:
            before, pixels = seg.read_frame()
            shot = sway.shot(output)
            after = seg.header()
        finally:
            seg.close()
        if before["frame"] < min_frame or before["frame"] != after["frame"]:
            last["why"] = "no settled frame (%s -> %s)" % (before["frame"], after["frame"])
            return None
        result = compare_card(shot, at[0], at[1], expected_card(before, pixels, FILL_RGB))
        last["why"] = result
        equal, off_by_one, worst = result
        return (before, shot, result) if worst is None and equal > CARD_W * CARD_H - 4 * 24 * 24 else None
    try:
        return wait_until(matches, "the card of frame >= %d on %s" % (min_frame, output), daemon)
    except AssertionError as e:
        raise AssertionError("%s; last: %s" % (e, last.get("why")))


def test_the_card_is_pixel_exact_and_centred_with_the_fill_around_it_and_in_its_corners(
        bed_factory, sway, shipped_bus, shm_name, tmp_path):
    d, bg, tilter = daemon_and_background(bed_factory, sway, shipped_bus, shm_name, tmp_path)
    assert any(re.search(r"view: output HEADLESS-1 \(1280 x 720 px, scale 2\): a layer surface on the bottom layer",
                         line)
               for line in bg.logs), bg.logs
    assert prop(shipped_bus, "Claims") == 1
    target = tilter.step(*PATH[0], d)
    header, shot, (equal, off_by_one, worst) = card_on_screen(sway, shm_name, daemon=d)
    assert abs(header["focal_x"] - target[0]) < 8 and abs(header["focal_y"] - target[1]) < 8
    # Centred: (1280 - 700) / 2, (720 - 467) / 2; the fill everywhere around the card.
    around = outside_is_fill(shot, (290, 126, 290 + CARD_W, 126 + CARD_H))
    assert around == 0, "%d pixels around the card are not the fill" % around
    # The corners show the fill, not black: the corner pixel itself and the arc's outside.
    for x, y in ((290, 126), (989, 126), (290, 592), (989, 592)):
        assert shot.pixel(x, y) == FILL_RGB, (x, y, shot.pixel(x, y))
    print("\nbackground: %d of %d card pixels equal to the frame's, %d off by one (corners), fill around: %d wrong; "
          "frame %d at focal (%.1f, %.1f)" % (equal, CARD_W * CARD_H, off_by_one, around, header["frame"],
                                              header["focal_x"], header["focal_y"]))
    # docs/background.png is this screenshot: SHIMMERD_UPDATE_DOCS=1 writes it there.
    target = os.path.join(REPO, "docs") if os.environ.get("SHIMMERD_UPDATE_DOCS") == "1" else str(tmp_path)
    with open(os.path.join(target, "background.png"), "wb") as f:
        f.write(shot.png())
    assert bg.stop() == 0
    assert d.stop() == 0


def magenta_pixels(shot):
    return sum(1 for i in range(0, len(shot.rgb), 3) if shot.rgb[i:i + 3] == b"\xff\x00\xff")


class Client:
    """A Wayland client of the sway as nobody, its output read by a thread."""

    def __init__(self, sway, argv, env=None):
        self.lines = Lines(NOBODY + argv, dict(sway.env, **(env or {})))
        sway.children.append(self.lines.p)

    def wait_line(self, pattern, what):
        return self.lines.wait_line(pattern, what)

    def stop(self):
        self.lines.p.terminate()
        return self.lines.p.wait(timeout=WAIT)


def test_the_background_is_above_swaybg_started_after_or_before_it(bed_factory, sway, shipped_bus, shm_name, tmp_path):
    """A typical sway config starts swaybg, on the `background` layer: another surface
    there mapped after it is hidden under it (sway 1.7 keeps the first on top). The card
    is on the `bottom` layer: above swaybg whichever started first."""
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    d = shm_daemon(bed, shm_name, trace, "--set", "Sink.mode=0644", bus=shipped_bus)
    bg = start_background(sway, shipped_bus, shm_name)
    card_on_screen(sway, shm_name, daemon=d)
    # swaybg after the card: its magenta is mapped (committed, and taken by sway), but
    # not one pixel of it shows.
    swaybg = Client(sway, ["swaybg", "-o", "*", "-c", "#ff00ff"], env={"WAYLAND_DEBUG": "1"})
    swaybg.wait_line(r"-> wl_surface@\d+\.attach\(wl_buffer@", "swaybg's buffer attached")
    swaybg.wait_line(r"wl_buffer@\d+\.release\(\)|wl_callback@\d+\.done\(", "sway took swaybg's buffer")
    _, shot, _ = card_on_screen(sway, shm_name, daemon=d)
    after = magenta_pixels(shot)
    assert after == 0, "%d pixels of swaybg show through" % after
    # Without the card, swaybg is what shows: it was there, under it.
    assert bg.stop() == 0
    under = wait_until(lambda: (lambda n: n if n == 1280 * 720 else None)(magenta_pixels(sway.shot())),
                       "swaybg's magenta on the whole output once the card closed", sway)
    # The card started after swaybg: above it too.
    bg = start_background(sway, shipped_bus, shm_name)
    _, shot, _ = card_on_screen(sway, shm_name, daemon=d)
    before = magenta_pixels(shot)
    assert before == 0, "%d pixels of swaybg show through" % before
    print("\nabove swaybg: 0 of its pixels with swaybg started after the card (%d) and before it (%d); "
          "swaybg's magenta on %d of %d pixels while the card was closed" % (after, before, under, 1280 * 720))
    assert bg.stop() == 0
    swaybg.stop()
    assert d.stop() == 0


def non_fill_box(shot, fill=FILL_RGB):
    """Bounding box (x0, y0, x1, y1), exclusive ends, of the pixels that are not the fill."""
    fill = bytes(fill)
    xs, ys = [], []
    for y in range(shot.height):
        row = shot.rgb[y * shot.width * 3:(y + 1) * shot.width * 3]
        if row == fill * shot.width:
            continue
        ys.append(y)
        cols = [x for x in range(shot.width) if row[x * 3:x * 3 + 3] != fill]
        xs += [cols[0], cols[-1]]
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None


def scaled_card_on(sway, output, box, daemon):
    """Waits until `output` shows the card scaled into `box`, the fill around it and in
    its corners; returns the seconds it took and the shot."""
    t0 = time.monotonic()
    last = {}

    def shown():
        shot = sway.shot(output)
        last.update(size=(shot.width, shot.height), box=non_fill_box(shot))
        if last["box"] != box:
            return None
        x0, y0, x1, y1 = box
        corners = [shot.pixel(x, y) for x, y in ((x0, y0), (x1 - 1, y0), (x0, y1 - 1), (x1 - 1, y1 - 1))]
        colored = sum(1 for y in range((y0 + y1) // 2, y1, 3) for x in range(x0, x1, 3)
                      if len(set(shot.pixel(x, y))) > 1)
        return shot if all(c == FILL_RGB for c in corners) and colored > 100 else None
    try:
        shot = wait_until(shown, "the card scaled into %s on %s" % (box, output), daemon)
    except AssertionError as e:
        raise AssertionError("%s; last: %s" % (e, last))
    return time.monotonic() - t0, shot


def test_a_second_output_shows_the_card_within_a_second(bed_factory, sway, shipped_bus, shm_name, tmp_path):
    d, bg, tilter = daemon_and_background(bed_factory, sway, shipped_bus, shm_name, tmp_path)
    tilter.step(*PATH[1], d)
    card_on_screen(sway, shm_name, daemon=d)
    # A new output (sway makes it 1920 x 1080, scale 1): the 700 x 467 card keeps its
    # 350 x 233.5 pt, scaled to 350 x 234 px, centred.
    # Timed to the client's line that sway presented the new surface's first buffer (its
    # frame callback), then checked on a screenshot.
    mark = len(bg.logs)
    t0 = time.monotonic()
    sway.msg("create_output")
    bg.wait_log(r"view: output HEADLESS-2: the background is seen", "the new output's card presented", start=mark)
    new_output = time.monotonic() - t0
    assert new_output <= 1.0, "the new output showed the card after %.2f s" % new_output
    scaled_card_on(sway, "HEADLESS-2", (785, 423, 1135, 657), d)
    # A 1280x720 and a 1920x1080 output cost at most 64 MiB.
    card_on_screen(sway, shm_name, daemon=d)
    with open("/proc/%d/status" % bg.p.pid) as f:
        status = dict(line.split(":", 1) for line in f)
    rss_mib = int(status["VmRSS"].split()[0]) / 1024
    assert rss_mib <= 64, "%.1f MiB with a 1280x720 and a 1920x1080 output" % rss_mib
    # Another mode: the card stays centred.
    sway.msg("output", "HEADLESS-2", "mode", "1280x720")
    scaled_card_on(sway, "HEADLESS-2", (465, 243, 815, 477), d)
    tilter.step(*PATH[2], d)
    card_on_screen(sway, shm_name, daemon=d)
    scaled_card_on(sway, "HEADLESS-2", (465, 243, 815, 477), d)
    # Its scale becomes the frame's: the card is copied 1:1 there too, pixel for pixel.
    sway.msg("output", "HEADLESS-2", "scale", "2")
    _, _, (equal, _, _) = card_on_screen(sway, shm_name, output="HEADLESS-2", daemon=d)
    problems = [line for line in bg.logs if "error" in line or ("warning" in line and "bus" not in line)]
    assert problems == [], problems
    print("\nsecond output: card on the new output %.2f s after create_output (scaled 700x467 -> 350x234, centred); "
          "RSS %.1f MiB with 1280x720@2 and 1920x1080@1; then 1280x720@1, centred; both follow the tilt; at scale 2 "
          "%d of %d card pixels equal" % (new_output, rss_mib, equal, CARD_W * CARD_H))
    assert bg.stop() == 0
    assert d.stop() == 0


def open_window_on(sway, output):
    """A window (weston-flower, xdg-shell) on `output`'s workspace, made fullscreen there."""
    sway.msg("focus", "output", output)
    p = sway.spawn(["weston-flower"])

    def mapped():
        found = []

        def walk(n):
            if n.get("pid") == p.pid:
                found.append(n)
            for c in n.get("nodes", []) + n.get("floating_nodes", []):
                walk(c)
        walk(sway.msg(kind="get_tree") or {})
        return found
    wait_until(mapped, "weston-flower's window on %s" % output, sway)
    result = sway.msg("[pid=%d]" % p.pid, "fullscreen", "enable")
    assert result and result[0]["success"], result
    return p


def two_outputs_with_the_card(bed_factory, sway, shipped_bus, shm_name, tmp_path):
    sway.msg("create_output")
    d, bg, tilter = daemon_and_background(bed_factory, sway, shipped_bus, shm_name, tmp_path)
    tilter.step(*PATH[0], d)
    card_on_screen(sway, shm_name, daemon=d)
    bg.wait_log(r"view: output HEADLESS-2: the background is seen", "the second output's card")
    return d, bg, tilter


def test_a_fullscreen_window_on_every_output_releases_the_claim_and_closing_them_brings_the_card_back(
        bed_factory, sway, shipped_bus, shm_name, tmp_path):
    """sway sends no frame callbacks to a surface a fullscreen window covers: once every
    output has one, nobody sees the card and the claim goes (within 2 s); closing the
    windows shows it again: claimed, and a new frame on screen within 1 s."""
    d, bg, tilter = two_outputs_with_the_card(bed_factory, sway, shipped_bus, shm_name, tmp_path)
    assert prop(shipped_bus, "Claims") == 1
    first = open_window_on(sway, "HEADLESS-1")
    time.sleep(2.5)     # one output covered: the other still shows the card, the claim stays
    assert prop(shipped_bus, "Claims") == 1, "one output still shows the card"
    mark, daemon_mark = len(bg.logs), len(d.logs)
    second = open_window_on(sway, "HEADLESS-2")
    covered = time.monotonic()
    # Timed to the client's line of the daemon's reply to Release(), then checked on the bus.
    bg.wait_log(r"view: released the frames of org\.shimmerd\.Shimmerd1", "the release", start=mark)
    released = time.monotonic() - covered
    assert released <= 2.0, "released %.2f s after the last output was covered" % released
    assert prop(shipped_bus, "Claims") == 0
    # The daemon idles a second after the last claim ended.
    d.wait_log(r"idle: nobody has claimed the frames", "the daemon idle", start=daemon_mark)
    before = frames_published(shm_name)

    first.kill()
    second.kill()
    shown = time.monotonic()
    wait_until(lambda: prop(shipped_bus, "Claims") == 1, "the claim again", bg)
    claimed = time.monotonic() - shown
    wait_until(lambda: frames_published(shm_name) > before, "a new frame", d)
    new_frame = time.monotonic() - shown
    header, _, _ = card_on_screen(sway, shm_name, daemon=d, min_frame=before + 1)
    on_screen = time.monotonic() - shown
    assert new_frame <= 1.0, "a new frame %.2f s after the windows closed" % new_frame
    print("\nfullscreen on both outputs: claim released %.2f s after the second was covered (one covered: kept); "
          "windows closed: claimed again after %.2f s, new frame %d published after %.2f s, "
          "on a screenshot after %.2f s"
          % (released, claimed, header["frame"], new_frame, on_screen))
    assert bg.stop() == 0
    assert d.stop() == 0


def test_wakeups_while_still_and_shown_and_while_hidden(bed_factory, sway, shipped_bus, shm_name, tmp_path):
    d, bg, tilter = two_outputs_with_the_card(bed_factory, sway, shipped_bus, shm_name, tmp_path)
    pid = bg.p.pid
    time.sleep(2)           # the last frame's callbacks answered: still

    def involuntary():
        total = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                total += sum(int(l.split()[1]) for l in f if l.startswith("nonvoluntary_ctxt_switches:"))
        return total

    def rate(seconds):
        """Wakeups a second over `seconds`: voluntary context switches (it slept and was
        woken), and apart the involuntary ones (it was preempted: the machine's load)."""
        frames = frames_published(shm_name)
        v0, n0 = wakeups(pid), involuntary()
        time.sleep(seconds)
        assert frames_published(shm_name) == frames, "the card was still"
        figures.append((involuntary() - n0) / seconds)
        return (wakeups(pid) - v0) / seconds
    figures = []
    shown = rate(10)
    assert shown <= 2.0, "%.2f wakeups a second while still and shown" % shown
    first = open_window_on(sway, "HEADLESS-1")
    second = open_window_on(sway, "HEADLESS-2")
    wait_until(lambda: prop(shipped_bus, "Claims") == 0, "the claim released", bg)
    time.sleep(1)
    hidden = rate(10)
    assert hidden <= 2.0, "%.2f wakeups a second while hidden" % hidden
    print("\nwakeups (voluntary context switches of every thread): %.2f/s still and shown on two outputs, "
          "%.2f/s hidden under fullscreen windows; involuntary besides: %.2f/s and %.2f/s"
          % (shown, hidden, figures[0], figures[1]))
    first.kill()
    second.kill()
    assert bg.stop() == 0
    assert d.stop() == 0


def test_the_compositor_killed_ends_it_within_two_seconds_and_the_claim_with_it(bed_factory, sway, shipped_bus,
                                                                                shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    d = shm_daemon(bed, shm_name, str(tmp_path / "trace.jsonl"), "--set", "Sink.mode=0644", bus=shipped_bus)
    bg = start_background(sway, shipped_bus, shm_name, fill=None)
    wait_until(lambda: prop(shipped_bus, "Claims") == 1, "the claim", bg)
    # Without --fill, the window's grey (#202020) is around the card.
    wait_until(lambda: non_fill_box(sway.shot(), fill=(0x20, 0x20, 0x20)) == (290, 126, 990, 593), "the default fill",
               bg)
    sway.p.kill()
    killed = time.monotonic()
    status = bg.wait(timeout=WAIT)
    gone = time.monotonic() - killed
    assert status == 0, "exit status %s (negative: a signal)" % status
    assert gone <= 2.0, gone
    assert any("the compositor closed the connection" in line for line in bg.logs), bg.logs
    wait_until(lambda: prop(shipped_bus, "Claims") == 0, "the claim gone with the connection", d)
    print("\ncompositor killed: the background exited %d after %.2f s; Claims 0" % (status, gone))
    assert d.stop() == 0


def test_the_daemon_restarted_or_the_bus_back_brings_the_card_back_within_three_seconds(
        bed_factory, sway, shipped_bus, shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    d = shm_daemon(bed, shm_name, str(tmp_path / "trace.jsonl"), "--set", "Sink.mode=0644", bus=shipped_bus)
    bg = start_background(sway, shipped_bus, shm_name)
    card_on_screen(sway, shm_name, daemon=d)
    assert d.stop() == 0
    before = frames_published(shm_name)
    started = time.monotonic()
    d2 = shm_daemon(bed, shm_name, str(tmp_path / "trace2.jsonl"), "--set", "Sink.mode=0644", bus=shipped_bus)
    header, _, _ = card_on_screen(sway, shm_name, daemon=d2, min_frame=before + 1)
    restart = time.monotonic() - started
    assert header["writer_pid"] == d2.p.pid
    assert restart <= 3.0, "the card back %.2f s after the daemon restarted" % restart
    assert prop(shipped_bus, "Claims") == 1

    # The bus restarts (an upgrade of dbus): every claim ends with it; both come back.
    shipped_bus.stop()
    d2.wait_log(r"idle: nobody has claimed the frames", "idle without the bus", start=len(d2.logs) - 3)
    before = frames_published(shm_name)
    shipped_bus.start()
    back = time.monotonic()
    header, _, _ = card_on_screen(sway, shm_name, daemon=d2, min_frame=before + 1)
    bus_back = time.monotonic() - back
    assert bus_back <= 3.0, "the card back %.2f s after the bus came back" % bus_back
    assert prop(shipped_bus, "Claims") == 1
    print("\ndaemon restarted: claimed again and the new daemon's frame %d on screen %.2f s after it started; "
          "bus back: claimed and a new frame on screen after %.2f s" % (header["frame"], restart, bus_back))
    assert bg.stop() == 0
    assert d2.stop() == 0


@pytest.fixture
def weston():
    """A headless weston (no wlr-layer-shell), as nobody, in a runtime directory of its own."""
    runtime = tempfile.mkdtemp(prefix="shimmerd-weston-", dir="/tmp")
    os.chown(runtime, 65534, 65534)
    os.chmod(runtime, 0o700)
    env = dict(reader_env(), XDG_RUNTIME_DIR=runtime, LC_ALL="C")
    p = subprocess.Popen(NOBODY + ["weston", "--backend=headless-backend.so", "--socket=wayland-weston",
                                   "--idle-time=0"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: os.path.exists(os.path.join(runtime, "wayland-weston")), "weston's socket")
    yield dict(env, WAYLAND_DISPLAY="wayland-weston")
    p.terminate()
    p.wait(timeout=WAIT)
    shutil.rmtree(runtime, ignore_errors=True)


def exit_of(env, name):
    t0 = time.monotonic()
    r = subprocess.run(NOBODY + [SHIMMERD, "view", "--name", name, "--background"], env=env, capture_output=True,
                       text=True, timeout=WAIT)
    return r, time.monotonic() - t0


def test_without_a_layer_shell_or_a_display_it_says_so_in_one_line_and_exits_69(weston, shm_name, tmp_path):
    r, seconds = exit_of(weston, shm_name)
    assert r.returncode == 69 and seconds <= 2.0, (r.returncode, seconds, r.stderr)
    assert r.stderr.splitlines() == [
        "shimmerd: view --background: the compositor at %s/wayland-weston has no wlr-layer-shell (GNOME and "
        "weston have none); the background needs a Wayland compositor with wlr-layer-shell (sway, Hyprland, "
        "KDE Plasma, ...): run `shimmerd view` for the card in a window" % weston["XDG_RUNTIME_DIR"]], r.stderr
    figures = [("weston", r.returncode, seconds)]

    empty = tmp_path / "runtime"
    empty.mkdir()
    os.chown(empty, 65534, 65534)
    base = {k: v for k, v in reader_env().items() if k not in ("WAYLAND_DISPLAY", "DISPLAY", "XDG_RUNTIME_DIR")}
    for label, env, why in [
            ("no socket", dict(base, XDG_RUNTIME_DIR=str(empty)),
             "WAYLAND_DISPLAY is unset and there is no %s/wayland-0" % empty),
            ("no XDG_RUNTIME_DIR", base, "XDG_RUNTIME_DIR is unset and so is WAYLAND_DISPLAY")]:
        r, seconds = exit_of(env, shm_name)
        assert r.returncode == 69 and seconds <= 2.0, (label, r.returncode, seconds, r.stderr)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("shimmerd: view --background: no Wayland display: " + why), lines
        assert lines[0].endswith("run `shimmerd view` for the card in a window"), lines
        figures.append((label, r.returncode, seconds))
    print("\nexit 69: " + ", ".join("%s %d after %.2f s" % f for f in figures))


def windows(sway):
    """{name: con_id} of the windows of `sway`."""
    found = {}

    def walk(n):
        if n.get("pid"):
            found[n["name"]] = n["id"]
        for c in n.get("nodes", []) + n.get("floating_nodes", []):
            walk(c)
    walk(sway.msg(kind="get_tree") or {})
    return found


def fitted_card(shot):
    """The card's box on a shot where it is scaled: inside the output, as large as fits,
    the card's aspect, the fill in its corners; None if it is not so."""
    box = non_fill_box(shot)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    fits = w == min(shot.width, 350) or h == min(shot.height, 234) or w == shot.width or h == shot.height
    corners = all(shot.pixel(x, y) == FILL_RGB for x, y in ((x0, y0), (x1 - 1, y0), (x0, y1 - 1), (x1 - 1, y1 - 1)))
    return box if fits and corners and abs(w / h - CARD_W / CARD_H) < 0.02 else None


def test_an_output_that_goes_is_no_error_and_the_others_keep_their_card(bed_factory, sway, shipped_bus, shm_name,
                                                                        tmp_path):
    nested = Sway(parent=sway)
    try:
        nested.msg("create_output")
        wait_until(lambda: "WL-2" in nested.outputs(), "WL-2", nested)
        d, bg, tilter = daemon_and_background(bed_factory, nested, shipped_bus, shm_name, tmp_path)
        for name in ("WL-1", "WL-2"):
            bg.wait_log(r"view: output %s: the background is seen" % name, "the card on %s" % name)
        tilter.step(*PATH[0], d)
        narrow = wait_until(lambda: fitted_card(nested.shot("WL-1")), "the card fitted into WL-1", d)
        # WL-2's window in the outer sway closes: the nested sway removes the output.
        window = windows(sway)["wlroots - WL-2"]
        sway.msg("[con_id=%d]" % window, "kill")
        bg.wait_log(r"view: output WL-2 went away|the layer surface on output WL-2 was closed", "WL-2 gone")
        wait_until(lambda: "WL-2" not in nested.outputs(), "WL-2 removed", nested)
        # WL-1's window takes the room WL-2 left: a new configure, the card drawn for it,
        # and it still follows the tilt.
        tilter.step(*PATH[2], d)
        wide = wait_until(lambda: (lambda b: b if b and b != narrow else None)(fitted_card(nested.shot("WL-1"))),
                          "the card fitted into the wider WL-1", d)
        assert bg.poll() is None
        problems = [line for line in bg.logs if "error" in line or ("warning" in line and "bus" not in line)]
        assert problems == [], problems
        assert prop(shipped_bus, "Claims") == 1
        print("\noutput removed: no error, the client kept running and claiming; WL-1's card %s, then %s once WL-1 "
              "grew; %s" % (narrow, wide, [l for l in bg.logs if "WL-2" in l][-1]))
        assert bg.stop() == 0
        assert d.stop() == 0
    finally:
        nested.close()


def test_the_startup_lines_of_each_desktop_are_the_same_in_the_manual_readme_and_docs():
    """shimmerd(8)'s "DESKTOP BACKGROUND" (generated from its table) gives each desktop's
    line; README.md and docs/BACKGROUND.md give the same ones."""
    page = subprocess.run([SHIMMERD, "man", "shimmerd.8"], capture_output=True, text=True, check=True).stdout
    section = page.split('.SH "DESKTOP BACKGROUND"', 1)[1].split("\n.SH", 1)[0].replace("\\-", "-")
    lines = [l for l in section.splitlines()[1:] if not l.startswith(".") and "\\f" not in l][1:]
    assert lines == ["exec shimmerd view --background", "exec-once = shimmerd view --background",
                     "systemctl --user enable --now shimmerd-background.service"], section
    for doc in ("README.md", "docs/BACKGROUND.md"):
        text = open(os.path.join(REPO, doc)).read()
        for line in lines:
            assert "| `%s` |" % line in text, (doc, line)


def test_each_output_gets_a_bottom_layer_surface_on_every_edge_under_panels_without_input(bed_factory, sway,
                                                                                          shipped_bus, shm_name,
                                                                                          tmp_path):
    """What the client asks of sway, as libwayland-client logs it (WAYLAND_DEBUG): per
    output a layer surface on the bottom layer (1), anchored to all four edges (15), the
    output's size (0, 0), exclusive zone -1, no keyboard (0), an input region with no
    rectangle (clicks reach the desktop), and buffers of device pixels at the output's
    scale."""
    sway.msg("create_output")
    bed = bed_factory(FIXTURE)
    d = shm_daemon(bed, shm_name, str(tmp_path / "trace.jsonl"), "--set", "Sink.mode=0644", bus=shipped_bus)
    bg = Daemon(NOBODY + [SHIMMERD, "view", "--name", shm_name, "--background"],
                dict(sway.env, DBUS_SYSTEM_BUS_ADDRESS=shipped_bus.address, WAYLAND_DEBUG="1"))
    for name in ("HEADLESS-1", "HEADLESS-2"):
        bg.wait_log(r"view: output %s: the background is seen" % name, "the card on %s" % name)
    sent = [re.sub(r"^\[[\d. ]+\]\s+-> ", "", line) for line in bg.logs if " -> " in line]
    layers = [l for l in sent if ".get_layer_surface(" in l]
    assert len(layers) == 2 and all(re.search(r", 1, \"shimmerd\"\)$", l) for l in layers), layers
    for request in ("set_size(0, 0)", "set_anchor(15)", "set_exclusive_zone(-1)", "set_keyboard_interactivity(0)"):
        made = [l for l in sent if l.startswith("zwlr_layer_surface_v1@") and l.endswith("." + request)]
        assert len(made) == 2, request
    regions = set(re.findall(r"wl_surface@\d+\.set_input_region\((wl_region@\d+)\)", "\n".join(sent)))
    assert len(regions) == 2 and not [l for l in sent if any(l.startswith(r + ".add") for r in regions)], sent
    scales = set(re.findall(r"wl_surface@\d+\.set_buffer_scale\((\d+)\)", "\n".join(sent)))
    assert scales == {"2", "1"}, scales       # HEADLESS-1 at 2, HEADLESS-2 at 1
    pools = re.findall(r"create_buffer\(new id wl_buffer@\d+, 0, (\d+), (\d+), (\d+), 1\)", "\n".join(sent))
    assert {(int(w), int(h)) for w, h, _ in pools} == {(1280, 720), (1920, 1080)}, pools   # format 1: XRGB8888
    print("\nrequests: %d layer surfaces on layer 1 (bottom), anchor 15, size 0 x 0, exclusive zone -1, keyboard 0, "
          "empty input regions; buffers %s at scales %s" % (len(layers),
                                                            sorted({(int(w), int(h)) for w, h, _ in pools}),
                                                            sorted(scales)))
    assert bg.stop() == 0
    assert d.stop() == 0
