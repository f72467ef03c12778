"""Hostile files and neighbours, on the real binary: paths swapped for links, FIFOs and
devices where files are expected, segments left or shaped by others, full file
systems, readers that leave mid-frame. Each test is one attack from docs/RELIABILITY.md
("Hostile files and neighbours") and asserts what shimmerd does instead of crashing,
hanging or writing where it must not."""
import json
import os
import pathlib
import select
import signal
import stat
import struct
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ET

import pytest

from support.harness import BMC150 as FIXTURE
from support.harness import (AS_NOBODY, SHIMMERD, WAIT, Device, SystemBus, close_to, pose, read_trace, tilt_until_exit,
                             wait_trace, wait_until)
from support.runs import QUIET, Run

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (to mount, or to act as another user)")


@pytest.fixture
def victim(tmp_path):
    """A root-only file that nothing may change."""
    v = tmp_path / "victim"
    v.write_bytes(b"root only")
    os.chmod(v, 0o600)
    return v


# --- the raw sink's path ---

def test_raw_sink_refuses_a_symlink_to_a_fifo(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "out.raw"
    link.symlink_to(fifo)
    r = bed.run("run", "--set", "Sink.type=raw", "--set", "Sink.path=%s" % link, "--duration", "1")
    assert r.returncode == 73, r.stderr
    assert "%s is a symbolic link; refusing to write it" % link in r.stderr, r.stderr


@pytest.mark.parametrize("path,kind", [("/dev/zero", "a character device"), ("/tmp", "a directory")])
def test_raw_sink_refuses_what_is_not_a_fifo_or_file(bed_factory, path, kind):
    bed = bed_factory(FIXTURE)
    r = bed.run("run", "--set", "Sink.type=raw", "--set", "Sink.path=" + path, "--duration", "1")
    assert r.returncode == 73 and "%s is %s, not a FIFO or a regular file" % (path, kind) in r.stderr, r.stderr


@needs_root
def test_raw_fifo_swapped_for_a_symlink_is_never_followed(bed_factory, tmp_path, open_dir, victim):
    """The FIFO waits for its reader in a directory others may write; the name is
    swapped for a link to a root-only file. Frames keep going nowhere ("no reader":
    the daemon reopens the FIFO it found, never the name), the file is untouched."""
    bed = bed_factory(FIXTURE)
    fifo = os.path.join(open_dir, "frames.raw")
    os.mkfifo(fifo, 0o666)
    run = Run(bed, tmp_path, "--set", "Sink.type=raw", "--set", "Sink.path=" + fifo, config=False)
    assert run.answer("before the swap")["type"] == "dropped"
    os.unlink(fifo)
    os.symlink(str(victim), fifo)
    for k in range(3):
        answer = run.answer("after the swap %d" % k)
        assert answer["type"] == "dropped" and answer["reason"] == "no reader", answer
    assert victim.read_bytes() == b"root only"
    run.stop()


# --- shm segment modes, ownership and reuse ---

def test_world_writable_sink_mode_is_refused(bed_factory):
    bed = bed_factory(FIXTURE)
    for mode in ("0666", "0660", "0642"):
        r = bed.run("check-config", "--set", "Sink.mode=" + mode)
        assert r.returncode == 78, (mode, r.stdout, r.stderr)
        assert "Sink.mode" in r.stderr and mode in r.stderr and "group or others write" in r.stderr, r.stderr
    assert bed.run("check-config", "--set", "Sink.mode=0644").returncode == 0


@pytest.mark.parametrize("mode", ["0666", "0777"])
def test_run_refuses_a_world_writable_sink_mode_with_check_configs_line(bed_factory, shm_name, mode):
    """`run` itself, not only check-config: the same one line, exit 78, no segment made."""
    bed = bed_factory(FIXTURE)
    args = ("--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--set", "Sink.mode=" + mode)
    check = bed.run("check-config", *args)
    assert check.returncode == 78 and "group or others write" in check.stderr, check.stderr
    r = bed.run("run", *QUIET, *args, "--duration", "5", timeout=WAIT)
    assert r.returncode == 78, (r.returncode, r.stderr)
    assert r.stderr.strip().splitlines() == check.stderr.strip().splitlines() and mode in r.stderr, \
        (r.stderr, check.stderr)
    assert not os.path.lexists("/dev/shm/" + shm_name)


def shm_run(bed, tmp_path, name, *extra):
    """A run of its own directory (its own trace) writing segment `name`."""
    d = tempfile.mkdtemp(dir=tmp_path)
    return Run(bed, pathlib.Path(d), "--set", "Sink.type=shm", "--set", "Sink.name=" + name, *extra, config=False)


def patch_header(name, offset, fmt, value):
    with open("/dev/shm/" + name, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack(fmt, value))


def test_segment_that_was_world_writable_is_replaced_not_reused(bed_factory, tmp_path, shm_name):
    """A segment left by an earlier run with mode 0666: someone opened it read-write then.
    The restart makes a new object; truncating the old one harms nobody."""
    bed = bed_factory(FIXTURE)
    first = shm_run(bed, tmp_path, shm_name)
    first.answer()
    first.stop()
    seg = "/dev/shm/" + shm_name
    os.chmod(seg, 0o666)
    old = os.open(seg, os.O_RDWR)
    try:
        again = shm_run(bed, tmp_path, shm_name)
        _, line = again.d.wait_log(r"replaced it", "the replacement")
        assert "had mode 0666 (others could write it)" in line, line
        assert os.fstat(old).st_ino != os.stat(seg).st_ino
        assert stat.S_IMODE(os.stat(seg).st_mode) == 0o640
        os.ftruncate(old, 0)
        for _ in range(3):
            assert again.answer("after the old object was truncated")["type"] == "frame"
        again.stop()
    finally:
        os.close(old)


@pytest.mark.parametrize("field,offset,fmt,value,why", [
    ("frame", 48, "<Q", 2**64 - 1, "had frame counter 18446744073709551615, near its end"),
    ("buffer_size", 40, "<Q", 2**63, "had no valid header"),
    ("width", 12, "<I", 2**30, "had no valid header"),
])
def test_crafted_header_of_a_left_segment_is_not_trusted(bed_factory, tmp_path, shm_name, field, offset, fmt,
                                                         value, why):
    bed = bed_factory(FIXTURE)
    first = shm_run(bed, tmp_path, shm_name)
    first.answer()
    first.stop()
    patch_header(shm_name, offset, fmt, value)
    again = shm_run(bed, tmp_path, shm_name)
    _, line = again.d.wait_log(r"replaced it", "the replacement")
    assert why in line, line
    for _ in range(2):
        assert again.answer("after the replacement")["type"] == "frame"
    again.stop()


@needs_root
def test_segment_left_by_root_is_refused_with_what_to_do(bed_factory, tmp_path, shm_name, open_dir):
    """A test run as root left the segment; the service's user cannot use it. One line
    says whose it is and the command that frees the name; exit 73."""
    bed = bed_factory(FIXTURE)
    first = shm_run(bed, tmp_path, shm_name)
    first.answer()
    first.stop()
    os.chmod(bed.root, 0o755)
    r = subprocess.run([*AS_NOBODY, SHIMMERD, "run", "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name,
                        "--duration", "1"],
                       env=bed.env, capture_output=True, text=True, timeout=WAIT, cwd=open_dir)
    assert r.returncode == 73, r.stderr
    line = [l for l in r.stderr.splitlines() if shm_name in l]
    assert len(line) == 1, r.stderr
    assert "is owned by uid 0 (root), not by uid 65534 (nobody) that runs shimmerd" in line[0], line[0]
    assert "sudo rm /dev/shm/%s" % shm_name in line[0], line[0]


def in_small_namespace(mount_at, size, argv):
    """argv in a private mount namespace where `mount_at` is a fresh tmpfs of `size`."""
    script = 'mount -t tmpfs -o size=%s,mode=1777 tmpfs "$0" && exec "$@"' % size
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, mount_at, *argv]


@needs_root
def test_full_dev_shm_is_one_line_not_sigbus(bed_factory, shm_name):
    bed = bed_factory(FIXTURE)
    r = subprocess.run(in_small_namespace("/dev/shm", "1m", [SHIMMERD, "run", "--set", "Sink.type=shm",
                                                             "--set", "Sink.name=" + shm_name, "--duration", "3"]),
                       env=bed.env, capture_output=True, text=True, timeout=WAIT)
    assert r.returncode == 73, (r.returncode, r.stderr)
    assert "/dev/shm has no room for its" in r.stderr and "No space left on device" in r.stderr, r.stderr


# --- the raw file and FIFO: whole frames ---

@needs_root
def test_raw_file_on_a_full_disk_keeps_whole_frames(bed_factory, tmp_path):
    """A 1 MiB file system holds twelve 81,900-byte frames (175 x 117 px at Card.scale=0.5)
    and part of a thirteenth: the part is cut away, so every later frame would start on a
    frame boundary."""
    bed = bed_factory(FIXTURE)
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (%s)" % r.stderr.strip())
    try:
        out = mnt / "frames.raw"
        run = Run(bed, tmp_path, "--set", "Sink.type=raw", "--set", "Sink.path=%s" % out, "--set", "Card.scale=0.5",
                  config=False)
        frame = 175 * 117 * 4
        for _ in range(8):
            if run.answer(or_log="No space left on device") is None:
                break
        _, line = run.d.wait_log(r"No space left on device", "the full disk")
        assert "the partial frame was removed (12 whole frames in the file)" in line, line
        assert os.path.getsize(out) == 12 * frame
        run.stop()
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_raw_reader_leaving_mid_frame_gets_the_epipe_line(bed_factory, tmp_path):
    """The reader takes 100,000 bytes of the first 1,307,600-byte frame and exits: the
    documented EPIPE line, and no frame counted that it did not get whole."""
    bed = bed_factory(FIXTURE)
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    r, w = os.pipe()
    p = subprocess.Popen([SHIMMERD, "run", *QUIET, "--set", "Sink.type=raw"], env=bed.env, stdout=w,
                         stderr=subprocess.PIPE, text=True)
    os.close(w)
    bed.children.append(p)
    logs = []
    threading.Thread(target=lambda: [logs.append(l.rstrip("\n")) for l in p.stderr], daemon=True).start()
    got = 0
    with os.fdopen(r, "rb") as reader:
        while got < 100_000:
            chunk = reader.read(100_000 - got)
            assert chunk, "the stream ended early"
            got += len(chunk)
    tilt_until_exit(bed, dev, p)
    assert p.wait(timeout=WAIT) == 0, logs
    wait_until(lambda: any("stopped after" in l for l in logs), "the stop summary")
    ended = [l for l in logs if "ended" in l]
    assert len(ended) == 1 and "went away (EPIPE) after 0 frames; the raw sink has ended" in ended[0], logs
    assert [l for l in logs if "stopped after" in l][0].split("stopped after ")[1].startswith("0 frames"), logs


def test_a_fifo_reader_leaving_mid_frame_gets_the_epipe_line(bed_factory, tmp_path):
    """The same with a FIFO at Sink.path: the sink opens it once a reader is there
    (through the handle it took at start), the reader takes 100,000 bytes of the first
    frame and leaves; the EPIPE line names the FIFO, no frame is counted."""
    bed = bed_factory(FIXTURE)
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    fifo = str(tmp_path / "frames.raw")
    os.mkfifo(fifo, 0o600)
    p = subprocess.Popen([SHIMMERD, "run", *QUIET, "--set", "Sink.type=raw", "--set", "Sink.path=" + fifo],
                         env=bed.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    bed.children.append(p)
    logs = []
    threading.Thread(target=lambda: [logs.append(l.rstrip("\n")) for l in p.stderr], daemon=True).start()
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader at once; the daemon finds it
    got = 0
    roll = 0.0
    try:
        wait_until(lambda: any("sink raw" in l for l in logs), "the start line")
        while got < 100_000:
            # Frames come when the card moves: tilt until the bytes of the first are here.
            roll = 0.12 if roll <= 0 else -0.12
            bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
            ready, _, _ = select.select([reader], [], [], 0.5)
            if ready:
                chunk = os.read(reader, 100_000 - got)
                got += len(chunk)
            assert p.poll() is None, logs
    finally:
        os.close(reader)
    tilt_until_exit(bed, dev, p)
    assert p.wait(timeout=WAIT) == 0, logs
    wait_until(lambda: any("stopped after" in l for l in logs), "the stop summary")
    ended = [l for l in logs if "ended" in l]
    assert len(ended) == 1 and ("the reader of %s went away (EPIPE) after 0 frames; the raw sink has ended" % fifo) \
        in ended[0], logs
    assert [l for l in logs if "stopped after" in l][0].split("stopped after ")[1].startswith("0 frames"), logs


# --- configuration files that are not files ---

@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
def test_configuration_that_is_not_a_small_file_is_refused_at_once(bed_factory, open_dir, kind):
    bed = bed_factory(FIXTURE)
    if kind == "fifo":
        path = os.path.join(open_dir, "shimmerd.conf")
        os.mkfifo(path)
        why = "a FIFO, not a regular file; refusing to read it"
    elif kind == "zero":
        path = "/dev/zero"
        why = "a character device, not a regular file; refusing to read it"
    else:
        path = os.path.join(open_dir, "shimmerd.conf")
        with open(path, "wb") as f:
            f.truncate(2 << 30)     # sparse: 2 GiB of zeros
        why = "2147483648 bytes, more than the 1048576 read at most"
    # As root a world-writable /dev/zero is refused for its mode already; nobody reads it.
    r = subprocess.run([*(AS_NOBODY if os.geteuid() == 0 else []), SHIMMERD, "check-config", "--config", str(path)],
                       env=bed.env, capture_output=True, text=True, timeout=WAIT, cwd="/")
    assert r.returncode == 78 and "%s: %s" % (path, why) in r.stderr, r.stderr


def test_a_fifo_drop_in_is_refused_at_once(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("")
    (tmp_path / "shimmerd.conf.d").mkdir()
    os.mkfifo(tmp_path / "shimmerd.conf.d" / "10-fifo.conf")
    r = bed.run("check-config", "--config", str(conf), timeout=WAIT)
    assert r.returncode == 78 and "10-fifo.conf: a FIFO, not a regular file" in r.stderr, r.stderr


def test_sighup_with_the_configuration_swapped_for_a_fifo(bed_factory, tmp_path):
    """The running daemon is not frozen in open(2): the reload is refused in one line,
    frames go on, SIGTERM stops it."""
    bed = bed_factory(FIXTURE)
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("[Sink]\ntype = null\n")
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    trace = str(tmp_path / "trace.jsonl")
    d = bed.spawn("run", "--config", str(conf), *QUIET, "--set", "Trace.path=" + trace)
    wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", d)
    conf.unlink()
    os.mkfifo(conf)
    n = len(d.logs)
    d.p.send_signal(signal.SIGHUP)
    _, line = d.wait_log(r"SIGHUP: configuration not reloaded", "the refused reload", start=n)
    assert "a FIFO, not a regular file" in line, line
    raw = dev.raw_for(pose(0.1, 0))
    bed.set_raw(dev, raw)
    got = dev.accel_of(raw)
    wait_trace(trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
               "a sample after the refused reload", d)
    assert d.stop() == 0


# --- the png sink's directory ---

def test_png_sink_refuses_a_symlinked_directory(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "frames"
    link.symlink_to(elsewhere)
    r = bed.run("run", "--set", "Sink.type=png", "--set", "Sink.path=%s" % link, "--duration", "1")
    assert r.returncode == 73 and "%s is a symbolic link; refusing to follow it" % link in r.stderr, r.stderr
    assert os.listdir(elsewhere) == []


def test_png_directory_with_the_highest_frame_number_is_refused(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    out = tmp_path / "frames"
    out.mkdir()
    (out / "frame-18446744073709551615.png").write_bytes(b"")
    r = bed.run("run", "--set", "Sink.type=png", "--set", "Sink.path=%s" % out, "--duration", "1")
    assert r.returncode == 73, (r.returncode, r.stderr)
    assert "holds frame-18446744073709551615.png; numbering cannot go on after it" in r.stderr, r.stderr


# --- traces with times and numbers no run produces ---

def sample_line(t, seq=0):
    return '{"type":"sample","t":%s,"seq":%d,"accel":[0,-9.8,0],"dpitch":0,"droll":0,"focal":[175,233]}\n' % (t, seq)


@pytest.mark.parametrize("command", ["plot", "replay"])
@pytest.mark.parametrize("times,why", [
    (["0.5", "1e308"], '"t" = 1e+308 is outside 0 ... 1e10 s'),
    (["-1e9", "1e9"], '"t" = -1000000000.0 is outside 0 ... 1e10 s'),
    (["0.5", "NaN"], "NaN is not a JSON number (JSON has no NaN or infinity)"),
    (["0.5", "1e400"], "1e400 is beyond the range of a double"),
], ids=["t-1e308", "t-minus-1e9-to-1e9", "nan", "1e400"])
def test_trace_times_and_numbers_out_of_range_are_named(bed_factory, tmp_path, command, times, why):
    bed = bed_factory(FIXTURE)
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(sample_line(t, k) for k, t in enumerate(times)))
    out = tmp_path / ("out.svg" if command == "plot" else "out.raw")
    r = bed.run(command, str(trace), "--out", str(out), timeout=WAIT)
    assert r.returncode == 65 and "%s:%d: %s" % (trace, 1 if times[0].startswith("-") else 2, why) in r.stderr, \
        (r.returncode, r.stderr[-500:])
    assert not out.exists()


def test_replay_of_a_day_long_trace_is_refused_before_writing(bed_factory, tmp_path):
    """Three records a day apart would be 5,184,001 frames at 60 fps (6.8 TB raw)."""
    bed = bed_factory(FIXTURE)
    trace = tmp_path / "day.jsonl"
    trace.write_text(sample_line(0) + sample_line(43200, 1) + sample_line(86400, 2))
    out = tmp_path / "out.raw"
    r = bed.run("replay", str(trace), "--out", str(out), timeout=WAIT)
    assert r.returncode == 65, (r.returncode, r.stderr[-500:])
    assert ("t spans 86400.000 s, 5184001 frames at 60.00 fps: more than the 216000 a replay writes"
            in r.stderr), r.stderr
    assert not out.exists()


def plot_header(width=350, height=233.3, device="iio:device0"):
    return json.dumps({"type": "header", "version": 1, "sensor": {"selector": "auto", "device": device, "rate": 60},
                       "card": {"width": width, "height": height, "scale": 1, "origin": [175, 233.3]},
                       "mapper": {"roll_range": 0.2, "pitch_range": 0.1, "max_offset": 100, "clamp": True}}) + "\n"


@pytest.mark.parametrize("line", [
    sample_line("0.6", 5).replace('"dpitch":0', '"dpitch":1e19'),
    sample_line("0.6", 5).replace('"droll":0', '"droll":-1.7e308'),
    sample_line("0.6", 5).replace('"focal":[175,233]', '"focal":[1e300,233]'),
    sample_line("0.6", 5).replace('"focal":[175,233]', '"focal":[175,-1.7e308]'),
    '{"type":"gyro","t":0.6,"anglvel":[1e300,0,-1e300]}\n',
    '{"type":"gyro","t":0.6,"anglvel":[1.7e308,0,-1.7e308]}\n',
    '{"type":"frame","t":0.6,"frame":1,"focal":[1e300,1e19],"dots":0,"pixels":0}\n',
], ids=["dpitch-1e19", "droll-minus-1.7e308", "focal-x-1e300", "focal-y-minus-1.7e308", "anglvel-1e300",
        "anglvel-1.7e308", "frame-focal-1e300"])
def test_plot_draws_a_sample_of_huge_values_instead_of_dying(bed_factory, tmp_path, line):
    """Every number a trace may hold (any finite double) is drawn: labels and coordinates
    are formatted without converting an out-of-range double to an integer."""
    bed = bed_factory(FIXTURE)
    trace = tmp_path / "t.jsonl"
    trace.write_text(plot_header() + "".join(sample_line("%.1f" % (0.1 * k), k) for k in range(5)) + line)
    out = tmp_path / "out.svg"
    r = bed.run("plot", str(trace), "--out", str(out), timeout=WAIT)
    assert r.returncode == 0, (r.returncode, r.stderr[-500:])
    ET.parse(str(out))


@pytest.mark.parametrize("command", ["plot", "replay"])
@pytest.mark.parametrize("width,why", [
    ("1e300", 'Card.width = "1e+300" is not a number from'), ("-5", 'Card.width = "-5.0" is not a number from'),
], ids=["width-1e300", "width-minus-5"])
def test_plot_and_replay_check_the_header_alike(bed_factory, tmp_path, command, width, why):
    bed = bed_factory(FIXTURE)
    trace = tmp_path / "t.jsonl"
    trace.write_text(plot_header(width=float(width)) + "".join(sample_line("%.1f" % (0.1 * k), k) for k in range(5)))
    out = tmp_path / ("out.svg" if command == "plot" else "out.raw")
    r = bed.run(command, str(trace), "--out", str(out), timeout=WAIT)
    assert r.returncode == 65, (r.returncode, r.stderr[-500:])
    assert "%s: %s: the header's card or fps is unusable: " % (command, trace) in r.stderr and why in r.stderr, r.stderr
    assert not out.exists()


CONTROLS = "\x1b[31m\x07\r\x0b\x0c\x00\x7f\x85\ufffe\ufffftab\there"


def test_plot_writes_xml_whatever_the_names_hold(bed_factory, tmp_path):
    """The trace's file name and the header's sensor device may hold any character; the
    SVG holds only what XML 1.0 allows, the rest written as escapes, and parses."""
    bed = bed_factory(FIXTURE)
    name = "trace" + CONTROLS.replace("\x00", "") + "<&>.jsonl"
    trace = tmp_path / name
    trace.write_text(plot_header(device="iio:device0" + CONTROLS + "\n<&>\"'")
                     + "".join(sample_line("%.1f" % (0.1 * k), k) for k in range(5)))
    out = tmp_path / "out.svg"
    r = bed.run("plot", str(trace), "--out", str(out), timeout=WAIT)
    assert r.returncode == 0, (r.returncode, r.stderr[-500:])
    text = "".join(ET.parse(str(out)).getroot().itertext())
    assert "\\x1b[31m\\x07\\x0d\\x0b\\x0c\\x7f\\x85" in text and "\\x00" in text, text
    assert "<&>" in text and "tab\\x09here" in text
    assert not any(c in text for c in "\x1b\x07\r\x0b\x0c\x00\x7f\x85\ufffe\uffff")


# --- names from outside, on a terminal ---

# A sysfs `name` as a firmware label or a remote iiod could give it: a terminal escape (clear
# the screen), a bell, CR and LF followed by a forged log line, a C1 CSI.
NASTY_NAME = "bmc\x1b[2J\x07\r\nshimmerd: error: forged\x9b1m"
NASTY_SHOWN = "bmc\\x1b[2J\\x07\\x0d\\x0ashimmerd: error: forged\\x9b1m"


def no_raw_controls(text):
    """No C0 control but the line ends, no DEL, no C1 control."""
    return not [c for c in text if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]


def test_a_device_name_with_control_characters_is_escaped_in_sensors_and_log_lines(bed_factory):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_attr(dev.syspath, "name", NASTY_NAME + "\n")
    r = subprocess.run([SHIMMERD, "sensors"], env=bed.env, capture_output=True, timeout=WAIT)
    out = r.stdout.decode()
    assert r.returncode == 0 and NASTY_SHOWN in out and no_raw_controls(out), out
    assert not [l for l in out.splitlines() if l.startswith("shimmerd: error: forged")]
    # JSON keeps the name as it is (JSON escapes for itself).
    r = bed.run("sensors", "--json")
    assert json.loads(r.stdout)["devices"][0]["name"] == NASTY_NAME
    # The log: the attach line names the device, escaped, on one line.
    r = subprocess.run([SHIMMERD, "run", "--set", "Sink.type=null", "--set", "Sensor.mode=poll", "--duration", "1"],
                       env=bed.env, capture_output=True, timeout=WAIT)
    err = r.stderr.decode()
    assert r.returncode == 0 and no_raw_controls(err), err
    assert [l for l in err.splitlines() if "using iio:device0 (%s)" % NASTY_SHOWN in l], err
    assert not [l for l in err.splitlines() if l.startswith("shimmerd: error: forged")]


def test_sensors_json_writes_every_control_character_of_a_device_name_as_an_escape(bed_factory):
    """`sensors --json` holds the name exactly (it parses back to it), and its bytes hold
    no control character: C0 controls, DEL and C1 controls (U+009B is CSI to a terminal
    that takes 8-bit controls) are written as \\u00XX escapes."""
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_attr(dev.syspath, "name", NASTY_NAME + "\x7f\x85\x80\x9f" + "\n")
    r = bed.run("sensors", "--json")
    assert r.returncode == 0, r.stderr
    raw = [c for c in r.stdout if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]
    print("sensors --json: raw control characters %r" % raw)
    assert json.loads(r.stdout)["devices"][0]["name"] == NASTY_NAME + "\x7f\x85\x80\x9f"
    assert no_raw_controls(r.stdout), raw
    assert "forged\\u009b1m\\u007f\\u0085\\u0080\\u009f" in r.stdout, r.stdout


def test_a_device_name_with_control_characters_is_escaped_by_monitor_and_monitor_dbus(bed_factory):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_attr(dev.syspath, "name", NASTY_NAME + "\n")
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    m = bed.spawn("monitor", *QUIET[:4], "--duration", "3")
    assert m.wait(timeout=WAIT) == 0
    shown = [r["text"] for r in m.records if r["type"] == "unparsable"]
    assert any("=== Accelerometer iio:device0 (%s) attached" % NASTY_SHOWN in l for l in shown), shown
    assert all(no_raw_controls(l) for l in shown) and no_raw_controls("\n".join(m.logs)), (shown, m.logs)
    bus = SystemBus()
    try:
        d = bed.spawn("run", *QUIET, "--set", "Sink.type=null", extra_env=bus.env)
        d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1", "the name taken")
        watcher = bed.spawn("monitor", "--dbus", extra_env=bus.env)
        _, line = watcher.wait_for(lambda r: r["type"] == "unparsable" and "iio:device0 (" in r["text"],
                                   "monitor --dbus: the sensor's line")
        assert "iio:device0 (%s)" % NASTY_SHOWN in line["text"] and no_raw_controls(line["text"]), line
        assert watcher.stop() == 0 and d.stop() == 0
    finally:
        bus.close()


def test_check_config_and_the_exit_line_escape_what_the_configuration_holds(bed_factory):
    """A value is printed as check-config reads it, and quoted by the one line a refused
    value exits with: either way escaped."""
    bed = bed_factory(FIXTURE)
    r = subprocess.run([SHIMMERD, "check-config", "--set", "Sensor.device=name:bmc\x1b]0;owned\x07"], env=bed.env,
                       capture_output=True, timeout=WAIT)
    out = r.stdout.decode()
    assert r.returncode == 0 and "device = name:bmc\\x1b]0;owned\\x07\n" in out and no_raw_controls(out), out
    r = subprocess.run([SHIMMERD, "check-config", "--set", "Sink.name=a\x1b[2J\rb/c"], env=bed.env,
                       capture_output=True, timeout=WAIT)
    err = r.stderr.decode()
    assert r.returncode == 78 and "a\\x1b[2J\\x0db/c" in err and no_raw_controls(err), err


# --- words that say what happened ---

def test_a_reading_of_1e308_is_not_called_a_zero_vector(bed_factory, tmp_path):
    """|a| of (0, 1e308, 1e308) overflows; normalised, it looked like no direction."""
    bed = bed_factory(FIXTURE)
    source = tmp_path / "in.jsonl"
    source.write_text("".join(sample_line("%.1f" % (0.1 * k), k).replace("[0,-9.8,0]", "[0,-9.8,%.1f]" % (0.1 * k))
                              for k in range(6))
                      + sample_line("0.7", 6).replace("[0,-9.8,0]", "[0,1e308,1e308]"))
    out = str(tmp_path / "out.jsonl")
    r = bed.run("run", "--set", "Sensor.device=trace:%s" % source, "--set", "Sensor.trace_speed=max",
                "--set", "Attitude.baseline_samples=3", "--set", "Sink.type=null", "--set", "Trace.path=" + out,
                timeout=WAIT)
    assert r.returncode == 0, r.stderr
    rejected = [x for x in read_trace(out) if x["type"] == "reading" and x["use"] == "rejected"]
    assert [x["reason"] for x in rejected] == ["acceleration too large to compute (|a| overflows a double)"], rejected


def test_a_huge_configuration_value_is_not_echoed_whole(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("[Sink]\nname = %s/\n" % ("a" * 900_000))
    r = bed.run("check-config", "--config", str(conf), timeout=WAIT)
    assert r.returncode == 78, r.stderr[-300:]
    assert len(r.stderr) < 1000 and "... (900001 bytes)" in r.stderr, r.stderr[-300:]


@pytest.mark.parametrize("garbage", ["nan inf -5", "0 -1"])
def test_a_garbage_frequency_list_is_not_obeyed(bed_factory, tmp_path, garbage):
    bed = bed_factory(FIXTURE)
    dev = Device(FIXTURE)
    bed.set_attr(dev.syspath, "in_accel_sampling_frequency_available", garbage + "\n")
    before = bed.attr(dev.syspath, "in_accel_sampling_frequency")
    run = Run(bed, tmp_path, "--set", "Sink.type=null", config=False)
    _, line = run.d.wait_log(r"using iio:device0", "the attach line")
    kept = 'in_accel_sampling_frequency = %s kept: its _available list "%s" holds no frequency' % (
        before.strip(), garbage)
    assert kept in line, line
    run.stop()
    assert bed.attr(dev.syspath, "in_accel_sampling_frequency") == before


def test_a_trace_played_at_its_times_says_when_it_will_wait_long(bed_factory, tmp_path):
    """The first reading at t = 1e9 s (31 years): one line says so, instead of a silent wait."""
    bed = bed_factory(FIXTURE)
    source = tmp_path / "late.jsonl"
    source.write_text(sample_line("1e9"))
    r = bed.run("run", "--set", "Sensor.device=trace:%s" % source, "--set", "Sink.type=null", "--duration", "1",
                timeout=WAIT)
    assert r.returncode == 0, r.stderr
    assert "trace %s: 1000000000 s without a reading before the first one; at speed 1 that is 1000000000 s of waiting" \
        % source in r.stderr, r.stderr


def write_samples(path, count, damaged_at=None):
    """`count` sample records 10 ms apart; line `damaged_at` (1-based) is not JSON."""
    with open(path, "w") as f:
        for first in range(0, count, 100_000):
            f.write("".join('{"type":"sample","t":\n' if k + 1 == damaged_at else sample_line("%.2f" % (0.01 * k), k)
                            for k in range(first, min(count, first + 100_000))))


def vm_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_a_trace_of_two_million_records_plays_in_bounded_memory(bed_factory, tmp_path):
    """Read whole, 2,000,000 records (200 MB) took 630 MB (VmHWM) and more than a minute
    before the first sample; read as it plays, the first sample comes after the first
    batch and the daemon's peak stays that of a short run."""
    bed = bed_factory(FIXTURE)
    source = tmp_path / "long.jsonl"
    write_samples(source, 2_000_000)
    out = tmp_path / "trace.jsonl"
    d = bed.spawn("run", "--set", "Sensor.device=trace:%s" % source, "--set", "Sensor.trace_speed=max",
                  "--set", "Sink.type=null", "--set", "Trace.path=%s" % out)

    def played():
        with open(out, "rb") if out.exists() else open(os.devnull, "rb") as f:
            return f.read().count(b'"type":"sample"')
    # Three batches of 4096: the file has been read on while playing.
    wait_until(lambda: played() >= 3 * 4096, "three batches of samples in the daemon's trace", d)
    peak = vm_hwm_kib(d.p.pid)
    assert peak < 64 * 1024, "VmHWM %d KiB" % peak
    d.wait_log(r"sensor: trace .*long\.jsonl, 4096 readings read ahead, the rest read as it plays", "the sensor line")
    assert d.stop() == 0, "\n".join(d.logs[-20:])


def test_a_damaged_line_beyond_the_first_batch_ends_the_run_naming_it(bed_factory, tmp_path):
    """Read as it plays, a damaged line further on than the first batch is met while
    playing: the samples before it are played, then the run ends with the line the
    start would have given (exit 65, file:line); check-config says it up front (exit 78,
    as for any configuration run refuses)."""
    bed = bed_factory(FIXTURE)
    source = tmp_path / "damaged.jsonl"
    write_samples(source, 10_000, damaged_at=9_000)
    out = tmp_path / "trace.jsonl"
    r = bed.run("run", "--set", "Sensor.device=trace:%s" % source, "--set", "Sensor.trace_speed=max",
                "--set", "Attitude.baseline_samples=3", "--set", "Sink.type=null", "--set", "Trace.path=%s" % out,
                timeout=WAIT * 3)
    why = " = trace:%s:9000: not a JSON object" % source
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode == 65 and last.startswith("shimmerd: Sensor.device (") and last.endswith(why), \
        (r.returncode, r.stderr[-500:])
    # Every reading before the damaged line was played: the baseline's as `reading`
    # records, the rest as samples.
    played = [x for x in read_trace(out)
              if x["type"] == "sample" or (x["type"] == "reading" and x["use"] == "baseline")]
    assert len(played) == 8_999, len(played)
    c = bed.run("check-config", "--set", "Sensor.device=trace:%s" % source, timeout=WAIT)
    assert c.returncode == 78 and c.stderr.strip() == last, (c.returncode, c.stderr[-500:], last)
