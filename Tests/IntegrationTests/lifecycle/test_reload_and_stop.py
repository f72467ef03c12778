"""Reload and stop lose nothing, shown on the real binary under umockdev.

- A stop signal is acted on whatever a reader does: a raw reader that stops reading
  (a full pipe) neither holds SIGTERM nor gets torn frames; the frames it cannot take
  are dropped, logged at most once a second, and traced as `dropped`, not as `frame`.
- SIGHUP is a transaction: an unchanged sink and trace stay open (a FIFO reader sees
  no end, a raw file is not truncated, png numbering goes on); a reload that cannot be
  built (a trace path or sink that cannot be opened) leaves the running pipeline as it
  was, same trace, same sink, same baseline, with one line naming file:line.
- A raw file or png directory that already holds frames is continued, not destroyed.
- A long png run keeps the same heap (the sink remembers no file names).
- The console: KD_GRAPHICS works with the unit's own groups and capability, on the
  machine's real /dev/tty0, and is put back on exit.
docs/RELIABILITY.md lists these with their results."""
import contextlib
import fcntl
import json
import os
import pathlib
import re
import select
import signal
import stat
import subprocess
import threading
import time

import pytest

from support.harness import BMC150 as FIXTURE
from support.harness import NOBODY_UID as NOBODY
from support.harness import (REPO, SHIMMERD, WAIT, Device, close_to, frames_in, machine_wide, pose, read_trace,
                             shm_header, system_group, wait_trace, wait_until)
from support.privileges import readable_testbed
from support.runs import QUIET, Run, check_trace_intact, trace_snapshot
from support.sinks import add_framebuffer
from support.traces import synthetic_trace

FRAME = 700 * 467 * 4      # bytes of one raw frame of the default card


def dropped(trace):
    return [r for r in read_trace(trace) if r["type"] == "dropped"]


def swing(run, what):
    """A new pose; waits for its sample (not for a frame: a stalled reader gets none)."""
    run.roll = -0.1 if run.roll > 0 else 0.1
    raw = run.dev.raw_for(pose(run.roll, 0.02))
    start = len(read_trace(run.trace))   # the same pose was held before: only newer records
    run.bed.set_raw(run.dev, raw)
    got = run.dev.accel_of(raw)
    return wait_trace(run.trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
                      "the sample of roll %.2f (%s)" % (run.roll, what), run.d, start)


def stop_line(d):
    _, line = d.wait_log(r"stopped after \d+ frames?", "the stop summary")
    m = re.search(r"stopped after (\d+) frames? and (\d+) samples?(?:; (\d+) frames? dropped)?", line)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def reload(run):
    """SIGHUP, then the reload's line and its new baseline: a tilt made before the
    baseline would become the baseline and move nothing."""
    n, mark = len(run.d.logs), len(read_trace(run.trace))
    run.d.p.send_signal(signal.SIGHUP)
    _, line = run.d.wait_log(r"configuration reloaded", "the reload", start=n)
    run.wait_baseline(mark)
    return line


class FifoReader:
    """Reads a FIFO in a thread, counting bytes, until the test is done with it;
    `paused` stops it reading. `ends` counts the times the stream ended (every writer
    closed it) after some data: a reader such as ffmpeg would have stopped there."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.bytes = 0
        self.ends = 0
        self.paused = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        open_stream = False
        while True:
            if self.paused.is_set():
                time.sleep(0.05)
                continue
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if not chunk:
                if open_stream:
                    self.ends += 1
                    open_stream = False
                if self.done.is_set():
                    return
                time.sleep(0.01)       # no writer (yet, or any more)
                continue
            open_stream = True
            self.bytes += len(chunk)

    @staticmethod
    def run_into(bed_factory, tmp_path, paused=False):
        """shimmerd's raw sink into a new FIFO, and its reader (paused: it holds the FIFO
        open but reads nothing)."""
        bed = bed_factory(FIXTURE)
        fifo = str(tmp_path / "frames.fifo")
        os.mkfifo(fifo)
        reader = FifoReader(fifo)
        if paused:
            reader.paused.set()
        return Run(bed, tmp_path, "--set", "Sink.type=raw", "--set", "Sink.path=" + fifo), reader

    def finish(self):
        """After the daemon exited: read to the end."""
        self.done.set()
        self.paused.clear()
        self.thread.join(timeout=WAIT)
        os.close(self.fd)


# --- a stop always stops ---

def test_sigterm_with_a_stalled_raw_reader(bed_factory, tmp_path):
    """The reader holds the FIFO open and never reads: the pipe fills during the first
    frame. The daemon keeps sampling, drops the frames (logged at most once a second,
    traced as `dropped`), and SIGTERM ends it with exit 0, the trace flushed and one
    line saying the stream ends in a partial frame."""
    run, reader = FifoReader.run_into(bed_factory, tmp_path, paused=True)
    started = time.monotonic()
    while len(dropped(run.trace)) < 10:
        swing(run, "with the reader stalled")
        time.sleep(0.1)
    before = trace_snapshot(run.trace)
    run.d.p.send_signal(signal.SIGTERM)
    assert run.d.wait(timeout=WAIT) == 0, "\n".join(run.d.logs[-20:])
    elapsed = time.monotonic() - started
    reader.finish()
    published, _, dropped_count = stop_line(run.d)
    rs = check_trace_intact(run.trace, before)
    drops = [r for r in rs if r["type"] == "dropped"]
    assert drops and all(r["reason"] == "the reader is not taking frames" for r in drops)
    assert dropped_count == len(drops)
    assert published == sum(1 for r in rs if r["type"] == "frame") == 1   # the one the pipe took part of
    assert 0 < reader.bytes < FRAME                                        # what the pipe held of it
    warned = [l for l in run.d.logs if "frame dropped: the reader is not taking frames" in l]
    assert 1 <= len(warned) <= elapsed + 1, warned
    assert any("ends in a partial frame" in l for l in run.d.logs), run.d.logs


def test_a_reader_that_stalls_then_resumes_gets_whole_frames(bed_factory, tmp_path):
    """Every frame traced as published reaches the reader whole, and nothing else does:
    the bytes read are exactly published frames x frame size."""
    run, reader = FifoReader.run_into(bed_factory, tmp_path)
    run.tilt("reader reading")
    reader.paused.set()
    while len(dropped(run.trace)) < 5:
        swing(run, "reader paused")
        time.sleep(0.1)
    reader.paused.clear()
    n = len(frames_in(run.trace))
    run.tilt("reader reading again")
    assert len(frames_in(run.trace)) > n
    run.stop()
    reader.finish()
    published, _, dropped_count = stop_line(run.d)
    assert dropped_count >= 5
    assert published == len(frames_in(run.trace))
    assert reader.bytes == published * FRAME, (reader.bytes, published)


class TimedFifoReader(FifoReader):
    """A `FifoReader` that reads as fast as its writer fills the FIFO (it waits in
    poll(2), never in a sleep, while the pipe is empty) and notes when each chunk came:
    `arrivals` holds (time.monotonic(), bytes read so far)."""

    def __init__(self, path):
        self.arrivals = []
        super().__init__(path)

    def _run(self):
        ready = select.poll()
        ready.register(self.fd, select.POLLIN)
        while not self.done.is_set():
            if self.paused.is_set():
                time.sleep(0.01)
                continue
            if not ready.poll(50):
                continue
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                time.sleep(0.01)       # no writer (yet, or any more)
                continue
            self.bytes += len(chunk)
            self.arrivals.append((time.monotonic(), self.bytes))

    def when(self, total):
        """When the reader had `total` bytes in all (None: not yet)."""
        return next((t for t, n in self.arrivals if n >= total), None)


def test_a_resumed_reader_gets_the_frame_in_flight_and_the_newest_at_pipe_speed(bed_factory, tmp_path):
    """A reader that stalls with a frame in flight and then reads again gets the rest of
    that frame, and then the newest picture whole, within one frame interval of its first
    read, the interval measured between the paced frames of the same run (4 fps): the
    daemon waits for the pipe to take writes (POLLOUT) instead of writing on only when
    something else wakes it, which with the sensor read at 10 Hz takes two seconds for
    the 1.3 MB of a frame through a 64 KiB pipe."""
    bed = bed_factory(FIXTURE)
    fifo = str(tmp_path / "frames.fifo")
    os.mkfifo(fifo)
    reader = TimedFifoReader(fifo)
    try:
        run = Run(bed, tmp_path, "--set", "Sink.type=raw", "--set", "Sink.path=" + fifo,
                  "--set", "Sensor.rate=10", "--set", "Sink.fps=4")
        run.tilt("reader reading")
        reader.paused.set()
        while not any(r["reason"] == "the reader is not taking frames" for r in dropped(run.trace)):
            swing(run, "reader paused")
            time.sleep(0.1)

        def attempts():
            return sorted(r["t"] for r in read_trace(run.trace) if r["type"] in ("frame", "dropped"))

        # The picture settles: no frame is attempted for a whole second (the trace is
        # flushed once a second), so the one owed is due the moment the pipe is free.
        before = len(attempts())
        deadline = time.monotonic() + WAIT
        while True:
            time.sleep(2)
            now = len(attempts())
            if now == before:
                break
            assert time.monotonic() < deadline, "the frames never stopped"
            before = now

        paced = attempts()
        interval = min(b - a for a, b in zip(paced, paced[1:]))
        assert interval >= 0.999 / 4, paced           # the pacer's own interval, 1 / Sink.fps
        stalled_at = reader.bytes
        in_flight_ends = (stalled_at // FRAME + 1) * FRAME
        newest_ends = in_flight_ends + FRAME
        reader.paused.clear()
        wait_until(lambda: reader.bytes >= newest_ends, "the frame in flight and the newest frame", run.d)
        first_read = next(t for t, n in reader.arrivals if n > stalled_at)
        took_in_flight = reader.when(in_flight_ends) - first_read
        took_newest = reader.when(newest_ends) - first_read
        assert took_newest < interval, (took_in_flight, took_newest, interval)
        run.stop()
    finally:
        reader.finish()
    published, _, _ = stop_line(run.d)
    assert reader.bytes == published * FRAME, (reader.bytes, published)


def test_sigterm_with_a_trace_reader_that_stalls(bed_factory, tmp_path):
    """The trace is a FIFO whose reader stops reading (its pipe shrunk to one page, so
    it fills in a moment): the lines queue up, one line says so, frames go on, and
    SIGTERM ends the run with exit 0 and one line counting what could not be written."""
    bed = bed_factory(FIXTURE)
    fifo = str(tmp_path / "trace.fifo")
    os.mkfifo(fifo)
    stuck = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(stuck, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
        dev = Device(FIXTURE)
        bed.set_raw(dev, dev.raw_for(pose(0, 0)))
        d = bed.spawn("run", *QUIET, "--set", "Sink.type=null", "--set", "Trace.path=" + fifo)
        rolls = iter([0.1, -0.1] * 1000)

        def queued():
            bed.set_raw(dev, dev.raw_for(pose(next(rolls), 0)))
            time.sleep(0.2)
            return [l for l in d.logs if "cannot write trace" in l]

        line = wait_until(queued, "the trace's lines queued", d)[0]
        assert fifo in line and "Resource temporarily unavailable" in line and "rendering on" in line, line
        d.p.send_signal(signal.SIGTERM)
        assert d.wait(timeout=WAIT) == 0, d.logs
        stop_line(d)
        assert any(re.search(r"trace %s closed with \d+ bytes that could not be written" % re.escape(fifo), l)
                   for l in d.logs), d.logs
        written = b""
        while True:
            try:
                chunk = os.read(stuck, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            written += chunk
        lines = written.split(b"\n")
        assert len(lines) > 2 and all(json.loads(l) for l in lines[:-1])   # whole lines, then maybe part of one
    finally:
        os.close(stuck)


@pytest.mark.parametrize("fault", [signal.SIGSEGV, signal.SIGABRT, signal.SIGILL])
def test_a_crash_still_writes_the_queued_trace(bed_factory, tmp_path, fault):
    """The trace is written once a second; a process that dies of a fault (a bad
    pointer, abort(3), a Swift runtime trap) writes what it had queued first. Three
    tilts, each read by a poll, then the fault: all three samples are in the trace, whole, and
    the process died of that signal (no core file: RLIMIT_CORE is 0). The Swift
    runtime's backtrace, which the handler hands the fault to, is turned off here: it
    takes many seconds to print for a debug build."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=null",
              prefix=("prlimit", "--core=0", "--", "env", "SWIFT_BACKTRACE=enable=no"))
    run.tilt("before the fault")
    before = trace_snapshot(run.trace)
    wanted = []
    for roll in (0.05, 0.1, 0.15):
        raw = run.dev.raw_for(pose(roll, 0.01))
        run.bed.set_raw(run.dev, raw)
        wanted.append(run.dev.accel_of(raw))
        run.bed.wait_polled(run.dev, run.d, "roll %.2f" % roll)
    run.d.p.send_signal(fault)
    assert run.d.wait(timeout=WAIT) == -fault
    rs = check_trace_intact(run.trace, before)
    samples = [r["accel"] for r in rs if r["type"] == "sample"]
    for got in wanted:
        assert any(close_to(a, got, 1e-6) for a in samples), "the sample of %s was lost" % (got,)


# --- SIGHUP keeps what did not change, and destroys nothing ---

def test_sighup_keeps_a_fifo_reader_and_counts_frames_over_reloads(bed_factory, tmp_path):
    """A reader of the FIFO sees no end across reloads (an unchanged file, then a
    changed mapper); the stop line counts every frame of the run."""
    run, reader = FifoReader.run_into(bed_factory, tmp_path)
    run.tilt("before the reloads")
    for content in ("", "[Mapper]\nmax_offset = 60\n"):
        run.conf.write_text(content)
        line = reload(run)
        run.tilt("after a reload")
        assert reader.ends == 0, "the reader saw the end of the stream at a reload"
        assert "sink kept" in line and "trace kept" in line, line
    run.stop()
    reader.finish()
    published, _, _ = stop_line(run.d)
    assert published == len(frames_in(run.trace)) >= 3
    assert reader.bytes == published * FRAME


def test_sighup_and_a_second_run_continue_a_raw_file(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    out = tmp_path / "card.raw"
    run = Run(bed, tmp_path, "--set", "Sink.type=raw", "--set", "Sink.path=" + str(out))
    run.tilt("first")
    run.tilt("second")
    wait_until(lambda: out.stat().st_size >= 2 * FRAME, "two frames in the file", run.d)
    before = out.read_bytes()
    line = reload(run)
    run.tilt("after the reload")
    run.stop()
    first_run = len(frames_in(run.trace))
    data = out.read_bytes()
    assert data.startswith(before), "the reload truncated the raw file"
    assert len(data) == first_run * FRAME
    assert "sink kept" in line, line

    # A second run appends to the same file (its own trace counts its own frames).
    (tmp_path / "again").mkdir()
    again = Run(bed, tmp_path / "again", "--set", "Sink.type=raw", "--set", "Sink.path=" + str(out))
    again.tilt("second run")
    again.stop()
    data2 = out.read_bytes()
    assert data2.startswith(data), "a second run truncated the raw file"
    assert len(data2) == (first_run + len(frames_in(again.trace))) * FRAME


def test_sighup_continues_png_numbering(bed_factory, tmp_path):
    """No frame file is overwritten: one file per published frame, numbered 1..N
    without a gap, across a reload and into a second run."""
    bed = bed_factory(FIXTURE)
    out = tmp_path / "frames"
    run = Run(bed, tmp_path, "--set", "Sink.type=png", "--set", "Sink.path=" + str(out), "--set", "Card.scale=0.5")
    run.tilt("before the reload")
    run.tilt("before the reload, again")
    reload(run)
    run.tilt("after the reload")
    run.stop()
    published, _, _ = stop_line(run.d)
    names = sorted(os.listdir(out))
    assert published == len(frames_in(run.trace)) == len(names)
    assert names == ["frame-%06d.png" % k for k in range(1, published + 1)]

    (tmp_path / "again").mkdir()
    again = Run(bed, tmp_path / "again", "--set", "Sink.type=png", "--set", "Sink.path=" + str(out),
                "--set", "Card.scale=0.5")
    again.d.wait_log(r"already holds frames up to frame-%06d.png; continuing at frame-%06d.png"
                     % (published, published + 1),
                     "the continued numbering")
    again.tilt("second run")
    again.stop()
    total = published + len(frames_in(again.trace))
    assert sorted(os.listdir(out)) == ["frame-%06d.png" % k for k in range(1, total + 1)]


def test_sighup_keeps_the_shm_segment_and_applies_a_new_mode(bed_factory, tmp_path, shm_name):
    """The segment is carried over (same inode, same writer, the frame counter going on,
    no reopen for its readers); a new `Sink.mode` is applied to it."""
    bed = bed_factory(FIXTURE)
    run = Run(bed, tmp_path, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name)
    run.tilt("before the reload")
    seg = "/dev/shm/" + shm_name
    inode, frame = os.stat(seg).st_ino, shm_header(shm_name)[1]
    assert stat.S_IMODE(os.stat(seg).st_mode) == 0o640
    run.conf.write_text("[Sink]\nmode = 0600\n")
    line = reload(run)
    assert "sink kept" in line, line
    run.tilt("after the reload")
    assert os.stat(seg).st_ino == inode and stat.S_IMODE(os.stat(seg).st_mode) == 0o600
    assert shm_header(shm_name)[1] > frame and shm_header(shm_name)[2] == run.d.p.pid
    run.stop()


# --- a reload that cannot be built changes nothing ---

def spawn_with_config(bed, text, *extra):
    """shimmerd with its settings in a file (so that SIGHUP can change any of them). The
    file is in the testbed's directory, whose path is short: a log line names a location
    of more than 80 characters abbreviated, and the tests look for it whole (pytest's
    tmp_path is longer under pytest-xdist)."""
    dev = Device(FIXTURE)
    conf = pathlib.Path(bed.root) / "shimmerd.conf"
    conf.write_text(text)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", "--config", str(conf), *QUIET, *extra)
    return d, conf, dev


def baselines(trace):
    return sum(1 for r in read_trace(trace) if r["type"] == "baseline")


def refused_reload(d, conf, text):
    """SIGHUP after `text` replaced the configuration file: the line refusing it."""
    conf.write_text(text)
    n = len(d.logs)
    d.p.send_signal(signal.SIGHUP)
    return d.wait_log(r"SIGHUP: .*cannot start", "the refused reload", start=n)[1]


def test_reload_with_a_trace_path_that_cannot_be_opened_keeps_tracing(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    d, conf, dev = spawn_with_config(bed, "[Sink]\ntype = null\n[Trace]\npath = %s\n" % trace)
    wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", d)
    before, captured = trace_snapshot(trace), baselines(trace)
    line = refused_reload(d, conf, "[Sink]\ntype = null\n[Trace]\npath = /proc/shimmerd-none/trace.jsonl\n")
    for roll in (0.1, -0.1):
        raw = dev.raw_for(pose(roll, 0))
        bed.set_raw(dev, raw)
        got = dev.accel_of(raw)
        wait_trace(trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
                   "a sample traced after the refused reload", d)
    assert d.stop() == 0
    check_trace_intact(trace, before)
    assert baselines(trace) == captured, "the refused reload took a new baseline"
    assert "keeping the running one" in line, line
    assert "Trace.path = /proc/shimmerd-none/trace.jsonl (%s:4)" % conf in line, line


def test_reload_with_a_sink_that_cannot_be_built_keeps_the_running_sink(bed_factory, tmp_path, shm_name):
    bed = bed_factory(FIXTURE)
    trace = str(tmp_path / "trace.jsonl")
    d, conf, dev = spawn_with_config(bed, "[Sink]\ntype = shm\nname = %s\n" % shm_name,
                                     "--set", "Trace.path=" + trace)
    wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", d)
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and shm_header(shm_name)[1] > 0, "the first frame", d)
    captured = baselines(trace)
    line = refused_reload(d, conf, "[Sink]\ntype = png\npath = /proc/shimmerd-none/frames\n")
    for roll in (0.1, -0.1):
        shown = shm_header(shm_name)[1]
        bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
        wait_until(lambda: shm_header(shm_name)[1] > shown, "a frame in the running segment", d)
    assert shm_header(shm_name)[2] == d.p.pid
    assert d.stop() == 0                       # the trace is whole once the daemon is gone
    assert baselines(trace) == captured, "the refused reload took a new baseline"
    assert "keeping the running one" in line and "Sink.path = /proc/shimmerd-none/frames (%s:3)" % conf in line, line


# --- memory ---

def test_a_long_png_run_keeps_its_heap_flat(tmp_path, malloc_count_library):
    """Thousands of png frames from a trace: the bytes on the heap after 500 frames and
    after 2,500 are the same within 64 KiB (a list of the files written grew by about
    100 bytes a frame)."""
    src = str(tmp_path / "path.jsonl")
    # Two minutes of a slow loop at up to 60 frames a second: about 3,000 frames (one is
    # published when a dot changes).
    synthetic_trace(src, seconds=120.0, rate=60, fps=30)
    out = tmp_path / "frames"
    address_file = str(tmp_path / "malloc.address")
    env = dict(os.environ, LD_PRELOAD=malloc_count_library, SHIMMERD_TEST_MALLOC_COUNT_FILE=address_file)
    p = subprocess.Popen([SHIMMERD, "run", "--set", "Sensor.device=trace:" + src, "--set", "Sensor.trace_speed=max",
                          "--set", "Sink.type=png", "--set", "Sink.path=" + str(out), "--set", "Sink.fps=60",
                          "--set", "Card.scale=0.25", "--set", "Log.level=warning"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: os.path.exists(address_file) and open(address_file).read().count("\n") == 2, "the counters")
        address = int(open(address_file).read().split()[1], 16)

        def in_use():
            with open("/proc/%d/mem" % p.pid, "rb") as mem:
                mem.seek(address)
                return int.from_bytes(mem.read(8), "little", signed=True)

        def at(count):
            """The heap between frames: each frame's PNG encoding holds about 300 KiB
            while it runs, so the least of 50 looks 2 ms apart is what stays."""
            wait_until(lambda: p.poll() is not None or (out.exists() and len(os.listdir(out)) >= count),
                       "%d frames" % count, timeout=120)
            assert p.poll() is None, p.stderr.read()
            looks = []
            for _ in range(50):
                looks.append(in_use())
                time.sleep(0.002)
            return min(looks)

        early, late = at(500), at(2500)
        assert late - early < 64 * 1024, (early, late)
    finally:
        p.kill()
        p.wait()


# --- the console ---
#
# KDSETMODE is refused (EPERM) unless the VT is the caller's controlling terminal or the
# caller has CAP_SYS_TTY_CONFIG (drivers/tty/vt/vt_ioctl.c), and Debian's /dev/tty0 is
# root:tty 0620. umockdev's preload library answers every ioctl on a /dev node of a
# process it runs in, the real console's too (ENOTTY), so the kernel's rule is shown by
# the same calls the framebuffer sink makes (VirtualTerminalMode: open write-only,
# KDGETMODE, KDSETMODE KD_GRAPHICS, KDSETMODE back) in a process given exactly the
# unit's user, groups and capabilities, on the machine's real /dev/tty0; and the daemon
# itself, run with those privileges under umockdev, gets past the open.

def unit_setting(name):
    with open(os.path.join(REPO, "systemd", "shimmerd.service")) as f:
        return [word for line in f if line.startswith(name + "=") for word in line.split("=", 1)[1].split()]


def unit_privileges(with_capabilities=True):
    """setpriv arguments for the unit's user (nobody stands in for shimmerd), its
    supplementary groups and its ambient capabilities."""
    groups = unit_setting("SupplementaryGroups")
    args = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--groups=" + ",".join(groups)]
    caps = ",".join("+" + c[len("CAP_"):].lower() for c in unit_setting("AmbientCapabilities"))
    if with_capabilities and caps:
        args += ["--inh-caps=" + caps, "--ambient-caps=" + caps]
    return args + ["--"]


KDGETMODE, KDSETMODE, KD_TEXT, KD_GRAPHICS = 0x4B3B, 0x4B3A, 0, 1

CONSOLE_SEQUENCE = """
import array, fcntl, os, sys
try:
    fd = os.open("/dev/tty0", os.O_WRONLY | os.O_NOCTTY)
    m = array.array("i", [0]); fcntl.ioctl(fd, %d, m); before = m[0]
    fcntl.ioctl(fd, %d, %d)
    m = array.array("i", [0]); fcntl.ioctl(fd, %d, m); during = m[0]
    fcntl.ioctl(fd, %d, before)
    print("ok", before, during)
except OSError as e:
    print("refused", e.strerror)
""" % (KDGETMODE, KDSETMODE, KD_GRAPHICS, KDGETMODE, KDSETMODE)


def console_mode():
    out = subprocess.run(["/usr/bin/python3", "-c",
                          CONSOLE_SEQUENCE.replace("fcntl.ioctl(fd, %d, %d)" % (KDSETMODE, KD_GRAPHICS), "pass")],
                         env={"PATH": os.environ["PATH"]}, capture_output=True, text=True).stdout.split()
    return int(out[1]) if out and out[0] == "ok" else None


@pytest.fixture
def debian_console():
    """/dev/tty0 as Debian's udev leaves it (root:tty 0620, 50-udev-default.rules), in
    text mode; put back as found afterwards. The machine has one console, so the tests
    that use it take turns (an exclusive lock across the parallel run's workers): one
    test's putting it back must not take the console from under another. The unit's
    supplementary groups exist meanwhile (the package's sysusers file makes shimmerd-view;
    made here when missing, so these tests run in the xdist group "machine")."""
    if not os.path.exists("/dev/tty0") or os.geteuid() != 0:
        pytest.skip("needs root and a virtual terminal (/dev/tty0)")
    with contextlib.ExitStack() as groups, machine_wide("console"):
        for name in unit_setting("SupplementaryGroups"):
            groups.enter_context(system_group(name))
        mode = console_mode()
        if mode is None:
            pytest.skip("/dev/tty0 is not a virtual terminal here")
        if mode != KD_TEXT:
            pytest.skip("the console is not in text mode (another program draws on it)")
        st = os.stat("/dev/tty0")
        os.chown("/dev/tty0", 0, 5)     # group tty
        os.chmod("/dev/tty0", 0o620)
        try:
            yield
        finally:
            os.chown("/dev/tty0", st.st_uid, st.st_gid)
            os.chmod("/dev/tty0", st.st_mode & 0o7777)


@pytest.mark.xdist_group("machine")
@pytest.mark.parametrize("with_capabilities", [True, False])
def test_the_units_privileges_allow_console_graphics_mode(debian_console, with_capabilities):
    """With the unit's groups and CAP_SYS_TTY_CONFIG, the sink's console calls succeed
    on the real /dev/tty0 (and the mode is back to text after); without the capability
    the kernel refuses KDSETMODE, which the sink reports in one line."""
    assert unit_setting("AmbientCapabilities") == ["CAP_SYS_TTY_CONFIG"]
    assert unit_setting("CapabilityBoundingSet") == ["CAP_SYS_TTY_CONFIG"]
    assert "tty" in unit_setting("SupplementaryGroups")
    r = subprocess.run(unit_privileges(with_capabilities) + ["/usr/bin/python3", "-c", CONSOLE_SEQUENCE],
                       env={"PATH": os.environ["PATH"]}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    if with_capabilities:
        assert r.stdout.split() == ["ok", str(KD_TEXT), str(KD_GRAPHICS)], r.stdout
    else:
        assert r.stdout.strip() == "refused Operation not permitted", r.stdout
    assert console_mode() == KD_TEXT


@pytest.mark.xdist_group("machine")
def test_the_daemon_opens_the_console_with_the_units_privileges(bed_factory, open_dir, debian_console):
    """The framebuffer sink run with the unit's user, groups and capabilities opens
    /dev/tty0 (write-only: group tty may not read it) and reaches the console ioctls,
    which umockdev answers itself; the card is drawn all the same."""
    bed = bed_factory(FIXTURE)
    fb, _ = add_framebuffer(bed, fill=b"\x5a")
    readable_testbed(bed)
    os.chmod(fb, 0o666)      # what group video gets on a real framebuffer
    for dirpath, _, names in os.walk(bed.root):     # umockdev's ioctl sockets: connect needs write access
        for name in names:
            path = os.path.join(dirpath, name)
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.chmod(path, 0o666)
    dev = Device(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", *QUIET, "--set", "Sink.type=framebuffer", "--set", "Sink.device=/dev/fb0",
                  "--set", "Sensor.mode=poll", prefix=unit_privileges())
    d.wait_log(r"framebuffer /dev/fb0: 800 x 600", "the framebuffer attached")
    _, line = d.wait_log(r"console /dev/tty0", "the console's line")
    assert "KDGETMODE /dev/tty0" in line and "Permission denied" not in line, line
    assert d.stop() == 0
