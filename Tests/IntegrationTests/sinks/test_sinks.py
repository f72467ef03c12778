"""The frame sinks end to end: the real shimmerd under umockdev with a fixture
accelerometer driven through a tilt path, writing to shared memory (read by the shipped
tools/shmread.py in another process), to a pipe into a real ffmpeg, and to a regular file
standing in for /dev/fb0 with its geometry in the testbed's sysfs."""
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

import pytest

from support import scene_colors
from support.harness import BMC150 as FIXTURE
from support.harness import (REPO, SHIMMERD, WAIT, Device, craft_segment, frames_in, pose, read_trace, wait_trace,
                             wait_until)
from support.sinks import (CARD_H, CARD_W, PATH, READER, SCREEN_H, SCREEN_W, Tilter, add_framebuffer, reader_env,
                           reference_card)
from support.sinks import SINK_QUIET as QUIET


def check_dot_pixels(pixels, stride, focal, where):
    """Dot pixels against docs/CARD.md's colors for `focal`; XRGB8888 bytes B, G, R, X."""
    checked = 0
    for px, py, rgb, what in scene_colors.samples(*focal):
        o = py * stride + px * 4
        got = (pixels[o + 2], pixels[o + 1], pixels[o])
        assert max(abs(g - e) for g, e in zip(got, rgb)) <= 3, \
            "%s: %s pixel (%d, %d) is %s, docs/CARD.md says %s for focal %s" % (where, what, px, py, got, rgb, focal)
        checked += 1
    assert checked > 200
    return checked


def run_reader(*args, timeout=WAIT):
    r = subprocess.run([sys.executable, READER, *args], env=reader_env(), capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr
    return r


def check_header(h, name):
    assert h["magic"] == "SHMR" and h["version"] == 1 and h["header_size"] == 128
    assert (h["width"], h["height"], h["stride"]) == (CARD_W, CARD_H, CARD_W * 4)
    assert h["fourcc"] == 0x34325258 and h["fourcc_text"] == "XR24"
    assert h["buffer_count"] >= 3 and h["buffer_offset"] % 4096 == 0 and h["buffer_offset"] >= 128
    assert h["buffer_size"] % 4096 == 0 and h["buffer_size"] >= CARD_W * 4 * CARD_H
    st = os.stat("/dev/shm/" + name)
    assert st.st_size == h["buffer_offset"] + h["buffer_count"] * h["buffer_size"]
    assert st.st_mode & 0o777 == 0o640


def test_shm_reader_checks_header_and_dot_colors_across_a_restart(bed_factory, shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    args = ["run", *QUIET, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--set", "Trace.path=" + trace]
    d = bed.spawn(*args)
    for roll, lean in PATH[:2]:
        tilter.step(roll, lean, d)

    # A separate process, the shipped reader, while the daemon runs.
    out = tmp_path / "frame.xrgb"
    h = json.loads(run_reader("--name", shm_name, "snapshot", "--raw", str(out)).stdout)
    check_header(h, shm_name)
    assert h["writer_pid"] == d.p.pid and h["frame"] >= 2
    trace_frames = {f["frame"]: f for f in frames_in(trace)}
    assert h["frame"] in trace_frames
    assert h["focal_x"] == pytest.approx(trace_frames[h["frame"]]["focal"][0], abs=1e-3)
    assert h["focal_y"] == pytest.approx(trace_frames[h["frame"]]["focal"][1], abs=1e-3)
    assert h["focal_x"] != pytest.approx(175, abs=1), "the tilt path moved the focal point"
    check_dot_pixels(out.read_bytes(), h["stride"], (h["focal_x"], h["focal_y"]), "running")

    # A follower that stays across the restart.
    follower = subprocess.Popen([sys.executable, READER, "--name", shm_name, "follow", "--timeout", str(WAIT)],
                                env=reader_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    threading.Thread(target=lambda: [lines.append(json.loads(l)) for l in follower.stdout], daemon=True).start()
    wait_until(lambda: lines, "the follower ready")

    assert d.stop() == 0
    last = frames_in(trace)[-1]
    h = json.loads(run_reader("--name", shm_name, "snapshot", "--raw", str(out)).stdout)
    assert h["writer_pid"] == 0, "writer_pid is 0 once the writer has gone"
    assert h["frame"] == last["frame"], "the object is kept with the last frame"
    assert [h["focal_x"], h["focal_y"]] == pytest.approx(last["focal"], abs=1e-3)
    check_dot_pixels(out.read_bytes(), h["stride"], (h["focal_x"], h["focal_y"]), "after exit")
    ino = os.stat("/dev/shm/" + shm_name).st_ino

    # Restart: same object, the counter continues, the follower sees the new writer's frames.
    trace2 = str(tmp_path / "trace2.jsonl")
    d2 = bed.spawn(*args[:-2], "--set", "Trace.path=" + trace2)
    d2.wait_log(r"reusing the existing object at frame %d" % last["frame"], "reuse")
    tilter.trace, tilter.since = trace2, -1.0
    tilter.step(*PATH[2], d2)
    assert os.stat("/dev/shm/" + shm_name).st_ino == ino
    new = wait_until(lambda: [l for l in lines if l.get("writer_pid") == d2.p.pid],
                     "the follower seeing the new writer")
    assert new[0]["frame"] == last["frame"] + 1
    seen = [l["frame"] for l in lines if "how" in l]
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    h = json.loads(run_reader("--name", shm_name, "snapshot", "--raw", str(out)).stdout)
    assert h["writer_pid"] == d2.p.pid and h["frame"] - last["frame"] in {f["frame"] for f in frames_in(trace2)}
    check_dot_pixels(out.read_bytes(), h["stride"], (h["focal_x"], h["focal_y"]), "after restart")
    follower.terminate()
    follower.wait(timeout=WAIT)
    assert d2.stop() == 0


def test_shm_futex_wakes_the_reader_for_each_frame(bed_factory, shm_name, tmp_path):
    """Sink.fps = 4: a blocked reader is back in FUTEX_WAIT long before the next frame,
    so it must be woken for every frame, in order, none missed."""
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name,
                  "--set", "Sink.fps=4", "--set", "Trace.path=" + trace)
    wait_until(lambda: frames_in(trace), "first frame", d)
    want = 6
    follower = subprocess.Popen([sys.executable, READER, "--name", shm_name, "follow", "-n", str(want), "--timeout",
                                 str(WAIT)],
                                env=reader_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = json.loads(follower.stdout.readline())
    assert first["ready"]
    i = 0
    while follower.poll() is None and i < 40:
        roll, lean = PATH[i % len(PATH)]
        tilter.bed.set_raw(tilter.dev, tilter.dev.raw_for(pose(roll, lean)))
        try:
            follower.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        i += 1
    out, err = follower.communicate(timeout=WAIT)
    assert follower.returncode == 0, err
    seen = [json.loads(l) for l in out.splitlines()]
    assert len(seen) == want
    frames = [s["frame"] for s in seen]
    assert frames == list(range(first["frame"] + 1, first["frame"] + 1 + want)), "one wake per frame, none missed"
    assert all(s["how"] in ("woken", "changed") for s in seen)
    assert sum(s["how"] == "woken" for s in seen) >= want - 1, "the reader slept in FUTEX_WAIT and was woken"
    assert all(s["writer_pid"] == d.p.pid for s in seen)
    assert d.stop() == 0
    by_number = {f["frame"]: f for f in frames_in(trace)}
    for s in seen:
        assert s["focal"] == pytest.approx(by_number[s["frame"]]["focal"], abs=1e-3)


def test_shm_refuses_a_symlink_and_another_users_object(bed_factory, shm_name, tmp_path):
    bed = bed_factory(FIXTURE)
    target = tmp_path / "victim"
    target.write_bytes(b"keep")
    os.symlink(str(target), "/dev/shm/" + shm_name)
    r = bed.run("run", "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--duration", "1")
    assert r.returncode == 73 and "symbolic link" in r.stderr
    assert target.read_bytes() == b"keep"
    os.unlink("/dev/shm/" + shm_name)
    with open("/dev/shm/" + shm_name, "wb") as f:
        f.write(b"\0" * 256)
    os.chown("/dev/shm/" + shm_name, 65534, 65534)
    r = bed.run("run", "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--duration", "1")
    assert r.returncode == 73 and "owned by uid 65534" in r.stderr
    assert os.stat("/dev/shm/" + shm_name).st_size == 256


# --- raw ---

def spawn_raw_into_ffmpeg(bed, trace, ffmpeg_args):
    r, w = os.pipe()
    ff = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr0",
                           "-s", "%dx%d" % (CARD_W, CARD_H), "-r", "60", "-i", "-", *ffmpeg_args],
                          stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    d = subprocess.Popen([SHIMMERD, "run", *QUIET, "--set", "Sink.type=raw", "--set", "Trace.path=" + trace],
                         env=bed.env, stdout=w, stderr=subprocess.PIPE, text=True)
    os.close(r)   # only ffmpeg reads and only shimmerd writes the pipe now
    os.close(w)
    d.logs = []
    d.log_reader = threading.Thread(target=lambda: [d.logs.append(l.rstrip("\n")) for l in d.stderr], daemon=True)
    d.log_reader.start()
    bed.children.append(d)
    return d, ff


@pytest.mark.usefixtures("realtime")     # it counts the frames of a run
def test_raw_into_ffmpeg_decodes_every_frame(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d, ff = spawn_raw_into_ffmpeg(bed, trace, ["-f", "framecrc", "-"])
    # The path twice: each move is drawn in 2 to 3 frames, so once through is about 10
    # frames (9 on a loaded machine) and twice through 21 to 23.
    for roll, lean in PATH * 2:
        tilter.step(roll, lean, d)
    d.send_signal(signal.SIGTERM)
    assert d.wait(timeout=WAIT) == 0
    out, err = ff.communicate(timeout=WAIT)
    assert ff.returncode == 0, err
    rows = [l.split(",") for l in out.decode().splitlines() if l and not l.startswith("#")]
    frames = frames_in(trace)
    assert len(frames) >= 10
    assert len(rows) == len(frames), "ffmpeg decoded every frame the daemon published"
    assert all(int(r[4]) == CARD_W * CARD_H * 4 for r in rows), "each frame is 700 x 467 x 4 bytes"


def test_raw_last_frame_has_the_scene_colors(bed_factory, tmp_path):
    """The bytes are XRGB8888 (ffmpeg bgr0): the last frame ffmpeg decoded shows
    docs/CARD.md's dot colors for the trace's last focal point."""
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    last = tmp_path / "last.bgr0"
    d, ff = spawn_raw_into_ffmpeg(bed, trace, ["-f", "rawvideo", "-pix_fmt", "bgr0", "-y", str(last)])
    tilter.step(*PATH[1], d)
    d.send_signal(signal.SIGTERM)
    assert d.wait(timeout=WAIT) == 0
    _, err = ff.communicate(timeout=WAIT)
    assert ff.returncode == 0, err
    data = last.read_bytes()
    size = CARD_W * CARD_H * 4
    assert len(data) == size * len(frames_in(trace))
    check_dot_pixels(data[-size:], CARD_W * 4, frames_in(trace)[-1]["focal"], "raw")


def test_killing_ffmpeg_ends_the_raw_sink_cleanly(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d, ff = spawn_raw_into_ffmpeg(bed, trace, ["-f", "null", "-"])
    wait_until(lambda: frames_in(trace), "first frame", d)
    ff.kill()
    ff.wait(timeout=WAIT)
    # The next frames hit the closed pipe.
    for roll, lean in PATH:
        tilter.bed.set_raw(tilter.dev, tilter.dev.raw_for(pose(roll, lean)))
        try:
            d.wait(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            pass
    assert d.wait(timeout=WAIT) == 0, "\n".join(d.logs)
    d.log_reader.join(timeout=WAIT)   # the last lines may still be in the pipe after the exit
    epipe = [l for l in d.logs if "EPIPE" in l]
    assert len(epipe) == 1, d.logs
    assert "raw sink has ended" in epipe[0] and "stdout" in epipe[0]
    assert not any("fatal" in l.lower() or "crash" in l.lower() for l in d.logs)
    assert any("stopped after" in l for l in d.logs)


# --- framebuffer ---


def fb_pixel(rgb, bpp):
    r, g, b = rgb
    if bpp == 32:
        return bytes((b, g, r, 0))
    v = (r >> 3) << 11 | (g >> 2) << 5 | (b >> 3)   # RGB565, the conventional 16 bpp layout
    return struct.pack("<H", v)


@pytest.mark.parametrize("bpp,stride,position", [
    (32, SCREEN_W * 4 + 96, None),          # centered
    (16, SCREEN_W * 2 + 64, None),
    (16, SCREEN_W * 2 + 30, (-120, 250)),    # clipped left and bottom
    (32, SCREEN_W * 4 + 8, (300, -40)),      # clipped right and top
])
def test_framebuffer_card_in_the_right_format_and_nothing_else_touched(bed_factory, tmp_path, bpp, stride, position):
    bed = bed_factory(FIXTURE)
    _, original = add_framebuffer(bed, bpp, stride)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    extra = ["--set", "Sink.position=%d,%d" % position] if position else []
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb0",
                  "--set", "Trace.path=" + trace, *extra)
    d.wait_log(r"framebuffer /dev/fb0: %d x %d, stride %d bytes, %d bpp.*from sysfs" % (SCREEN_W, SCREEN_H, stride,
                                                                                        bpp),
               "attached through sysfs")
    for roll, lean in PATH[:2]:
        tilter.step(roll, lean, d)
    assert d.stop() == 0
    focal = frames_in(trace)[-1]["focal"]
    ref = reference_card(tmp_path, focal)
    with open(os.path.join(bed.root, "dev", "fb0"), "rb") as f:
        fb = f.read()
    assert len(fb) == len(original)

    ox, oy = position if position else ((SCREEN_W - CARD_W) // 2, (SCREEN_H - CARD_H) // 2)
    x0, x1 = max(0, ox), min(SCREEN_W, ox + CARD_W)
    y0, y1 = max(0, oy), min(SCREEN_H, oy + CARD_H)
    bytespp = bpp // 8
    # Outside the card's rectangle (other rows, the columns beside it, the stride's
    # padding): every byte as it was.
    for y in range(SCREEN_H):
        row = slice(y * stride, (y + 1) * stride)
        if not (y0 <= y < y1):
            assert fb[row] == original[row], "row %d outside the card was written" % y
            continue
        a, b = y * stride + x0 * bytespp, y * stride + x1 * bytespp
        assert fb[y * stride:a] == original[y * stride:a], "row %d left of the card was written" % y
        assert fb[b:(y + 1) * stride] == original[b:(y + 1) * stride], "row %d right of the card was written" % y
    # Inside: the card, converted. 16 bpp truncates, so compare in the device format
    # with one unit of slack per channel (the reference went through an unpremultiply).
    worst = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            want = ref[(y - oy) * CARD_W + (x - ox)]
            o = y * stride + x * bytespp
            got = fb[o:o + bytespp]
            if bpp == 32:
                g = (got[2], got[1], got[0])
                diff = max(abs(p - q) for p, q in zip(g, want))
                assert got[3] == 0
            else:
                v = struct.unpack("<H", got)[0]
                g = (v >> 11, (v >> 5) & 63, v & 31)
                w = struct.unpack("<H", fb_pixel(want, 16))[0]
                diff = max(abs(p - q) for p, q in zip(g, (w >> 11, (w >> 5) & 63, w & 31)))
            worst = max(worst, diff)
            assert diff <= (2 if bpp == 32 else 1), "pixel (%d, %d): %s, expected %s" % (x, y, got.hex(), want)
    # And the dot colors of docs/CARD.md at the right offsets.
    for px, py, rgb, _ in scene_colors.samples(*focal):
        x, y = ox + px, oy + py
        if x0 <= x < x1 and y0 <= y < y1:
            o = y * stride + x * bytespp
            if bpp == 32:
                assert max(abs(p - q) for p, q in zip((fb[o + 2], fb[o + 1], fb[o]), rgb)) <= 3
            else:
                v = struct.unpack("<H", fb[o:o + 2])[0]
                w = struct.unpack("<H", fb_pixel(tuple(round(c) for c in rgb), 16))[0]
                assert abs((v >> 11) - (w >> 11)) <= 1 and abs(((v >> 5) & 63) - ((w >> 5) & 63)) <= 1 \
                    and abs((v & 31) - (w & 31)) <= 1


def framebuffer_on_a_console(bed_factory, tmp_path, prefix=()):
    """The daemon drawing on an emulated /dev/fb0 with drm_emulation's console (/dev/tty0):
    (bed, console, trace path, tilter, daemon)."""
    from support.drm_emulation import Console
    bed = bed_factory(FIXTURE)
    add_framebuffer(bed, 32, SCREEN_W * 4)
    console = Console(bed)
    trace = str(tmp_path / "trace.jsonl")
    tilter = Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb0",
                  "--set", "Trace.path=" + trace, prefix=prefix)
    return bed, console, trace, tilter, d


@pytest.mark.parametrize("fault", [signal.SIGTERM, signal.SIGSEGV, signal.SIGABRT],
                         ids=["SIGTERM", "SIGSEGV", "SIGABRT"])
def test_framebuffer_gives_the_console_back_on_a_stop_and_on_a_crash(bed_factory, tmp_path, fault):
    """The VT goes to KD_GRAPHICS while the card is drawn (no text cursor over it) and back
    to KD_TEXT when the daemon stops, and also when it dies of a fault: the crash handler
    sets the mode back before the process dies, or the console would stay blank for good.
    The VT is drm_emulation's /dev/tty0 (KDGETMODE and KDSETMODE, recorded in order)."""
    from support.drm_emulation import KD_GRAPHICS, KD_TEXT
    bed, console, trace, tilter, d = framebuffer_on_a_console(
        bed_factory, tmp_path, prefix=("prlimit", "--core=0", "--", "env", "SWIFT_BACKTRACE=enable=no"))
    d.wait_log(r"framebuffer /dev/fb0: %d x %d" % (SCREEN_W, SCREEN_H), "attached")
    tilter.step(*PATH[0], d)
    assert console.modes == [KD_GRAPHICS]
    d.p.send_signal(fault)
    assert d.wait(timeout=WAIT) == (0 if fault == signal.SIGTERM else -fault)
    assert console.modes == [KD_GRAPHICS, KD_TEXT] and console.mode == KD_TEXT


def test_framebuffer_missing_device_is_reported_once_then_attached(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    Tilter(bed, trace)
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb1",
                  "--set", "Trace.path=" + trace)
    d.wait_log(r"framebuffer /dev/fb1 unavailable: open /dev/fb1: No such file or directory", "unavailable")
    wait_until(lambda: frames_in(trace), "a frame while the device is missing", d)
    _, original = add_framebuffer(bed, 32, SCREEN_W * 4, name="fb1")
    d.wait_log(r"framebuffer /dev/fb1: 800 x 600", "attached after the device appeared")
    assert d.stop() == 0
    assert sum("unavailable" in l for l in d.logs) == 1, d.logs
    with open(os.path.join(bed.root, "dev", "fb1"), "rb") as f:
        fb = f.read()
    # The card drawn at once on attach (centered): its first row differs from the pattern.
    oy = (SCREEN_H - CARD_H) // 2
    assert fb[oy * SCREEN_W * 4:(oy + 1) * SCREEN_W * 4] != original[oy * SCREEN_W * 4:(oy + 1) * SCREEN_W * 4]
    assert fb[:oy * SCREEN_W * 4] == original[:oy * SCREEN_W * 4]


# --- tools/shmread.py on hostile segments ---

def shmread(*args):
    """tools/shmread.py in a process of its own, its address space capped at 1 GiB: a
    reader that believed a header would fail for memory or crash."""
    return subprocess.run(["prlimit", "--as=%d" % (1 << 30), "--", sys.executable, READER, *args],
                          env=reader_env(), capture_output=True, text=True, timeout=WAIT)


def test_shmread_refuses_a_segment_owned_by_another_user_unless_trusted(shm_name):
    path = craft_segment(shm_name)
    os.chown(path, 65534, 65534)
    r = shmread("--name", shm_name, "header")
    assert r.returncode == 65, r.stderr
    assert "%s: owned by nobody (uid 65534), not by root (uid 0)" % path in r.stderr, r.stderr
    assert "--trust-user" in r.stderr, r.stderr
    r = shmread("--name", shm_name, "--trust-user", "nobody", "header")
    assert r.returncode == 0 and json.loads(r.stdout)["width"] == 700, r.stderr


@pytest.mark.parametrize("mode", [0o660, 0o620, 0o666])
def test_shmread_refuses_a_trusted_owners_segment_that_others_may_write(shm_name, mode):
    """Owned by root, so trusted, but writable by its group or by anyone: whoever may
    write it chooses what is read, so it is refused as an untrusted owner's would be."""
    path = craft_segment(shm_name)
    os.chown(path, 0, 0)
    os.chmod(path, mode)
    r = shmread("--name", shm_name, "header")
    assert r.returncode == 65, r.stderr
    assert "%s: mode 0%o: others may write it; refusing to read it" % (path, mode) in r.stderr, r.stderr
    os.chmod(path, 0o640)
    r = shmread("--name", shm_name, "header")
    assert r.returncode == 0 and json.loads(r.stdout)["width"] == 700, r.stderr


@pytest.mark.parametrize("fields", [
    {"width": 2**30, "stride": 4096},
    {"height": 2**20},
    {"size": 2**63},
    {"count": 2**31, "size": 2**40},
    {"width": 16000, "height": 16000},
], ids=["width-2^30", "height-2^20", "buffer_size-2^63", "count-times-size", "16000x16000"])
def test_shmread_refuses_a_crafted_header(shm_name, fields):
    craft_segment(shm_name, **fields, length=None if fields.get("width") == 16000 else 1 << 20)
    r = shmread("--name", shm_name, "snapshot", os.devnull)
    assert r.returncode == 65 and "out of bounds" in r.stderr, (r.returncode, r.stderr[-500:])


def test_shmread_survives_a_segment_truncated_under_it(shm_name):
    """Truncated after the header was checked: a short read and FormatError, never SIGBUS
    (in a process of its own, so a signal could not take the test run with it)."""
    path = craft_segment(shm_name)
    script = ("import os, sys; sys.path.insert(0, %r); import shmread\n"
              "seg = shmread.Segment(%r)\n"
              "os.truncate(%r, 4096)\n"
              "try:\n    seg.read_frame()\nexcept shmread.FormatError as e:\n    print(e); sys.exit(65)\n"
              % (os.path.dirname(READER), shm_name, path))
    r = subprocess.run([sys.executable, "-c", script], env=reader_env(), capture_output=True, text=True, timeout=WAIT)
    assert r.returncode == 65 and "shrank below its layout" in r.stdout, (r.returncode, r.stdout, r.stderr[-500:])


def test_framebuffer_is_let_go_while_another_vt_is_in_front(bed_factory, tmp_path):
    """A framebuffer is shared by every VT: before a switch away (the kernel's VT_PROCESS
    signal, SIGUSR2) the sink stops writing it and the console's mode is set back, the
    daemon idles (no reads, no frames); after the switch back the whole card is drawn
    again at once, from a new baseline."""
    from support.drm_emulation import KD_GRAPHICS, KD_TEXT, VT_ACKACQ, VT_AUTO, VT_PROCESS
    bed, console, trace, tilter, d = framebuffer_on_a_console(bed_factory, tmp_path)
    first, _ = d.wait_log(r"framebuffer /dev/fb0: %d x %d" % (SCREEN_W, SCREEN_H), "attached")
    tilter.step(*PATH[0], d)
    assert console.vt_modes == [(VT_PROCESS, signal.SIGUSR2, signal.SIGUSR2)]
    console.switch_away(3, d.p.pid)
    assert console.reldisps == [1] and console.modes == [KD_GRAPHICS, KD_TEXT]
    idle = wait_until(lambda: [r for r in read_trace(trace) if r["type"] == "demand"], "idle on VT 3", d)[0]
    assert idle["state"] == "idle" and idle["reason"] == "the console is switched away (VT 3 in front)"
    fb_path = os.path.join(bed.root, "dev", "fb0")
    with open(fb_path, "rb") as f:
        shown = f.read()
    frames = len(frames_in(trace))
    bed.set_raw(tilter.dev, tilter.dev.raw_for(pose(*PATH[1])))
    time.sleep(1.0)
    with open(fb_path, "rb") as f:
        assert f.read() == shown, "the framebuffer was written while another VT was in front"
    assert len(frames_in(trace)) == frames and not bed.read_since_written(tilter.dev)
    console.switch_back(d.p.pid)
    assert console.reldisps == [1, VT_ACKACQ]
    d.wait_log(r"framebuffer /dev/fb0: %d x %d" % (SCREEN_W, SCREEN_H), "attached again", start=first + 1)
    resumed = wait_until(lambda: [r for r in read_trace(trace) if r["type"] == "demand" and r["state"] == "resumed"],
                         "resumed", d)[0]
    wait_until(lambda: [f for f in frames_in(trace) if f["t"] >= resumed["t"]], "a frame after the switch back", d)
    assert d.stop() == 0
    assert console.mode == KD_TEXT and console.vt_modes[-1][0] == VT_AUTO


def documented_ffmpeg_recipe():
    """README.md's command that records the raw sink with ffmpeg; shimmerd(8) gives the
    same command, continued over two lines."""
    with open(os.path.join(REPO, "README.md")) as f:
        recipe = [l.strip() for l in f if l.startswith("    shimmerd run") and "| ffmpeg" in l]
    assert len(recipe) == 1, recipe
    page = subprocess.run([SHIMMERD, "man", "shimmerd.8"], capture_output=True, text=True).stdout
    plain = page.replace("\\-", "-").replace("\\e", "\\").replace("\\\n", " ")
    assert " ".join(recipe[0].split()) in [" ".join(l.split()) for l in plain.splitlines()], "shimmerd(8) gives it too"
    return recipe[0]


@pytest.mark.usefixtures("realtime")     # the video's duration is compared with the run's
def test_documented_ffmpeg_recipe_records_in_real_time(bed_factory, tmp_path):
    """The recipe as written, the daemon's options added after `run`: the fixture keeps
    moving for the whole run, and the video lasts as long as the frames did (a nominal
    rate such as -r 60 would play the run's frames in a fraction of that)."""
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg not installed (scripts/setup.sh installs it)")
    recipe = documented_ffmpeg_recipe()
    bed = bed_factory(FIXTURE)
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    trace, video = tmp_path / "trace.jsonl", tmp_path / "out.mp4"
    options = " ".join([*QUIET, "--set", "Trace.path=%s" % trace, "--duration", "8"])
    command = recipe.replace("shimmerd run", "%s run %s" % (SHIMMERD, options), 1).replace(" out.mp4", " %s" % video)
    p = subprocess.Popen(["bash", "-o", "pipefail", "-c", command], env=bed.env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    bed.children.append(p)
    wait_trace(str(trace), lambda r: r["type"] == "baseline", "baseline", p)
    stop = threading.Event()

    def move():
        t0 = time.monotonic()
        while not stop.is_set():
            t = time.monotonic() - t0
            bed.set_raw(dev,
                        dev.raw_for(pose(0.15 * math.sin(2 * math.pi * t / 3), 0.06 * math.sin(2 * math.pi * t / 2))))
            time.sleep(0.02)
    mover = threading.Thread(target=move, daemon=True)
    mover.start()
    out, err = p.communicate(timeout=120)
    stop.set()
    mover.join()
    assert p.returncode == 0, err[-3000:]
    frames = read_trace(str(trace), "frame", final=True)
    span = frames[-1]["t"] - frames[0]["t"]
    assert len(frames) > 100 and span > 5, (len(frames), span)
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(video)],
                           capture_output=True, text=True, timeout=60, env=reader_env())
    duration = float(probe.stdout)
    print("ffmpeg recipe: %d frames over %.2f s of the run, video %.2f s" % (len(frames), span, duration))
    assert abs(duration - span) <= 0.1 * span, (duration, span)
