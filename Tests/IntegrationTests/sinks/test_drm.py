"""The DRM/KMS sink end to end: the real shimmerd under umockdev with a fixture
accelerometer, drawing on an emulated DRM card (drm_emulation.py serves the kernel's
side of the ioctls and events; the scanned-out pixels are read from the card node's
file). What these tests cannot show, a real driver's vblank timing, write-combined
memory and a compositor's master handover, needs a run on real hardware or on a kernel
with vkms (docs/SINKS.md)."""
import signal
import subprocess
import time

import pytest

from support import drm_emulation as de
from support.harness import SHIMMERD, WAIT, pose, read_trace, wait_until
from support.harness import BMC150 as FIXTURE
from support.harness import frames_in
from support.sinks import CARD_H, CARD_W, PATH, Tilter, add_framebuffer, reference_card
from support.sinks import SINK_QUIET as QUIET

DRM = ["--set", "Sink.type=drm"]


def laptop(bed, **kw):
    """A laptop panel whose console shows 1024 x 768 while the panel prefers 1280 x 800."""
    edp = de.Connector("eDP", 1, [de.Mode(1280, 800, preferred=True), de.Mode(1024, 768)], **kw.pop("connector", {}))
    return de.DrmCard(bed, [edp], **kw), edp


def settled(card, trace, daemon):
    """Waits until the daemon has stopped drawing: no flip pending, and the same number
    of frames in the trace and of flips for longer than the trace's flush interval (1 s),
    so the trace's last frame is the last one drawn. Returns it."""
    seen = []

    def quiet():
        time.sleep(0.2)
        crtc = card.active()
        now = (len(frames_in(trace)), len(card.flips), crtc.pending if crtc else None)
        seen.append(now)
        return len(seen) > 8 and now[2] is None and now[0] > 0 and all(s == now for s in seen[-8:])
    wait_until(quiet, "the daemon to finish drawing", daemon)
    return frames_in(trace)[-1]


def compare(got, ref, where):
    """XRGB8888 bytes of the card's rectangle against the reference, 2 units of slack
    (the reference went through a PNG's unpremultiply)."""
    assert len(got) == CARD_W * CARD_H * 4
    for i, want in enumerate(ref):
        o = i * 4
        px = (got[o + 2], got[o + 1], got[o])
        if max(abs(a - b) for a, b in zip(px, want)) > 2:
            raise AssertionError("%s: card pixel (%d, %d) is %s, shimmerd render gives %s"
                                 % (where, i % CARD_W, i // CARD_W, px, want))


def test_each_flip_shows_the_rendered_card_keeping_the_mode_and_restores_the_console(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    card, edp = laptop(bed)
    ox, oy = (1024 - CARD_W) // 2, (768 - CARD_H) // 2
    card.capture = (ox, oy, CARD_W, CARD_H)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm /dev/dri/card0: eDP-1 1024x768@60 \(the mode it had\), panel orientation Normal; card at %d,%d"
               % (ox, oy), "attached")
    for roll, lean in PATH[:3]:
        tilter.step(roll, lean, d)
        settled(card, trace, d)
        assert card.flips[-1].kind == "flip" and card.flips[-1].fb == card.active().fb
    # One flip per published frame, in order: each shows shimmerd render at its frame's
    # focal point (both buffers kept right through incremental frames).
    flips = [f for f in card.flips if f.kind == "flip"]
    frames = frames_in(trace)
    assert [f["frame"] for f in frames] == list(range(1, len(flips) + 1)), "one flip per published frame"
    # Both buffers got incremental frames (only the dots that changed repainted), so each
    # kept the other's repaints: a frame's pixel count below the first, full one.
    incremental = [flip.fb for flip, f in zip(flips, frames) if f["pixels"] < frames[0]["pixels"]]
    assert len(set(incremental)) == 2 and all(incremental.count(fb) >= 2 for fb in set(incremental)), incremental
    for flip, frame in zip(flips, frames):
        compare(flip.pixels, reference_card(tmp_path, frame["focal"]), "flip of frame %d" % frame["frame"])
    # Black around the card on the buffer on screen.
    fb = card.active().fb
    top = card.pixels(fb, 0, 0, 1024, oy)
    left = card.pixels(fb, 0, oy, ox, CARD_H)
    right = card.pixels(fb, ox + CARD_W, oy, 1024 - ox - CARD_W, CARD_H)
    assert top == bytes(len(top)) and left == bytes(len(left)) and right == bytes(len(right))
    assert len({f.fb for f in flips}) == 2, "two buffers take turns"
    assert card.busy_flips == 0, "a flip was queued while one was pending"
    assert card.written_on_screen == [], "a buffer was written while it was on screen"
    assert card.unknown == []
    assert d.stop() == 0
    # The CRTC was set once (in the mode it had), then the console's was set back.
    ours = [s for s in card.setcrtcs if s[1] != card.console_fb]
    assert len(ours) == 1 and ours[0][2] == (1024, 768, 60)
    assert card.setcrtcs[-1][1] == card.console_fb
    assert card.crtc_state() == card.saved
    assert card.master is None and not card.dumbs.keys() - {0x7FFF}, "buffers destroyed, master dropped"


@pytest.mark.parametrize("fault,console_shown",
                         [(signal.SIGSEGV, True), (signal.SIGABRT, True), (signal.SIGSEGV, False)],
                         ids=["SIGSEGV", "SIGABRT", "SIGSEGV-crtc-found-off"])
def test_a_crash_restores_the_console(bed_factory, tmp_path, fault, console_shown):
    """The process dies of a fault (a bad pointer, abort(3)) while the card is shown:
    before it dies, its crash handler sets the saved CRTC back and the VT back to
    KD_TEXT, so the console comes back as after a stop. Without that, the kernel (which
    the emulated card follows) would remove the card's framebuffers with the process and
    turn the CRTC off: a dark screen. A CRTC found off (no console framebuffer) is turned
    off, as a stop does. No core file, and the Swift runtime's backtrace turned off, as in
    test_reload_and_stop.py's crash test."""
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed, console_mode=console_shown)
    console = de.Console(bed)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace,
                  prefix=("prlimit", "--core=0", "--", "env", "SWIFT_BACKTRACE=enable=no"))
    d.wait_log(r"drm /dev/dri/card0: eDP-1 " + (r"1024x768@60 \(the mode it had\)" if console_shown else
                                                r"1280x800@60 \(its preferred mode\)"), "attached")
    tilter.step(*PATH[0], d)
    settled(card, trace, d)
    assert [f for f in card.flips if f.kind == "flip"], "the card was flipped before the fault"
    assert console.modes == [de.KD_GRAPHICS]
    d.p.send_signal(fault)
    assert d.wait(timeout=WAIT) == -fault, "the process dies of the fault"
    # What the stop test asserts: the console's framebuffer and mode set back (or the
    # CRTC off, as found), the VT in text mode; the buffers and master went with the
    # process (the kernel's close).
    if console_shown:
        assert card.setcrtcs[-1][1] == card.console_fb
    else:
        assert card.setcrtcs[-1][1:] == (0, None), card.setcrtcs
    assert card.crtc_state() == card.saved
    assert console.modes == [de.KD_GRAPHICS, de.KD_TEXT] and console.mode == de.KD_TEXT
    wait_until(lambda: card.crtc_state() and card.master is None and not card.dumbs.keys() - {0x7FFF},
               "the card released with the process")
    assert card.unknown == []


@pytest.mark.parametrize("position", [(-120, 450), (500, -40)])
def test_sink_position_places_the_card_clipped_to_the_screen_on_black(bed_factory, tmp_path, position):
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    trace = str(tmp_path / "trace.jsonl")
    Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Sink.position=%d,%d" % position, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm /dev/dri/card0: eDP-1 .*card at %d,%d;" % position, "attached")
    last = settled(card, trace, d)
    screen = card.pixels(card.active().fb, 0, 0, 1024, 768)
    ref = reference_card(tmp_path, last["focal"])
    ox, oy = position
    for y in range(768):
        for x in range(1024):
            o = (y * 1024 + x) * 4
            got = (screen[o + 2], screen[o + 1], screen[o])
            if 0 <= x - ox < CARD_W and 0 <= y - oy < CARD_H:
                want = ref[(y - oy) * CARD_W + (x - ox)]
                assert max(abs(a - b) for a, b in zip(got, want)) <= 2, "pixel (%d, %d): %s, expected %s" % (x, y, got,
                                                                                                             want)
            else:
                assert screen[o:o + 4] == bytes(4), "pixel (%d, %d) outside the card is %s" % (x, y, got)
    assert d.stop() == 0
    assert card.crtc_state() == card.saved


def test_no_flip_is_queued_while_one_is_pending_and_the_newest_picture_is_shown(bed_factory, tmp_path):
    """A display with a slow refresh (a flip completes 0.2 s after it is queued): the
    card moves faster than that, the daemon never queues a second flip, and once it
    settles the newest frame is on screen."""
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed, vblank=0.2)
    ox, oy = (1024 - CARD_W) // 2, (768 - CARD_H) // 2
    card.capture = (ox, oy, CARD_W, CARD_H)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    for roll, lean in PATH:
        tilter.step(roll, lean, d)
    last = settled(card, trace, d)
    assert card.busy_flips == 0
    assert card.flip_requests == len([f for f in card.flips if f.kind == "flip"])
    compare(card.flips[-1].pixels, reference_card(tmp_path, last["focal"]), "newest frame")
    assert d.stop() == 0
    assert card.crtc_state() == card.saved


@pytest.mark.parametrize("errno_name", ["EBUSY", "EACCES"])
def test_master_held_by_another_program_is_logged_once_and_retried(bed_factory, tmp_path, errno_name):
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    card.foreign_master = getattr(de, errno_name)
    trace = str(tmp_path / "trace.jsonl")
    Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm auto unavailable: /dev/dri/card0: another program holds DRM master "
               r"\(%s from drmSetMaster" % errno_name,
               "master busy")
    wait_until(lambda: len(card.master_requests) >= 3, "two retries", d)
    wait_until(lambda: frames_in(trace), "frames rendered while the display is busy", d)
    assert card.setcrtcs == [] and card.crtc_state() == card.saved, "nothing drawn without master"
    card.foreign_master = None          # the compositor exits
    d.wait_log(r"drm /dev/dri/card0: eDP-1 1024x768@60", "attached once master is free")
    assert sum("another program holds DRM master" in l for l in d.logs) == 1, d.logs
    assert d.stop() == 0
    assert card.crtc_state() == card.saved


def test_a_compositor_taking_master_mid_run_is_left_the_display_and_the_card_comes_back(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    card.capture = ((1024 - CARD_W) // 2, (768 - CARD_H) // 2, CARD_W, CARD_H)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    tilter.step(*PATH[0], d)
    card.take_master()                  # a VT switch to a compositor
    flips = len(card.flips)
    tilter.step(*PATH[1], d)
    i, _ = d.wait_log(r"drm /dev/dri/card0 eDP-1: another program took the display \(EACCES from drmModePageFlip\); "
                      r"the display is left to it", "master lost")
    d.wait_log(r"another program holds DRM master \(EBUSY from drmSetMaster", "retrying", start=i)
    assert len(card.flips) == flips and len(card.setcrtcs) == 1, "nothing drawn without master"
    assert card.crtc_state() == card.saved, "the display left to the other program"
    card.foreign_master = None          # back to the console
    d.wait_log(r"drm /dev/dri/card0: eDP-1 1024x768@60", "attached again", start=i)
    tilter.step(*PATH[2], d)
    last = settled(card, trace, d)
    compare(card.flips[-1].pixels, reference_card(tmp_path, last["focal"]), "after master came back")
    assert d.stop() == 0
    assert sum("another program holds DRM master" in l for l in d.logs) == 1, d.logs
    assert not any("cannot restore" in l for l in d.logs), d.logs
    assert card.crtc_state() == card.saved


def test_a_flip_whose_event_never_comes_sets_the_display_up_again(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm /dev/dri/card0: eDP-1", "attached")
    card.hold = True                    # a stuck display: no vblank event any more
    bed.set_raw(tilter.dev, tilter.dev.raw_for(pose(*PATH[0])))
    i, _ = d.wait_log(r"drm /dev/dri/card0 eDP-1: no page-flip event 2 s after the flip was queued; "
                      r"the console is restored",
                      "stuck flip noticed")
    assert card.busy_flips == 0
    card.hold = False
    d.wait_log(r"drm /dev/dri/card0: eDP-1 1024x768@60", "set up again", start=i)
    flips = len([f for f in card.flips if f.kind == "flip"])
    tilter.step(*PATH[1], d)
    wait_until(lambda: len([f for f in card.flips if f.kind == "flip"]) > flips, "flips again", d)
    assert d.stop() == 0
    assert card.busy_flips == 0
    assert card.crtc_state() == card.saved


def rotated(orientation, ux, uy, pw, ph):
    """Panel pixel of upright pixel (ux, uy), from the picture turned as the kernel's
    console turns it: Left Side Up 90 degrees counter-clockwise, Right Side Up clockwise."""
    if orientation == "Normal":
        return ux, uy
    if orientation == "Upside Down":
        return pw - 1 - ux, ph - 1 - uy
    if orientation == "Left Side Up":      # upright is ph wide: turning it left puts its right edge on top
        return uy, ph - 1 - ux
    return pw - 1 - uy, ux


@pytest.mark.parametrize("orientation", ["Normal", "Upside Down", "Left Side Up", "Right Side Up"])
def test_panel_orientation_turns_the_card_upright(bed_factory, tmp_path, orientation):
    """A tablet whose 800 x 1280 panel is mounted turned: the CRTC is off at start, so the
    panel's preferred mode is set; the card is drawn so that the user sees it upright."""
    bed = bed_factory(FIXTURE)
    dsi = de.Connector("DSI", 1, [de.Mode(800, 1280, preferred=True), de.Mode(600, 1024)], orientation=orientation)
    card = de.DrmCard(bed, [dsi], console_mode=False)
    trace = str(tmp_path / "trace.jsonl")
    Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm /dev/dri/card0: DSI-1 800x1280@60 \(its preferred mode\), panel orientation %s" % orientation,
               "attached")
    last = settled(card, trace, d)
    pw, ph = 800, 1280
    uw, uh = (pw, ph) if orientation in ("Normal", "Upside Down") else (ph, pw)
    ox, oy = (uw - CARD_W) // 2, (uh - CARD_H) // 2
    screen = card.pixels(card.active().fb, 0, 0, pw, ph)
    ref = reference_card(tmp_path, last["focal"])
    for cy in range(CARD_H):
        for cx in range(CARD_W):
            px, py = rotated(orientation, ox + cx, oy + cy, pw, ph)
            o = (py * pw + px) * 4
            got = (screen[o + 2], screen[o + 1], screen[o])
            want = ref[cy * CARD_W + cx]
            if max(abs(a - b) for a, b in zip(got, want)) > 2:
                raise AssertionError("%s: card pixel (%d, %d) at panel (%d, %d) is %s, expected %s"
                                     % (orientation, cx, cy, px, py, got, want))
    # The panel pixels outside the turned card's rectangle stay black.
    corners = [rotated(orientation, x, y, pw, ph) for x, y in ((ox, oy), (ox + CARD_W - 1, oy + CARD_H - 1))]
    x0, x1 = sorted(p[0] for p in corners)
    y0, y1 = sorted(p[1] for p in corners)
    for y in list(range(0, y0, 37)) + list(range(y1 + 1, ph, 37)):
        assert screen[y * pw * 4:(y + 1) * pw * 4] == bytes(pw * 4), "row %d outside the card" % y
    assert d.stop() == 0
    assert card.setcrtcs[0][2] == (800, 1280, 60)
    assert card.crtc_state() == card.saved, "a CRTC found off is turned off again"


def test_a_reload_keeps_an_unchanged_display_and_restores_the_console_before_a_changed_one(bed_factory, tmp_path,
                                                                                           shm_name):
    """With Sink.type = auto: the reload's new sink is chosen while the running one
    still holds DRM master, and is still drm."""
    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("")
    Tilter(bed, trace)
    d = bed.spawn("run", "--config", str(conf), *QUIET, "--set", "Sink.name=" + shm_name,
                  "--set", "Trace.path=" + trace)
    d.wait_log(r"Sink.type = auto: drm: /dev/dri/card0 eDP-1 is connected \(1024x768@60\) and free to drive",
               "auto: drm")
    first, _ = d.wait_log(r"drm /dev/dri/card0: eDP-1 .*card at %d,%d" % ((1024 - CARD_W) // 2, (768 - CARD_H) // 2),
                          "attached centred")
    d.p.send_signal(signal.SIGHUP)
    kept, _ = d.wait_log(r"SIGHUP: configuration reloaded .*sink kept", "sink kept", start=first + 1)
    assert len(card.setcrtcs) == 1, "an unchanged sink keeps the display as it is"
    conf.write_text("[Sink]\nposition = 10,20\n")
    d.p.send_signal(signal.SIGHUP)
    d.wait_log(r"Sink.type = auto: drm: /dev/dri/card0 eDP-1 is connected \(1024x768@60\) and driven by this process's "
               r"running sink until the reload replaces it", "auto: drm again", start=kept + 1)
    d.wait_log(r"drm /dev/dri/card0: eDP-1 .*card at 10,20", "the new sink attached", start=kept + 1)
    assert d.stop() == 0
    assert not any("unavailable" in l for l in d.logs), d.logs
    kinds = ["console" if s[1] == card.console_fb else "ours" for s in card.setcrtcs]
    assert kinds == ["ours", "console", "ours", "console"], card.setcrtcs
    assert card.crtc_state() == card.saved


def test_connector_by_name_and_hotplug(bed_factory, tmp_path):
    """Sink.connector = HDMI-A-1 on a laptop with its panel on: the HDMI display is
    driven only once it is plugged in, and given back when it is unplugged."""
    bed = bed_factory(FIXTURE)
    edp = de.Connector("eDP", 1, [de.Mode(1024, 768, preferred=True)])
    hdmi = de.Connector("HDMI-A", 1, [de.Mode(1920, 1080, preferred=True), de.Mode(1280, 720)], connected=False)
    card = de.DrmCard(bed, [edp, hdmi])
    trace = str(tmp_path / "trace.jsonl")
    Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Sink.connector=HDMI-A-1", "--set", "Trace.path=" + trace)
    d.wait_log(r"drm auto unavailable: /dev/dri/card0 connector HDMI-A-1 has no display connected", "waiting for HDMI")
    card.hotplug(hdmi, True)
    d.wait_log(r"drm /dev/dri/card0: HDMI-A-1 1920x1080@60 \(its preferred mode\)", "attached on hotplug")
    ours = wait_until(lambda: [c for c in card.crtc_state() if hdmi.id in c[2]], "HDMI driven", d)
    assert ours[0][1] == (1920, 1080, 60)
    assert card.crtc_state()[0] == card.saved[0], "the panel's CRTC is left alone"
    card.hotplug(hdmi, False)
    d.wait_log(r"drm /dev/dri/card0 HDMI-A-1: the display was disconnected; the console is restored",
               "detached on unplug")
    wait_until(lambda: card.crtc_state() == card.saved, "the HDMI CRTC off again", d)
    assert d.stop() == 0
    r = bed.run("run", *QUIET, *DRM, "--set", "Sink.connector=DP-3", "--duration", "1")
    assert r.returncode == 0
    assert "has no connector DP-3 (connectors: eDP-1 (connected), HDMI-A-1 (disconnected))" in r.stderr, r.stderr


def test_auto_picks_drm_then_framebuffer_then_shared_memory(bed_factory, shm_name):
    args = ["run", *QUIET, "--set", "Sink.name=" + shm_name, "--duration", "1"]

    bed = bed_factory(FIXTURE)
    card, _ = laptop(bed)
    add_framebuffer(bed, 32, 800 * 4)
    r = bed.run(*args)
    assert r.returncode == 0, r.stderr
    assert ("Sink.type = auto: drm: /dev/dri/card0 eDP-1 is connected (1024x768@60) and free to drive"
            in r.stderr), r.stderr
    assert card.crtc_state() == card.saved and len(card.setcrtcs) == 2

    card.foreign_master = de.EBUSY      # a desktop: the compositor is master
    r = bed.run(*args)
    assert r.returncode == 0, r.stderr
    assert ("Sink.type = auto: shm: /dev/dri/card0 eDP-1 is connected but another program holds DRM master (EBUSY)"
            in r.stderr), r.stderr

    bed = bed_factory(FIXTURE)          # no DRM card: an old kernel's framebuffer
    add_framebuffer(bed, 32, 800 * 4)
    r = bed.run(*args)
    assert r.returncode == 0, r.stderr
    assert ("Sink.type = auto: framebuffer: no DRM display (no DRM card (/dev/dri/card*) in udev); /dev/fb0 opens"
            in r.stderr)
    assert "framebuffer /dev/fb0: 800 x 600" in r.stderr

    bed = bed_factory(FIXTURE)          # neither
    r = bed.run(*args)
    assert r.returncode == 0, r.stderr
    assert "Sink.type = auto: shm: no DRM display (no DRM card (/dev/dri/card*) in udev) and no framebuffer" in r.stderr


def test_check_config_explains_auto():
    r = subprocess.run([SHIMMERD, "check-config", "--documented"], capture_output=True, text=True, timeout=WAIT)
    assert r.returncode == 0
    assert "#type = auto" in r.stdout and "#connector = auto" in r.stdout
    assert "auto picks drm where a connected display can be driven" in r.stdout
    r = subprocess.run([SHIMMERD, "check-config"], capture_output=True, text=True, timeout=WAIT)
    assert r.returncode == 0
    assert "\ntype = auto\n" in r.stdout
    assert "# Sink.type = auto: where frames go: auto picks drm where a connected display can be driven" in r.stdout
    # A valid configuration on a machine without the card it names: the values are
    # printed, and exit 69 says the device is missing (test_check_config_probes_...).
    r = subprocess.run([SHIMMERD, "check-config", "--set", "Sink.type=drm", "--set", "Sink.connector=HDMI-A-1"],
                       capture_output=True, text=True, timeout=WAIT)
    assert r.returncode in (0, 69) and "\nconnector = HDMI-A-1\n" in r.stdout and "Sink.type = auto" not in r.stdout
    r = subprocess.run([SHIMMERD, "check-config", "--set", "Sink.connector=HDMI A"], capture_output=True, text=True,
                       timeout=WAIT)
    assert r.returncode == 78 and "Sink.connector" in r.stderr and "auto or a connector name" in r.stderr, r.stderr


def demand(trace):
    return [r for r in read_trace(trace) if r["type"] == "demand"]


def still_idle_while_moving(bed, tilter, trace, card, pose_):
    """Moves the device while the daemon idles: no frame, no flip, no read of the sensor."""
    frames, flips = len(frames_in(trace)), len(card.flips)
    bed.set_raw(tilter.dev, tilter.dev.raw_for(pose(*pose_)))
    time.sleep(1.0)
    assert len(frames_in(trace)) == frames and len(card.flips) == flips
    assert not bed.read_since_written(tilter.dev), "the sensor was read while nobody could see the card"


def first_flip_after(card, flips, daemon):
    return wait_until(lambda: len(card.flips) > flips, "a flip once someone can see the card", daemon)


def on_the_panel(bed_factory, tmp_path):
    """The daemon drawing on the laptop's panel with its console (Sink.demand = auto), a
    trace, and the card moved to the path's first step: (bed, card, edp, console, trace,
    tilter, daemon)."""
    bed = bed_factory(FIXTURE)
    card, edp = laptop(bed)
    console = de.Console(bed)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, *DRM, "--set", "Trace.path=" + trace)
    d.wait_log(r"drm /dev/dri/card0: eDP-1 1024x768@60", "attached")
    tilter.step(*PATH[0], d)
    return bed, card, edp, console, trace, tilter, d


def test_the_card_idles_while_the_display_is_off_or_the_console_is_switched_away(bed_factory, tmp_path):
    """Sink.demand = auto on a display: DPMS Off (read at the drm event that follows)
    and a switch to another VT (the kernel's VT_PROCESS signal, SIGUSR2) each stop the
    reads and frames within a second; DPMS On and the switch back each bring a frame at
    once, from a new baseline. The switch away gives the display up (the console's
    picture set back, DRM master dropped) before the kernel is told it may switch."""
    bed, card, edp, console, trace, tilter, d = on_the_panel(bed_factory, tmp_path)
    assert console.vt_modes == [(de.VT_PROCESS, signal.SIGUSR2, signal.SIGUSR2)]

    off = time.monotonic()
    card.set_dpms(edp, 3)
    idle = wait_until(lambda: [r for r in demand(trace) if r["state"] == "idle"], "idle with the display off", d)[0]
    assert time.monotonic() - off < 1.0 + 0.5
    assert idle["reason"] == "the display is off (DPMS Off)"
    time.sleep(0.3)
    still_idle_while_moving(bed, tilter, trace, card, PATH[1])

    flips = len(card.flips)
    card.set_dpms(edp, 0)
    first_flip_after(card, flips, d)
    resumed = [r for r in demand(trace) if r["state"] == "resumed"][0]
    assert resumed["reason"] == "the display is on and its console in front"
    first = next(f for f in frames_in(trace) if f["t"] >= resumed["t"])
    assert first["t"] - resumed["t"] < 0.5
    tilter.since = resumed["t"]
    tilter.step(*PATH[2], d)

    console.switch_away(2, d.p.pid)
    assert console.reldisps == [1]
    assert card.master is None and card.crtc_state() == card.saved, "the display given up before the switch"
    wait_until(lambda: len([r for r in demand(trace) if r["state"] == "idle"]) == 2, "idle on VT 2", d)
    assert demand(trace)[-1]["reason"] == "the console is switched away (VT 2 in front)"
    still_idle_while_moving(bed, tilter, trace, card, PATH[3])

    flips = len(card.flips)
    console.switch_back(d.p.pid)
    assert console.reldisps == [1, de.VT_ACKACQ]
    first_flip_after(card, flips, d)
    resumed = [r for r in demand(trace) if r["state"] == "resumed"][-1]
    first = next(f for f in frames_in(trace) if f["t"] >= resumed["t"])
    assert first["t"] - resumed["t"] < 0.5
    assert d.stop() == 0
    assert console.vt_modes[-1][0] == de.VT_AUTO and console.mode == de.KD_TEXT
    assert card.crtc_state() == card.saved and card.master is None
    assert card.unknown == []


def test_check_config_probes_the_display_a_kiosk_names(bed_factory):
    """check-config is a probe a kiosk's script can trust: with Sink.type = drm it exits
    69 with one line naming what is missing (no DRM card; a connector named that the card
    does not have, or with no display), and 0 once the card and a connected display are
    there. `run` itself waits for them, retrying, as a driver may load late and a
    display be plugged in: one line says so."""
    bed = bed_factory(FIXTURE)
    r = bed.run("check-config", *DRM)
    assert r.returncode == 69 and r.stderr.count("\n") == 1, r.stderr
    assert ("Sink.type = drm (--set Sink.type=drm): no DRM card (/dev/dri/card*) in udev; run would wait for it"
            in r.stderr)
    assert "\ntype = drm\n" in r.stdout, "the effective values are printed all the same"
    r = bed.run("run", *QUIET, *DRM, "--duration", "1")
    assert r.returncode == 0
    assert len([l for l in r.stderr.splitlines() if "no DRM card" in l and "retrying" in l]) == 1, r.stderr

    laptop(bed)
    r = bed.run("check-config", *DRM)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = bed.run("check-config", *DRM, "--set", "Sink.connector=HDMI-A-1")
    assert r.returncode == 69 and "HDMI-A-1" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def flapping(bed_factory, tmp_path, flap, times):
    """The daemon on the laptop's panel (Sink.demand = auto); `flap(card, edp, console,
    pid)` done `times` times with 0.1 s between its halves. Returns the log lines said from
    the first to 1.5 s after the last (the display then on and in front), and whether
    the card is drawn again: a tilt after them gives a frame."""
    bed, card, edp, console, trace, tilter, d = on_the_panel(bed_factory, tmp_path)
    before = len(d.logs)
    for _ in range(times):
        flap(card, edp, console, d.p.pid)
    time.sleep(1.5)
    lines = d.logs[before:]
    flips = len(card.flips)
    tilter.step(*PATH[1], d)
    first_flip_after(card, flips, d)
    assert d.stop() == 0
    return lines


def test_fifty_dpms_toggles_give_at_most_twenty_lines(bed_factory, tmp_path):
    """Another program switches the display off and on 50 times, 0.1 s each way: at most
    20 lines in all, the last said true of the display (on), and the card drawn after."""
    def toggle(card, edp, console, pid):
        card.set_dpms(edp, 3)
        time.sleep(0.1)
        card.set_dpms(edp, 0)
        time.sleep(0.1)
    lines = flapping(bed_factory, tmp_path, toggle, 50)
    print("%d lines for 50 DPMS toggles:\n%s" % (len(lines), "\n".join(lines)))
    assert len(lines) <= 20
    said = [l for l in lines if "DPMS" in l]
    assert said and ": DPMS On" in said[-1], said


def test_twenty_console_switches_give_at_most_twenty_lines(bed_factory, tmp_path):
    """The console is switched to VT 2 and back 20 times, 0.1 s each way: each switch is
    done (the display given up, then taken again), with at most 20 lines in all, and the
    card drawn after."""
    def switch(card, edp, console, pid):
        console.switch_away(2, pid)
        time.sleep(0.1)
        console.switch_back(pid)
        time.sleep(0.1)
    lines = flapping(bed_factory, tmp_path, switch, 20)
    print("%d lines for 20 console switches:\n%s" % (len(lines), "\n".join(lines)))
    assert len(lines) <= 20
