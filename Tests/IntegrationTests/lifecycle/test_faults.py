"""Fault injection: the real shimmerd under umockdev, one test per fault. Each
asserts that the daemon keeps running (or exits with its documented status), that one
log line names the cause (at most one a second for a cause that persists), that frames
resume once the cause is gone, and that the trace written before the fault is intact:
the final file starts with exactly the bytes it held before the fault, every line is
whole JSON, and sample numbers run on without a gap. docs/RELIABILITY.md lists them."""
import math
import os
import re
import signal
import subprocess
import threading
import time

import pytest

from support.harness import BMC150 as FIXTURE
from support.harness import (SHIMMERD, WAIT, Device, ScanPipe, close_to, pose, read_trace, shm_header, tilt_until_exit,
                             wait_trace, wait_until)
from support.runs import QUIET, Run, check_trace_intact, trace_snapshot
from support.sinks import SCREEN_H, SCREEN_W, add_framebuffer


# --- the sensor ---

def test_accelerometer_removed_mid_run_and_added_back(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null")
    run.tilt("before the fault")
    before = trace_snapshot(run.trace)
    n = len(run.d.logs)
    bed.remove(run.dev.syspath)
    _, line = run.d.wait_log(r"disappeared", "the removal line", start=n)
    assert "udev remove event for %s" % run.dev.syspath in line and "iio:device0" in line
    # The device comes back, in another pose: a new baseline, then frames again.
    back = pose(0.25, 0.1)
    raw = run.dev.raw_for(back)
    block = run.dev.text.split("\n\n")[0]
    for axis, v in zip("xyz", raw):
        block = re.sub(r"A: in_accel_%s_raw=.*" % axis, "A: in_accel_%s_raw=%d\\\\n" % (axis, v), block)
    bed.add(block + "\n")
    base_at = len(read_trace(run.trace))
    wait_trace(run.trace, lambda r: r["type"] == "baseline", "a new baseline after the device came back", run.d,
               base_at)
    run.tilt("after the device came back")
    assert len(run.lines(r"disappeared|detached")) == 1, run.d.logs
    run.stop()
    check_trace_intact(run.trace, before)


@pytest.mark.parametrize("value,reason", [
    ("garbage", "not a number"), ("", "empty value"),
    ("99999999999999999999", "out of range"),        # does not parse as a raw count
    ("2147483647", "implausible acceleration"),      # parses, but not on a 12-bit sensor
])
def test_channel_attribute_turns_bad_then_back(bed_factory, tmp_path, value, reason):
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null")
    run.tilt("before the fault")
    before = trace_snapshot(run.trace)
    n = len(run.d.logs)
    t0 = time.monotonic()
    bed.set_attr(run.dev.syspath, "in_accel_x_raw", value + "\n")
    _, line = run.d.wait_log(r"sample skipped: .*%s" % re.escape(reason), "the bad-value line", start=n)
    assert "iio:device0" in line and "in_accel_x_raw" in line and ('"%s' % value) in line, line
    run.tilt("after the attribute is good again")     # writes every axis: x is good again
    window = time.monotonic() - t0
    bad = run.lines(r"sample skipped", n)
    assert 1 <= len(bad) <= math.ceil(window) + 1, bad          # one line per second at most
    assert all(reason in l for l in bad), bad
    run.stop()
    rs = check_trace_intact(run.trace, before)
    # The bad value never became a sample.
    assert all(math.sqrt(sum(a * a for a in r["accel"])) < 20 for r in rs if r["type"] == "sample")


def test_all_bad_values_in_a_row_then_back(bed_factory, tmp_path):
    """The attribute goes garbage -> empty -> enormous -> back, without pauses: each
    cause is named once, then samples and frames resume."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null")
    run.tilt("before the fault")
    before = trace_snapshot(run.trace)
    n = len(run.d.logs)
    for value, reason in [("garbage", "not a number"), ("", "empty value"), ("99999999999999999999", "out of range")]:
        bed.set_attr(run.dev.syspath, "in_accel_y_raw", value + "\n")
        run.d.wait_log(r"in_accel_y_raw = \"%s\": %s" % (re.escape(value), reason), "the %r line" % value, start=n)
    run.tilt("after the attribute is good again")
    run.stop()
    check_trace_intact(run.trace, before)


@pytest.mark.parametrize("fault,reason", [
    ("short", r"/dev/iio:device0 = \"5 bytes\": short scan \(a scan is 16 bytes\); discarded"),
    ("zeros", r"= \"0 0 0\": zero acceleration vector"),
])
def test_buffer_delivers_a_short_or_corrupt_scan(bed_factory, tmp_path, fault, reason):
    """Buffer mode: the device yields 5 bytes (less than one 16-byte scan), or whole
    scans of zeros (a bus read that returned nothing); then good scans again."""
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    pipe = ScanPipe(bed, dev)
    trace = str(tmp_path / "trace.jsonl")
    pipe.pose(0, 0)
    d = bed.spawn("run", "--set", "Sensor.mode=buffer", "--set", "Sink.type=null", "--set", "Trace.path=" + trace,
                  "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3")

    def good(roll, what, start=0):
        got = pipe.pose(roll, 0.02)
        i, s = wait_trace(trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
                          "a good sample (%s)" % what, d, start)
        wait_trace(trace, lambda r: r["type"] == "frame" and r["t"] >= s["t"], "a frame (%s)" % what, d, i)
    # The driver takes the newest scan of each read: one read per write, three for the baseline.
    wait_until(lambda: pipe.pose(0, 0) and time.sleep(0.1) is None
               and any(r["type"] == "baseline" for r in read_trace(trace)), "baseline", d)
    good(0.1, "before the fault")
    before = trace_snapshot(trace)
    n = len(d.logs)
    if fault == "short":
        pipe.send(dev.scans(pose(-0.2, 0))[:5])
    else:
        pipe.send(bytes(dev.scan_layout()[1] * 3))
    _, line = d.wait_log(reason, "the %s-scan line" % fault, start=n)
    assert "iio:device0" in line
    good(-0.1, "after the fault", len(read_trace(trace)))
    assert len([l for l in d.logs[n:] if "sample skipped" in l]) == 1, d.logs[n:]
    assert d.poll() is None
    assert d.stop() == 0
    pipe.close()
    rs = check_trace_intact(trace, before)
    # Nothing from the bad scans reached a sample.
    assert not any(r["type"] == "sample" and not any(r["accel"]) for r in rs)
    assert not any(r["type"] == "sample" and abs(r["droll"] + 0.2) < 0.02 for r in rs)


def test_a_buffer_that_stops_delivering_is_said_once_and_its_return_too(bed_factory, tmp_path):
    """Buffer mode: the node stops giving scans while the device stays (no udev event,
    the writer still open, so no EOF either): one warning naming the node and how long
    it has been silent, not one per read; when scans come again, one line says so and
    they are samples again."""
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    pipe = ScanPipe(bed, dev)
    trace = str(tmp_path / "trace.jsonl")
    d = bed.spawn("run", "--set", "Sensor.mode=buffer", "--set", "Sink.type=null", "--set", "Trace.path=" + trace,
                  "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3")
    stop = threading.Event()
    feeder = pipe.feed(bed, lambda t: (0.05, 0.02), stop)
    wait_trace(trace, lambda r: r["type"] == "sample", "samples while scans come", d)
    stop.set()
    feeder.join()
    n = len(d.logs)
    _, line = d.wait_log(r"no scan from /dev/iio:device0 for \d+ s although the device is still there",
                         "the silence line",
                         start=n)
    assert line.startswith("shimmerd: warning: accelerometer iio:device0 (BMA253/"), line
    # Silent on, longer than the silence it took to say so: the timed reads go on
    # finding nothing, and say nothing more.
    time.sleep(3)
    assert sum(1 for x in d.logs[n:] if "no scan from" in x) == 1, d.logs[n:]
    assert d.poll() is None
    start = len(read_trace(trace))
    stop = threading.Event()
    feeder = pipe.feed(bed, lambda t: (-0.1, 0.02), stop)
    d.wait_log(r"^shimmerd: accelerometer iio:device0 \(.*\): /dev/iio:device0 delivering again after \d+ s "
               r"without a scan",
               "the delivering-again line", start=n)
    got = dev.accel_of(dev.raw_for(pose(-0.1, 0.02)))
    wait_trace(trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6), "a sample after", d, start)
    stop.set()
    feeder.join()
    assert d.stop() == 0, "\n".join(d.logs[-20:])
    pipe.close()
    assert sum(1 for x in d.logs[n:] if "no scan from" in x) == 1, d.logs[n:]
    assert sum(1 for x in d.logs[n:] if "delivering again" in x) == 1, d.logs[n:]


# --- the sinks ---


def card_row(path, fill=b"\x5a"):
    """Whether the card's middle row (centered card) holds something other than the fill."""
    oy = (SCREEN_H - 467) // 2 + 233
    with open(path, "rb") as f:
        f.seek(oy * SCREEN_W * 4)
        row = f.read(SCREEN_W * 4)
    return row != fill * (SCREEN_W * 4)


def test_framebuffer_missing_at_start_then_appears(bed_factory, tmp_path):
    """test_sinks.py::test_framebuffer_missing_device_is_reported_once_then_attached
    checks the pixels; this one the rest of the fault contract."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb0")
    run.d.wait_log(r"framebuffer /dev/fb0 unavailable: .*No such file or directory; retrying with backoff",
                   "unavailable")
    run.tilt("while the device is missing")          # rendering goes on into the shadow
    before = trace_snapshot(run.trace)
    path, _ = add_framebuffer(bed, fill=b"\x5a")
    run.d.wait_log(r"framebuffer /dev/fb0: 800 x 600", "attached after the device appeared")
    wait_until(lambda: card_row(path), "the card on the device", run.d)
    run.tilt("after attaching")
    assert len(run.lines("unavailable")) == 1, run.d.logs
    run.stop()
    check_trace_intact(run.trace, before)


def test_framebuffer_vanishes_mid_run_and_comes_back(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    path, _ = add_framebuffer(bed, fill=b"\x5a")
    run = Run(bed, tmp_path, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb0")
    run.d.wait_log(r"framebuffer /dev/fb0: 800 x 600", "attached")
    run.tilt("before the fault")
    wait_until(lambda: card_row(path), "the card on the device", run.d)
    before = trace_snapshot(run.trace)
    n = len(run.d.logs)
    bed.remove("/sys/devices/platform/vfb.0/graphics/fb0")   # driver unbound, device unplugged
    if os.path.exists(path):
        os.unlink(path)
    _, line = run.d.wait_log(r"framebuffer /dev/fb0 vanished", "the vanished line", start=n)
    assert "No such file or directory" in line and "retrying with backoff" in line
    run.tilt("while the device is gone")
    path, _ = add_framebuffer(bed, fill=b"\x5a")                       # a new node: drawn in full at once
    run.d.wait_log(r"framebuffer /dev/fb0: 800 x 600", "attached again", start=n)
    wait_until(lambda: card_row(path), "the card on the new device", run.d)
    run.tilt("after it came back")
    assert len(run.lines(r"vanished|unavailable", n)) == 1, run.d.logs[n:]
    run.stop()
    check_trace_intact(run.trace, before)


def test_shm_segment_deleted_by_someone_else_is_recreated(bed_factory, tmp_path, shm_name):
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name)
    run.tilt("before the fault")
    path = "/dev/shm/" + shm_name
    old_ino = os.stat(path).st_ino
    _, old_frame, _ = shm_header(shm_name)
    with open(path, "rb") as held:                    # a reader that keeps the old object
        before = trace_snapshot(run.trace)
        n = len(run.d.logs)
        os.unlink(path)
        _, line = run.d.wait_log(r"was deleted while in use; created it again", "the recreated line", start=n)
        assert path in line
        st = os.stat(path)
        assert st.st_ino != old_ino and st.st_mode & 0o777 == 0o640 and st.st_uid == os.geteuid()
        import struct
        held.seek(72)
        assert struct.unpack("<I", held.read(4))[0] == 0, "the deleted object says its writer left"
    magic, frame, pid = shm_header(shm_name)
    assert magic == b"SHMR" and pid == run.d.p.pid and frame >= old_frame
    run.tilt("after recreating")
    wait_until(lambda: shm_header(shm_name)[1] > frame, "frames in the new object", run.d)
    last = run.frames()[-1]["frame"]
    wait_until(lambda: shm_header(shm_name)[1] >= last, "the newest frame in the new object", run.d)
    assert len(run.lines(r"deleted")) == 1, run.d.logs
    run.stop()
    assert shm_header(shm_name)[2] == 0
    check_trace_intact(run.trace, before)


def test_shm_name_taken_after_deletion_is_not_taken_over(bed_factory, tmp_path, shm_name):
    """Deleted, and NAME created again by another user before the check: the daemon
    takes nothing over, says so once, renders on, and recreates once NAME is free."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name)
    run.tilt("before the fault")
    path = "/dev/shm/" + shm_name
    before = trace_snapshot(run.trace)
    n = len(run.d.logs)
    os.unlink(path)
    with open(path, "wb") as f:
        f.write(b"theirs")
    os.chown(path, 65534, 65534)
    _, line = run.d.wait_log(r"cannot be recreated", "the refusal line", start=n)
    assert "someone else" in line
    run.tilt("while NAME is someone else's")
    with open(path, "rb") as f:
        assert f.read() == b"theirs"
    os.unlink(path)
    run.d.wait_log(r"created it again", "recreated once NAME was free", start=n)
    assert len(run.lines(r"cannot be recreated", n)) == 1
    run.tilt("after recreating")
    run.stop()
    check_trace_intact(run.trace, before)


# --- the trace's disk ---

@pytest.fixture
def small_tmpfs(tmp_path):
    """1 MB: filled by a filler file, then freed; the trace (about 20 KB/s here) cannot
    fill it again before the test ends."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(mnt)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (%s): the disk-full test needs one" % r.stderr.strip())
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)])


def test_trace_disk_full_then_space_returns(bed_factory, tmp_path, small_tmpfs, shm_name):
    bed = bed_factory(FIXTURE)
    trace = str(small_tmpfs / "trace.jsonl")
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name,
                  "--set", "Trace.path=" + trace)
    wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", d)
    before = trace_snapshot(trace)
    # Fill the file system: a filler takes every block the trace does not have.
    filler = small_tmpfs / "filler"
    with open(filler, "wb", buffering=0) as f:
        for chunk in (65536, 4096, 512):
            try:
                while True:
                    f.write(b"\0" * chunk)
            except OSError:
                pass
    n = len(d.logs)
    roll = 0.0
    frame0 = shm_header(shm_name)[1]

    def move():
        nonlocal roll
        roll = 0.15 if roll <= 0 else -0.15
        bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
        time.sleep(0.2)
        return [l for l in d.logs[n:] if "cannot write trace" in l]
    line = wait_until(move, "the disk-full line", d)[0]
    assert trace in line and "No space left on device" in line and "rendering on" in line
    # Rendering goes on: the shm frame counter moves while the trace cannot be written.
    f1 = shm_header(shm_name)[1]
    wait_until(lambda: move() is not None and shm_header(shm_name)[1] > f1, "frames while the disk is full", d)
    assert f1 >= frame0
    os.unlink(filler)                                 # space returns
    run_until = len(d.logs)
    wait_until(lambda: move() is not None and any("writable again" in l for l in d.logs[run_until:]),
               "the recovery line", d)
    assert d.stop() == 0
    assert sum("cannot write trace" in l for l in d.logs) == 1, d.logs
    rs = check_trace_intact(trace, before)
    # Nothing was lost: the lines queued while the disk was full were written after.
    frames = [r["frame"] for r in rs if r["type"] == "frame"]
    assert frames == list(range(1, len(frames) + 1))
    _, stopped = d.wait_log(r"stopped after", "the stop summary")
    assert int(re.search(r"after (\d+) frames?", stopped).group(1)) == len(frames)


def test_a_trace_past_the_file_size_limit_is_a_write_error_not_a_kill(bed_factory, tmp_path):
    """RLIMIT_FSIZE reached: the write fails with EFBIG, said once, and the daemon renders
    on; the default action of SIGXFSZ would have killed it without a flush (the daemon
    ignores that signal, `ProcessSignals.ignore`)."""
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=null", "--set", "Trace.path=" + trace,
                  prefix=("prlimit", "--fsize=16384", "--"))
    roll = 0.0

    def move():
        nonlocal roll
        roll = 0.15 if roll <= 0 else -0.15
        bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
        time.sleep(0.2)
        return [l for l in d.logs if "cannot write trace" in l]
    line = wait_until(move, "the file-size line", d)[0]
    assert trace in line and "File too large" in line and "rendering on" in line, line
    # The loop goes on past the limit: it still takes its signals.
    n = len(d.logs)
    d.p.send_signal(signal.SIGUSR1)
    d.wait_log(r"SIGUSR1: recapturing the baseline", "the recapture past the limit", start=n)
    assert os.path.getsize(trace) <= 16384
    assert d.stop() == 0, d.logs[-10:]
    assert sum("cannot write trace" in l for l in d.logs) == 1, d.logs


# --- the raw reader ---

def test_raw_reader_exits(bed_factory, tmp_path):
    """The reader of a raw stream goes away: documented as a clean stop (exit 0, one
    line, the trace flushed). test_sinks.py::test_killing_ffmpeg_ends_the_raw_sink_cleanly
    does it with ffmpeg; here the reader reads two whole frames and closes the pipe."""
    bed = bed_factory(FIXTURE)
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    trace = str(tmp_path / "trace.jsonl")
    r, w = os.pipe()
    p = subprocess.Popen([SHIMMERD, "run", *QUIET,
                          "--set", "Sink.type=raw", "--set", "Trace.path=" + trace],
                         env=bed.env, stdout=w, stderr=subprocess.PIPE, text=True)
    os.close(w)
    bed.children.append(p)
    logs = []
    threading.Thread(target=lambda: [logs.append(l.rstrip("\n")) for l in p.stderr], daemon=True).start()
    frame = 700 * 467 * 4
    got = 0
    roll = 0.0
    with os.fdopen(r, "rb") as reader:
        while got < 2 * frame:
            roll = 0.12 if roll <= 0 else -0.12
            bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
            chunk = reader.read(min(frame, 2 * frame - got))
            assert chunk, "the stream ended early"
            got += len(chunk)
        before = trace_snapshot(trace)
    # The pipe has no reader now: the next frame ends the sink, and the run.
    tilt_until_exit(bed, dev, p, roll)
    assert p.wait(timeout=WAIT) == 0, logs
    wait_until(lambda: any("stopped after" in l for l in logs), "the stop summary")
    ended = [l for l in logs if "EPIPE" in l]
    assert len(ended) == 1 and "raw sink has ended" in ended[0], logs
    rs = check_trace_intact(trace, before)
    stopped = [l for l in logs if "stopped after" in l][0]
    assert int(re.search(r"and (\d+) samples?", stopped).group(1)) == sum(1 for x in rs if x["type"] == "sample")


# --- signals ---

def test_sighup_with_an_invalid_file(bed_factory, tmp_path):
    """Each kind of bad file on SIGHUP: one line naming it, the running pipeline goes
    on (same baseline: no new one), and a good file later is taken."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null")
    run.tilt("before the fault")
    before = trace_snapshot(run.trace)
    conf = run.conf
    cases = [
        ("a syntax error", lambda: conf.write_text("[Mapper\n"),
         r"%s:1.*malformed section header" % re.escape(str(conf))),
        ("an unknown key", lambda: conf.write_text("[Sink]\nfps = 30\ncolour = red\n"),
         r"%s:3.*colour" % re.escape(str(conf))),
        ("a value out of range", lambda: conf.write_text("[Card]\nscale = -1\n"), r"%s:2" % re.escape(str(conf))),
        ("not UTF-8", lambda: conf.write_bytes(b"[Card]\nscale = \xff\n"), r"not UTF-8"),
        ("the file deleted", lambda: conf.unlink(), r"does not exist"),
    ]
    if os.geteuid() == 0:
        def world_writable():
            conf.write_text("[Mapper]\nmax_offset = 50\n")
            conf.chmod(0o666)
        cases.append(("writable by others, as root", world_writable, r"writable by others"))
    baselines = sum(1 for r in read_trace(run.trace) if r["type"] == "baseline")
    for what, make, pattern in cases:
        n = len(run.d.logs)
        make()
        run.d.p.send_signal(signal.SIGHUP)
        _, line = run.d.wait_log(r"not reloaded", "the rejected reload (%s)" % what, start=n)
        assert re.search(pattern, line), (what, line)
        run.tilt("after %s" % what)
        assert len(run.lines(r"not reloaded", n)) == 1
        if conf.exists():
            conf.chmod(0o644)
    kept = sum(1 for r in read_trace(run.trace) if r["type"] == "baseline")
    assert kept == baselines, "a rejected reload kept the baseline"
    conf.write_text("[Mapper]\nmax_offset = 50\n")
    n = len(run.d.logs)
    run.d.p.send_signal(signal.SIGHUP)
    mark = len(read_trace(run.trace))
    run.d.wait_log(r"configuration reloaded", "a good file taken", start=n)
    run.wait_baseline(mark)
    run.tilt("after a good reload")
    run.stop()
    check_trace_intact(run.trace, before)


def test_burst_of_a_thousand_signals_then_sigterm(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null")
    run.tilt("before the burst")
    before = trace_snapshot(run.trace)
    pid = run.d.p.pid
    for k in range(1000):
        os.kill(pid, signal.SIGHUP if k % 3 else signal.SIGUSR1)
    assert run.d.poll() is None, "a burst of SIGHUP/SIGUSR1 killed the daemon"
    # Settled: the reload that reads max_offset = 60 drained every signal of the burst
    # (all were sent before the file changed); the one for 70 is then the last reload,
    # and a tilt after its baseline must give frames.
    for max_offset in (60, 70):
        run.conf.write_text("[Mapper]\nmax_offset = %d\n" % max_offset)
        os.kill(pid, signal.SIGHUP)
        i, _ = wait_trace(run.trace, lambda r: r["type"] == "header" and r["mapper"]["max_offset"] == max_offset,
                          "the header of the reload for max_offset = %d" % max_offset, run.d)
    run.wait_baseline(i)
    run.tilt("after the burst")
    reloads = len(run.lines(r"configuration reloaded"))
    assert 1 <= reloads <= 668, reloads              # pending signals coalesce; never more than sent
    # A second burst with SIGTERM at its end: the stop is never lost behind a reload.
    for k in range(300):
        os.kill(pid, signal.SIGHUP if k % 2 else signal.SIGUSR1)
    os.kill(pid, signal.SIGTERM)
    assert run.d.wait(timeout=WAIT) == 0, "\n".join(run.d.logs[-20:])
    run.d.wait_log(r"stopped after", "the stop summary")
    rs = check_trace_intact(run.trace, before)
    # The last record is a whole one of the trace's kinds. A recapture can be last: the
    # signalfd wakes the loop at the burst's first signals, so a SIGUSR1 may be handled
    # (and recorded) before the SIGTERM is sent.
    assert rs[-1]["type"] in ("sample", "frame", "baseline", "reading", "header", "recapture")
