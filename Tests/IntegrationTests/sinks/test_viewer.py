"""`shimmerd view` end to end: the real daemon under umockdev writes shared-memory frames
for a fixture accelerometer; the real viewer shows them in an SDL2 window on an Xvfb
server (SDL_VIDEODRIVER=x11); xwd screenshots of the window are checked pixel by pixel
against docs/CARD.md's colors (scene_colors.py) for the focal point in the segment's header
(read with the shipped tools/shmread.py). Keys and the close button are sent the way a
desktop sends them: XTEST key presses (xdotool) and a WM_DELETE_WINDOW client message
(python3-xlib)."""
import grp
import os
import re
import subprocess

import pytest

from support import scene_colors
from support.harness import BMC150 as FIXTURE
from support.harness import REPO, SHIMMERD, WAIT, craft_segment, wait_until
from support.sinks import SINK_QUIET as QUIET
from support.sinks import CARD_H, CARD_W, PATH, Tilter, reader_env, shm_daemon
from support.viewer import Viewer, dot_mismatches, wait_for_frame_on_screen
BACKGROUND = (0x20, 0x20, 0x20)   # the window around the card (Viewer.swift)


def futex_waiter(pid, address):
    """The id of a thread of `pid` blocked in futex(2) on `address`, from
    /proc/PID/task/TID/syscall ("NR arg1 ..."), or None."""
    nr = {"x86_64": 202, "aarch64": 98}.get(os.uname().machine)
    assert nr is not None, "futex syscall number for this machine"
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/syscall" % (pid, tid)) as f:
                fields = f.read().split()
        except OSError:
            continue
        if len(fields) > 1 and fields[0] == str(nr) and int(fields[1], 16) == address:
            return tid
    return None


def card_box(shot):
    """Bounding box (x0, y0, x1, y1), exclusive ends, of pixels that are not the window's
    background: the card as SDL scaled it (its corner pixels are black, not background)."""
    xs, ys = [], []
    for y in range(shot.height):
        for x in range(shot.width):
            if shot.pixel(x, y) != BACKGROUND:
                xs.append(x)
                ys.append(y)
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def test_window_shows_the_frames_and_follows_the_tilt(bed_factory, xserver, shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = shm_daemon(bed, shm_name, trace)
    target = tilter.step(*PATH[0], d)
    v = Viewer(xserver, shm_name)
    v.d.wait_log(r"view: showing /dev/shm/%s \(writer pid %d\)" % (re.escape(shm_name), d.p.pid), "showing the segment")

    h1, shot1 = wait_for_frame_on_screen(v, shm_name, d)
    assert abs(h1["focal_x"] - target[0]) < 8 and abs(h1["focal_y"] - target[1]) < 8
    assert abs(h1["focal_x"] - scene_colors.OX) > 20, "the first pose moved the focal point off the origin"

    # Tilt the other way: the window follows to the new focal point, and its pixels change.
    target2 = tilter.step(*PATH[2], d)
    h2, shot2 = wait_for_frame_on_screen(v, shm_name, d)
    assert abs(h2["focal_x"] - target2[0]) < 8 and abs(h2["focal_y"] - target2[1]) < 8
    assert abs(h2["focal_x"] - h1["focal_x"]) > 20
    changed = sum(1 for px, py, _, _ in scene_colors.samples(h2["focal_x"], h2["focal_y"])
                  if shot1.pixel(px, py) != shot2.pixel(px, py))
    assert changed > 100, "only %d dot pixels changed with the tilt" % changed
    _, stale = dot_mismatches(shot2, (h1["focal_x"], h1["focal_y"]))
    assert stale is not None, "the new screenshot must not match the old focal point's colors"

    # Read-only: the viewer's one mapping of the segment has no write permission.
    maps = v.maps()
    assert [m[1] for m in maps] == ["r--s"], maps
    # Not polling: a thread of the viewer sleeps in futex(2) (syscall 202 on x86-64) on the
    # segment's frame word, offset 48 of that mapping.
    word = int(maps[0][0].split("-")[0], 16) + 48
    wait_until(lambda: futex_waiter(v.d.p.pid, word), "a viewer thread in FUTEX_WAIT on the frame word", v.d)

    assert v.stop() == 0
    assert any("view: closed" in l for l in v.d.logs), v.d.logs
    assert d.stop() == 0


def test_resizing_keeps_the_card_aspect_ratio(bed_factory, xserver, shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = shm_daemon(bed, shm_name, trace)
    tilter.step(*PATH[0], d)
    v = Viewer(xserver, shm_name)
    wait_for_frame_on_screen(v, shm_name, d)
    for w, h in ((1000, 400), (500, 800), (1050, 700)):
        v.xdotool("windowsize", "--sync", str(v.window), str(w), str(h))
        last = {}

        def letterboxed():
            # The size the window got (the X server may adjust the request a little).
            shot = v.shot()
            ww, wh = shot.width, shot.height
            s = min(ww / CARD_W, wh / CARD_H)
            want = ((ww - CARD_W * s) / 2, (wh - CARD_H * s) / 2, (ww + CARD_W * s) / 2, (wh + CARD_H * s) / 2)
            box = card_box(shot)
            last.update(size=(ww, wh), box=box, want=want)
            if abs(ww - w) > w // 20 or abs(wh - h) > h // 20:
                return None
            return (shot, box) if all(abs(a - b) <= 2 for a, b in zip(box, want)) else None
        try:
            shot, box = wait_until(letterboxed, "the card scaled to fit %dx%d, centred" % (w, h), d)
        except AssertionError as e:
            raise AssertionError("%s; last: %s" % (e, last))
        bw, bh = box[2] - box[0], box[3] - box[1]
        assert abs(bw / bh - CARD_W / CARD_H) < 0.01, "card box %s is not %d:%d" % (box, CARD_W, CARD_H)
        # The dots are drawn inside it: colored (not grey) pixels in the card's lower half.
        colored = sum(1 for y in range(box[1] + bh // 2, box[3], 4) for x in range(box[0], box[2], 4)
                      if len(set(shot.pixel(x, y))) > 1)
        assert colored > 50, "no dots in the scaled card"
    assert v.stop() == 0
    assert d.stop() == 0


def test_waiting_screen_without_a_segment_then_sigterm(xserver, shm_name):
    assert not os.path.exists("/dev/shm/" + shm_name)
    v = Viewer(xserver, shm_name)
    v.d.wait_log(r"view: waiting for shimmerd: /dev/shm/%s does not exist" % re.escape(shm_name), "the waiting line")
    shot = wait_until(lambda: (lambda s: s if is_waiting_screen(s) else None)(v.shot()), "the waiting screen", v.d)
    assert (shot.width, shot.height) == (CARD_W, CARD_H)
    assert v.maps() == []
    assert v.stop() == 0, v.d.logs
    assert any("view: closed (quit)" in l for l in v.d.logs), v.d.logs
    assert not os.path.exists("/dev/shm/" + shm_name), "the viewer never creates the segment"


def is_waiting_screen(shot):
    """Grey only (no dot colors), the background in the corners, black card inside, and
    bright text across the middle."""
    grey = all(len(set(shot.pixel(x, y))) == 1 for y in range(0, shot.height, 3) for x in range(0, shot.width, 3))
    corners = shot.pixel(0, 0) == BACKGROUND and shot.pixel(shot.width - 1, shot.height - 1) == BACKGROUND
    inside = shot.pixel(40, 40) == (0, 0, 0)
    text = sum(1 for y in range(shot.height // 3, shot.height * 2 // 3) for x in range(0, shot.width, 2)
               if shot.pixel(x, y)[0] > 200)
    return grey and corners and inside and text > 100


def test_frames_appear_when_the_daemon_starts_later_and_survive_its_restart(bed_factory, xserver, shm_name, tmp_path):
    v = Viewer(xserver, shm_name)
    wait_until(lambda: is_waiting_screen(v.shot()), "the waiting screen", v.d)

    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = shm_daemon(bed, shm_name, trace)
    tilter.step(*PATH[0], d)
    h1, _ = wait_for_frame_on_screen(v, shm_name, d)
    assert h1["writer_pid"] == d.p.pid
    assert v.d.poll() is None, "the same viewer process"

    # The daemon stops: the last frame stays on screen.
    assert d.stop() == 0
    v.d.wait_log(r"view: the writer of /dev/shm/%s stopped" % re.escape(shm_name), "the writer-stopped line")
    h_stop, _ = wait_for_frame_on_screen(v, shm_name)
    assert h_stop["writer_pid"] == 0 and h_stop["frame"] >= h1["frame"]

    # It starts again: frames of the new writer appear, and follow the tilt.
    trace2 = str(tmp_path / "trace2.jsonl")
    tilter2 = Tilter(bed, trace2)
    d2 = shm_daemon(bed, shm_name, trace2)
    tilter2.step(*PATH[3], d2)
    v.d.wait_log(r"view: showing /dev/shm/%s \(writer pid %d\)" % (re.escape(shm_name), d2.p.pid), "the new writer")
    h2, _ = wait_for_frame_on_screen(v, shm_name, d2)
    assert h2["writer_pid"] == d2.p.pid and h2["frame"] > h1["frame"]
    assert abs(h2["focal_y"] - h1["focal_y"]) > 20
    assert d2.stop() == 0

    # Another card size: the daemon retires the segment and creates a new one under the
    # name; the viewer opens the new one and shows it scaled into the same window.
    d3 = bed.spawn("run", *QUIET, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--set", "Card.scale=1")
    v.d.wait_log(r"view: opened /dev/shm/%s read-only \(350 x 233 px" % re.escape(shm_name), "the new segment opened")
    v.d.wait_log(r"view: showing /dev/shm/%s \(writer pid %d\)" % (re.escape(shm_name), d3.p.pid), "the third writer")
    shot = wait_until(lambda: (lambda s: s if card_box(s) == (0, 0, CARD_W, 466) else None)(v.shot()),
                      "the 350 x 233 card scaled by 2 into the 700 x 467 window", d3)
    assert sum(1 for y in range(300, 466, 4) for x in range(0, CARD_W, 4) if len(set(shot.pixel(x, y))) > 1) > 50
    assert v.d.poll() is None, "still the same viewer process"
    assert v.stop() == 0
    assert d3.stop() == 0


def test_escape_and_the_close_button_close_the_window(xserver, shm_name):
    v = Viewer(xserver, shm_name)
    v.d.wait_log(r"view: waiting for shimmerd", "the waiting line")
    v.xdotool("windowfocus", "--sync", str(v.window))
    v.xdotool("key", "Escape")
    assert v.d.wait(timeout=WAIT) == 0
    assert any("view: closed (escape)" in l for l in v.d.logs), v.d.logs

    # The close button: the window manager sends WM_PROTOCOLS / WM_DELETE_WINDOW.
    from Xlib import X, display, protocol
    v = Viewer(xserver, shm_name)
    v.d.wait_log(r"view: waiting for shimmerd", "the waiting line")
    dpy = display.Display(xserver)
    win = dpy.create_resource_object("window", v.window)
    wm_protocols, wm_delete = dpy.intern_atom("WM_PROTOCOLS"), dpy.intern_atom("WM_DELETE_WINDOW")
    assert wm_delete in (win.get_wm_protocols() or []), "the window takes WM_DELETE_WINDOW"
    win.send_event(protocol.event.ClientMessage(window=win, client_type=wm_protocols,
                                                data=(32, [wm_delete, X.CurrentTime, 0, 0, 0])),
                   event_mask=X.NoEventMask)
    dpy.flush()
    assert v.d.wait(timeout=WAIT) == 0
    assert any("view: closed (closeRequested)" in l for l in v.d.logs), v.d.logs
    dpy.close()


@pytest.mark.parametrize("unit_name,command", [("shimmerd-view.service", "view --name shimmer"),
                                               ("shimmerd-background.service", "view --background --name shimmer")])
def test_user_units_and_desktop_entry_verify(tmp_path, unit_name, command):
    unit = open(os.path.join(REPO, "systemd", unit_name)).read()
    assert "ExecStart=/usr/local/bin/shimmerd %s\n" % command in unit, unit
    assert "WantedBy=graphical-session.target" in unit and "PartOf=graphical-session.target" in unit
    # systemd-analyze --user verify checks that ExecStart exists: point it at the built binary.
    copy = tmp_path / unit_name
    copy.write_text(unit.replace("/usr/local/bin/shimmerd", SHIMMERD))
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    r = subprocess.run(["systemd-analyze", "--user", "verify", str(copy)], capture_output=True, text=True,
                       env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime)))
    assert r.returncode == 0, r.stderr
    assert unit_name not in r.stderr, r.stderr
    entry = os.path.join(REPO, "systemd", "shimmerd-view.desktop")
    r = subprocess.run(["desktop-file-validate", entry], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert "Exec=shimmerd view\n" in open(entry).read()


def test_no_display_is_exit_69_not_an_invisible_window(shm_name):
    env = {k: v for k, v in reader_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    r = subprocess.run([SHIMMERD, "view", "--name", shm_name], env=dict(env, LC_ALL="C"), capture_output=True,
                       text=True, timeout=WAIT)
    assert r.returncode == 69, r.stderr
    assert "shimmerd: view: cannot open a window:" in r.stderr and "set DISPLAY or WAYLAND_DISPLAY" in r.stderr


def test_no_display_at_all_gives_shimmerd_s_line_first_and_alone(shm_name):
    """No DISPLAY, no WAYLAND_DISPLAY, no XDG_RUNTIME_DIR (a console login, ssh): SDL's
    Wayland probe would print a line of its own about XDG_RUNTIME_DIR before ours."""
    env = {k: v for k, v in reader_env().items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "XDG_RUNTIME_DIR")}
    r = subprocess.run([SHIMMERD, "view", "--name", shm_name], env=dict(env, LC_ALL="C"), capture_output=True,
                       text=True, timeout=WAIT)
    assert r.returncode == 69, r.stderr
    assert r.stderr.splitlines() == [
        "shimmerd: view: cannot open a window: no display: neither DISPLAY (X11) nor WAYLAND_DISPLAY is set and "
        "XDG_RUNTIME_DIR is unset; run it in a desktop session, or set DISPLAY or WAYLAND_DISPLAY"], r.stderr


# --- hostile segments: refused or survived, never a crash ---

def test_a_segment_owned_by_another_user_is_not_shown(xserver, shm_name):
    """Whoever takes the name first would choose what the window shows: an object owned
    by someone other than root, the viewer's user or shimmerd is refused in one line."""
    path = craft_segment(shm_name)
    os.chown(path, 65534, 65534)
    v = Viewer(xserver, shm_name)
    _, line = v.d.wait_log(r"view: .*refusing to show it", "the refusal")
    assert "%s is owned by uid 65534 (nobody), not by root (uid 0)" % path in line, line
    wait_until(lambda: is_waiting_screen(v.shot()), "the waiting screen", v.d)
    assert v.maps() == []
    assert v.stop() == 0, v.d.logs


@pytest.mark.parametrize("mode", [0o660, 0o666])
def test_a_trusted_owners_segment_that_others_may_write_is_not_shown(xserver, shm_name, mode):
    """Owned by root, so trusted, but writable by its group or by anyone: refused in one
    line, as an untrusted owner's is; the window keeps its waiting screen."""
    path = craft_segment(shm_name)
    os.chown(path, 0, 0)
    os.chmod(path, mode)
    v = Viewer(xserver, shm_name)
    _, line = v.d.wait_log(r"view: .*refusing to show it", "the refusal")
    assert "%s has mode 0%o: others may write it; refusing to show it" % (path, mode) in line, line
    wait_until(lambda: is_waiting_screen(v.shot()), "the waiting screen", v.d)
    assert v.maps() == []
    assert v.stop() == 0, v.d.logs


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the viewer as user nobody: needs root")
@pytest.mark.parametrize("mode,advice", [
    (0o640, "nobody is not in group video: sudo usermod -aG video nobody, then log in again"),
    (0o600, "only its owner may read it; let the group read it with Sink.mode = 0640 in the daemon's configuration "
            "([Sink] mode = 0640 in /etc/shimmerd/shimmerd.conf, then systemctl reload shimmerd) and add nobody to "
            "group video: sudo usermod -aG video nobody, then log in again"),
])
def test_a_segment_the_user_may_not_read_names_owner_group_and_the_fix(xserver, shm_name, mode, advice):
    """A desktop user not in the segment's group, or a mode that lets only its owner read
    it: the refusal names the owner, the group and the mode, and the command that fixes
    it, not only `Permission denied`; the window keeps its waiting screen."""
    path = craft_segment(shm_name)
    os.chown(path, 0, grp.getgrnam("video").gr_gid)
    os.chmod(path, mode)
    v = Viewer(xserver, shm_name, prefix=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
    _, line = v.d.wait_log(r"view: .*permission denied", "the refusal")
    assert line.endswith("%s: permission denied (owner root, group video, mode 0%o): %s" % (path, mode, advice)), line
    wait_until(lambda: is_waiting_screen(v.shot()), "the waiting screen", v.d)
    assert v.stop() == 0, v.d.logs


@pytest.mark.parametrize("fields", [
    {"width": 2**30, "stride": 4096},
    {"size": 2**63},
    {"count": 2**31, "size": 2**40},
    {"width": 16000, "height": 16000},
], ids=["width-2^30", "buffer_size-2^63", "count-times-size-overflows", "16000x16000"])
def test_a_crafted_header_is_refused_not_a_crash(xserver, shm_name, fields):
    # 16000 x 16000 is whole (3 GB, sparse): refused for its size, not for a short file.
    craft_segment(shm_name, **fields, length=None if fields.get("width") == 16000 else 1 << 20)
    v = Viewer(xserver, shm_name)
    _, line = v.d.wait_log(r"view: .*not a version 1 SHMR object with a consistent layout within bounds", "the refusal")
    wait_until(lambda: is_waiting_screen(v.shot()), "the waiting screen", v.d)
    with open("/proc/%d/status" % v.d.p.pid) as f:
        rss_kib = int([l for l in f if l.startswith("VmRSS:")][0].split()[1])
    assert rss_kib < 512 * 1024, rss_kib
    assert v.stop() == 0, v.d.logs


def test_a_segment_truncated_under_the_viewer_is_survived(xserver, shm_name):
    """The owner truncates the object the viewer has open: no SIGBUS; the viewer reads
    no frame in it any more and says it is waiting."""
    path = craft_segment(shm_name)
    v = Viewer(xserver, shm_name)
    v.d.wait_log(r"view: the writer of .* stopped; keeping its last frame", "the segment's frame shown")
    os.truncate(path, 0)
    v.d.wait_log(r"view: waiting for the first frame in %s" % re.escape(path), "the truncated segment noticed")
    assert v.d.poll() is None, v.d.logs
    assert v.stop() == 0, v.d.logs
