"""Traces people can look at: a trace recorded from a fixture run fed back as
the sensor (`Sensor.device = trace:FILE`), `replay` to PNG frames, an animated PNG and
raw frames, `plot` to SVG, the reader's tolerance and its errors, size rotation.

Traces are compared record by record with exact equality: JSON numbers are written in
their shortest round-trip form and Python reads them back to the same doubles."""
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest

from support.harness import REPO, SHIMMERD, Device, pose, read_trace, run_shimmerd, wait_trace
from support.images import png_rgba, png_size
from support.traces import H, header, synthetic_trace

SVG = "{http://www.w3.org/2000/svg}"


# --- a trace as the sensor ----------------------------------------------------------

class Recording:
    """`shimmerd run` recording a trace from the bmc150 fixture in poll mode, filter off."""

    def __init__(self, bed_factory, tmp_path, *settings):
        self.dev = Device("bmc150_bosc0200_ideapad_d330")
        self.bed = bed_factory(self.dev.fixture)
        self.bed.set_raw(self.dev, self.dev.raw_for(pose(0, 0)))
        self.path = str(tmp_path / "recorded.jsonl")
        settings = settings or ("Attitude.filter=none", "Sink.type=null")
        self.d = self.bed.spawn("run", "--set", "Sensor.mode=poll", *[a for s in settings for a in ("--set", s)],
                                "--set", "Trace.path=" + self.path, "--set", "Log.level=warning")
        wait_trace(self.path, lambda r: r["type"] == "baseline", "baseline")

    def tilt(self, roll, lean):
        """Tilts the fixture and waits for the sample that carries the new reading."""
        got = self.dev.accel_of(self.dev.raw_for(pose(roll, lean)))
        self.bed.set_raw(self.dev, self.dev.raw_for(pose(roll, lean)))
        wait_trace(self.path,
                   lambda r: r["type"] == "sample" and all(abs(a - b) < 1e-9 for a, b in zip(r["accel"], got)),
                   "sample at roll %s lean %s" % (roll, lean))


@pytest.fixture
def fixture_trace(bed_factory, tmp_path):
    """A trace recorded while the fixture is tilted along a path."""
    rec = Recording(bed_factory, tmp_path)
    for roll, lean in [(0.1, 0.0), (0.0, -0.05), (-0.15, 0.08), (0.05, 0.02)]:
        rec.tilt(roll, lean)
    assert rec.d.stop() == 0
    path = rec.path
    recorded = read_trace(path, final=True)
    assert recorded[0]["type"] == "header" and recorded[0]["run"]["part"] == 0
    assert recorded[0]["sensor"]["selector"] == "auto"
    # Every reading is in the trace: the baseline's own readings as `reading` records.
    assert len(read_trace(path, "reading", final=True)) == 9
    assert len({tuple(s["accel"]) for s in read_trace(path, "sample", final=True)}) >= 5
    return path


SAMPLE_FIELDS = ["t", "seq", "accel", "dpitch", "droll", "focal"]


@pytest.mark.parametrize("speed", ["max", "1"])
def test_trace_as_sensor_reproduces_the_recording_bit_for_bit(fixture_trace, tmp_path, speed):
    out = str(tmp_path / "again.jsonl")
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + fixture_trace, "--set", "Sensor.trace_speed=" + speed,
                     "--set", "Attitude.filter=none", "--set", "Sink.type=null", "--set", "Trace.path=" + out)
    assert r.returncode == 0, r.stderr
    first, second = read_trace(fixture_trace, "sample", final=True), read_trace(out, "sample", final=True)
    assert len(second) == len(first) > 20
    # Exact equality, t included: the trace clock processes each reading at its recorded t.
    for a, b in zip(first, second):
        assert {k: a[k] for k in SAMPLE_FIELDS} == {k: b[k] for k in SAMPLE_FIELDS}
    assert ([b["up"] for b in read_trace(out, "baseline", final=True)]
            == [b["up"] for b in read_trace(fixture_trace, "baseline", final=True)])
    h = read_trace(out, final=True)[0]
    assert h["type"] == "header" and h["sensor"]["device"] == "trace:" + fixture_trace


def test_trace_as_sensor_replays_a_recapture(bed_factory, tmp_path):
    """SIGUSR1 during a recording: the trace says so (a `recapture` record), and the trace
    replayed as the sensor captures its second baseline at the same reading, so every
    tilt after it comes back bit for bit too."""
    import signal
    rec = Recording(bed_factory, tmp_path)
    path = rec.path
    rec.tilt(0.1, -0.05)
    rec.d.p.send_signal(signal.SIGUSR1)
    wait_trace(path, lambda r: r["type"] == "recapture" and r["reason"] == "SIGUSR1", "recapture record")
    wait_trace(path, lambda r: r["type"] == "baseline" and len(read_trace(path, "baseline")) == 2, "second baseline")
    rec.tilt(-0.1, 0.05)
    assert rec.d.stop() == 0
    recorded_samples = read_trace(path, "sample", final=True)
    # After the recapture the tilts are against the new baseline (taken at roll 0.1).
    last = recorded_samples[-1]
    assert last["droll"] < -0.15

    out = str(tmp_path / "again.jsonl")
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + path, "--set", "Sensor.trace_speed=max",
                     "--set", "Attitude.filter=none", "--set", "Sink.type=null", "--set", "Trace.path=" + out)
    assert r.returncode == 0, r.stderr
    again = read_trace(out, "sample", final=True)
    assert len(again) == len(recorded_samples) > 10
    for a, b in zip(recorded_samples, again):
        assert {k: a[k] for k in SAMPLE_FIELDS} == {k: b[k] for k in SAMPLE_FIELDS}
    assert ([b["up"] for b in read_trace(out, "baseline", final=True)]
            == [b["up"] for b in read_trace(path, "baseline", final=True)])
    assert [x["reason"] for x in read_trace(out, "recapture", final=True)] == ["SIGUSR1"]


@pytest.mark.usefixtures("realtime")     # it counts the samples of a demo run in real time
def test_trace_as_sensor_is_deterministic_with_the_filter_on(tmp_path):
    """The One Euro filter depends on the time between samples: on the trace clock the
    times are the recorded ones, so even the filtered tilts come back bit for bit."""
    demo = tmp_path / "demo"
    r = r_demo = run_shimmerd("demo", "--out", str(demo))
    assert r.returncode == 0, r.stderr
    rec = str(demo / "trace.jsonl")
    out = str(tmp_path / "again.jsonl")
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + rec, "--set", "Sensor.trace_speed=max",
                     "--set", "Sink.type=null", "--set", "Trace.path=" + out, "--set", "Card.scale=1",
                     "--set", "Sink.fps=15")
    assert r.returncode == 0, r.stderr
    first, second = read_trace(rec, "sample", final=True), read_trace(out, "sample", final=True)
    # The demo reads its simulated sensor in real time: a loaded machine gives fewer
    # samples; a hundred is plenty to show the filter is replayed exactly.
    assert len(first) > 100 and len(second) == len(first)
    assert all({k: a[k] for k in SAMPLE_FIELDS} == {k: b[k] for k in SAMPLE_FIELDS} for a, b in zip(first, second))
    assert max(abs(s["droll"]) for s in second) > 0.1

    # The animation shows each frame until the next was published, the last until the end
    # of the run: its delays are the gaps between the trace's publish times.
    seconds = int(re.search(r"^demo: (\d+) s of simulated tilting", r_demo.stdout, re.M).group(1))
    published = [f["published"] for f in read_trace(rec, "frame", final=True)]
    delays = apng_delays(demo / "shimmer.png")
    assert len(delays) == len(published) > 10
    gaps = [b - a for a, b in zip(published, published[1:])] + [seconds - published[-1]]
    for delay, gap in zip(delays, gaps):
        assert abs(delay - gap) <= 0.0011, (delay, gap)
    assert abs(sum(delays) - (seconds - published[0])) <= 0.0011
    assert max(delays) > 2 * min(delays), "frames published on change are shown for different times"


def test_trace_sensor_missing_file_is_66(tmp_path):
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + str(tmp_path / "none.jsonl"), "--set", "Sink.type=null")
    assert r.returncode == 66 and "none.jsonl" in r.stderr


# --- replay ---------------------------------------------------------------------------

def apng_frame_count(path):
    data = open(path, "rb").read()
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"acTL":
            return struct.unpack(">I", data[pos + 8:pos + 12])[0]
        pos += 12 + length
    raise AssertionError("no acTL chunk")


def apng_delays(path):
    """Each frame's fcTL delay_num / delay_den, in seconds (a zero denominator is 1/100 s)."""
    data = open(path, "rb").read()
    pos, delays = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"fcTL":
            num, den = struct.unpack(">HH", data[pos + 8 + 20:pos + 8 + 24])
            delays.append(num / (den or 100))
        pos += 12 + length
    return delays


def test_replay_5s_trace_frame_count_and_a_frame_equals_render(tmp_path):
    trace = str(tmp_path / "five.jsonl")
    synthetic_trace(trace, seconds=5.0, fps=30)
    frames_dir = tmp_path / "frames"
    r = run_shimmerd("replay", trace, "--out", str(frames_dir) + "/")
    assert r.returncode == 0, r.stderr
    # 5 s at the header's 30 fps: frames at 0, 1/30, ... 5 s: 151.
    pngs = sorted(p for p in os.listdir(frames_dir) if p.startswith("frame-"))
    index = read_trace(str(frames_dir / "frames.jsonl"), final=True)
    assert len(pngs) == 151 and len(index) == 151 and pngs[-1] == "frame-000151.png"
    assert [f["t"] for f in index[:3]] == [0, 1 / 30, 2 / 30] and index[-1]["t"] == 5
    # A frame far from the origin equals `shimmerd render` of its focal point.
    k = max(range(151), key=lambda i: abs(index[i]["focal"][0] - 175) + abs(index[i]["focal"][1] - H))
    fx, fy = index[k]["focal"]
    assert abs(fx - 175) > 30
    rendered = tmp_path / "render.png"
    r = run_shimmerd("render", "--focal", "%r,%r" % (fx, fy), "--set", "Card.scale=1", "--out", str(rendered))
    assert r.returncode == 0, r.stderr
    assert png_rgba(str(frames_dir / pngs[k])) == png_rgba(str(rendered))

    # The same frames as raw XRGB8888 (bytes B, G, R, X), stride width * 4.
    raw = tmp_path / "five.raw"
    r = run_shimmerd("replay", trace, "--out", str(raw))
    assert r.returncode == 0, r.stderr
    w, h, rows = png_rgba(str(rendered))
    frame_bytes = w * h * 4
    assert (w, h) == (350, 233) and os.path.getsize(raw) == 151 * frame_bytes
    with open(raw, "rb") as f:
        f.seek(k * frame_bytes)
        frame = f.read(frame_bytes)
    for y in (40, 120, 200):
        for x in range(0, w, 7):
            r_, g_, b_, a_ = rows[y][x * 4:x * 4 + 4]
            if a_ == 255:
                assert frame[(y * w + x) * 4:(y * w + x) * 4 + 3] == bytes([b_, g_, r_])

    # An animated PNG, and --set overriding the recorded frame rate.
    anim = tmp_path / "five.apng"
    r = run_shimmerd("replay", trace, "--out", str(anim), "--set", "Sink.fps=10")
    assert r.returncode == 0, r.stderr
    assert apng_frame_count(anim) == 51


def test_replay_raw_to_stdout_feeds_ffmpeg(tmp_path):
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg not installed (scripts/setup.sh installs it)")
    trace = str(tmp_path / "two.jsonl")
    synthetic_trace(trace, seconds=2.0, fps=15)
    replay = subprocess.Popen([SHIMMERD, "replay", trace, "--out", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    probe = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "bgr0", "-s", "350x233", "-r", "15",
                            "-i", "-", "-f", "framemd5", "-"], stdin=replay.stdout, capture_output=True, text=True,
                           timeout=120)
    replay.stdout.close()
    assert replay.wait(timeout=60) == 0
    assert probe.returncode == 0, probe.stderr
    assert len([line for line in probe.stdout.splitlines() if line and not line.startswith("#")]) == 31


def test_replay_output_kind_follows_the_name(tmp_path):
    """An animated PNG for FILE.png, PNG frames in a directory that exists or is named
    with a trailing /, raw frames for - (stdout); any other name is refused with exit 64
    naming the kinds replay writes, and nothing is created (r.mp4 was once a directory
    of PNGs)."""
    trace = str(tmp_path / "one.jsonl")
    synthetic_trace(trace, seconds=1.0, fps=10)
    frame_bytes = 350 * 233 * 4

    assert run_shimmerd("replay", trace, "--out", str(tmp_path / "r.png")).returncode == 0
    assert (tmp_path / "r.png").is_file() and apng_frame_count(tmp_path / "r.png") == 11
    existing = tmp_path / "existing"
    existing.mkdir()
    assert run_shimmerd("replay", trace, "--out", str(existing)).returncode == 0
    assert len([n for n in os.listdir(existing) if n.startswith("frame-")]) == 11
    assert run_shimmerd("replay", trace, "--out", str(tmp_path / "new") + "/").returncode == 0
    assert len([n for n in os.listdir(tmp_path / "new") if n.startswith("frame-")]) == 11
    r = subprocess.run([SHIMMERD, "replay", trace, "--out", "-"], capture_output=True, timeout=120)
    assert r.returncode == 0 and len(r.stdout) == 11 * frame_bytes

    for name in ("r.mp4", "frames"):
        r = run_shimmerd("replay", trace, "--out", str(tmp_path / name))
        assert r.returncode == 64, r.stderr
        assert r.stderr.count("\n") == 1
        assert "--out %s: not an output replay knows by its name" % (tmp_path / name) in r.stderr
        for kind in ("DIR/", "an existing directory", "FILE.png", "FILE.apng", "FILE.raw", "- (raw"):
            assert kind in r.stderr, (kind, r.stderr)
        assert not os.path.lexists(tmp_path / name)


@pytest.mark.usefixtures("realtime")     # the demo runs in real time
def test_replay_recipe_of_the_traces_document_makes_a_video_of_the_demo(tmp_path):
    """docs/TRACES.md's ffmpeg recipe, as written, on the demo's trace (350 x 233 at 15
    fps, not the daemon's 700 x 467 at 60): ffmpeg decodes whole frames, all of them,
    at the replay's size, and the video lasts what the replay does."""
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg not installed (scripts/setup.sh installs it)")
    doc = open(os.path.join(REPO, "docs", "TRACES.md")).read()
    recipe = [line.strip() for line in doc.splitlines()
              if line.startswith("    ") and ("--print-size" in line or ("--out -" in line and "ffmpeg" in line))]
    assert len(recipe) == 2, recipe
    demo = tmp_path / "demo"
    assert run_shimmerd("demo", "--out", str(demo)).returncode == 0
    script = "\n".join(recipe).replace("trace.jsonl", str(demo / "trace.jsonl"))
    script = script.replace("shimmer.mp4", str(tmp_path / "shimmer.mp4"))
    env = dict(os.environ, PATH=os.path.dirname(SHIMMERD) + ":" + os.environ["PATH"])
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=300,
                       env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Invalid buffer size" not in r.stderr and "frame_size" not in r.stderr, r.stderr[-3000:]
    wrote = re.search(r"wrote (\d+) frames \(([0-9.]+) s at 15.00 fps, 350 x 233 px", r.stderr)
    assert wrote, r.stderr[-3000:]
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                            "stream=width,height,nb_read_frames:format=duration", "-of", "json",
                            str(tmp_path / "shimmer.mp4")], capture_output=True, text=True, timeout=120)
    info = json.loads(probe.stdout)
    stream = info["streams"][0]
    assert 350 <= stream["width"] <= 351 and 233 <= stream["height"] <= 234
    assert int(stream["nb_read_frames"]) == int(wrote.group(1))
    print("replay recipe: %s frames, %s s replayed, video %s s" % (wrote.group(1), wrote.group(2),
                                                                   info["format"]["duration"]))
    assert abs(float(info["format"]["duration"]) - float(wrote.group(2))) <= 0.1 * float(wrote.group(2))


def test_replay_progress_bar_on_a_terminal(tmp_path):
    trace = str(tmp_path / "one.jsonl")
    synthetic_trace(trace, seconds=1.0, fps=10)
    master, slave = pty.openpty()
    p = subprocess.Popen([SHIMMERD, "replay", trace, "--out", str(tmp_path / "x.raw")], stderr=slave,
                         stdout=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert p.wait(timeout=60) == 0
    os.close(master)
    text = out.decode()
    assert "\r[" in text and "11/11 frames" in text


def test_replay_ends_with_a_one_line_summary(tmp_path):
    """Off a terminal there is no progress bar: the only line says what was written,
    how long it plays and where."""
    trace = str(tmp_path / "one.jsonl")
    synthetic_trace(trace, seconds=1.0, fps=10)
    out = str(tmp_path / "x.raw")
    r = run_shimmerd("replay", trace, "--out", out)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "shimmerd: wrote 11 frames (1.10 s at 10.00 fps, 350 x 233 px, focal points from samples) to %s" % out
    ], r.stderr
    assert os.path.getsize(out) == 11 * 350 * 233 * 4


def test_replay_at_the_recorded_times_paints_the_frames_the_daemon_painted(bed_factory, tmp_path):
    """The daemon paints PNG frames (its filter on) while the fixture is tilted and left
    to settle; `replay --at frames` of its trace, which draws from the trace's readings
    and targets through the daemon's own spring, paints the same frames, pixel for pixel."""
    painted = tmp_path / "daemon"
    rec = Recording(bed_factory, tmp_path, "Sink.type=png", "Sink.path=" + str(painted), "Card.scale=0.5")
    for roll, lean in [(0.3, 0.0), (0.0, -0.2), (-0.25, 0.15), (0.1, 0.05)]:
        rec.tilt(roll, lean)
        time.sleep(0.3)
    assert rec.d.stop() == 0
    recorded = read_trace(rec.path, "frame", final=True)
    replayed = tmp_path / "replayed"
    r = run_shimmerd("replay", rec.path, "--at", "frames", "--out", str(replayed) + "/")
    assert r.returncode == 0, r.stderr
    index = read_trace(str(replayed / "frames.jsonl"), final=True)
    assert len(index) == len(recorded) > 20
    assert [f["t"] for f in index] == [f["t"] for f in recorded]
    assert [f["focal"] for f in index] == [f["focal"] for f in recorded]
    daemon_pngs = sorted(p for p in os.listdir(painted) if p.startswith("frame-"))
    assert len(daemon_pngs) == len(recorded)
    moved = {tuple(f["focal"]) for f in recorded}
    assert len(moved) > 10, "the frames should follow the tilts"
    for name in daemon_pngs:
        assert png_rgba(str(painted / name)) == png_rgba(str(replayed / name)), name


def test_replay_from_frames_holds_the_recorded_points(tmp_path):
    trace = tmp_path / "frames.jsonl"
    lines = [header(fps=4),
             {"type": "frame", "t": 0.0, "frame": 1, "focal": [175, H], "dots": 175, "pixels": 1},
             {"type": "frame", "t": 0.5, "frame": 2, "focal": [120, 200], "dots": 175, "pixels": 1},
             {"type": "frame", "t": 1.0, "frame": 3, "focal": [230, 260], "dots": 175, "pixels": 1}]
    trace.write_text("".join(json.dumps(r) + "\n" for r in lines))
    r = run_shimmerd("replay", str(trace), "--out", str(tmp_path / "out") + "/", "--from", "frames")
    assert r.returncode == 0, r.stderr
    assert [f["focal"] for f in read_trace(str(tmp_path / "out" / "frames.jsonl"), final=True)] == \
        [[175, H], [175, H], [120, 200], [120, 200], [230, 260]]


# --- plot -----------------------------------------------------------------------------

def test_plot_counts_one_baseline_in_the_singular(tmp_path):
    trace = str(tmp_path / "t.jsonl")
    lines = synthetic_trace(trace, seconds=1.0, fps=10)
    assert sum(1 for x in lines if x["type"] == "baseline") == 1
    svg = str(tmp_path / "t.svg")
    r = run_shimmerd("plot", trace, "--out", svg)
    assert r.returncode == 0, r.stderr
    samples = sum(1 for x in lines if x["type"] == "sample")
    assert r.stderr.splitlines() == ["shimmerd: wrote %s: %d samples, 1 baseline" % (svg, samples)], r.stderr


def test_plot_is_valid_svg_with_series_axes_and_baselines(tmp_path):
    trace = str(tmp_path / "t.jsonl")
    lines = synthetic_trace(trace, seconds=5.0)
    with open(trace, "a") as f:  # a second capture (SIGUSR1) later in the run
        f.write(json.dumps({"type": "baseline", "t": 3.0, "up": [0, 1, 0]}) + "\n")
    svg = tmp_path / "t.svg"
    r = run_shimmerd("plot", trace, "--out", str(svg))
    assert r.returncode == 0, r.stderr
    root = ET.parse(svg).getroot()
    assert root.tag == SVG + "svg"
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    samples = [r for r in lines if r["type"] == "sample"]
    for sid in ["series-dpitch", "series-droll", "series-focal-x", "series-focal-y", "series-focal-path"]:
        assert by_id[sid].tag == SVG + "polyline"
        assert len(by_id[sid].get("points").split()) == len(samples), sid
    assert by_id["card-outline"].tag == SVG + "rect"

    # dRoll is the larger swing: its polyline spans more of the panel's height.
    def spread(sid):
        ys = [float(p.split(",")[1]) for p in by_id[sid].get("points").split()]
        return max(ys) - min(ys)
    assert spread("series-droll") > spread("series-dpitch") > 10
    texts = {e.text for e in root.iter(SVG + "text")}
    assert {"time (s)", "tilt (rad)", "focal point (pt)", "x (pt)", "y (pt, down)"} <= texts
    for axis in ["axis-tilt", "axis-focal", "axis-card"]:
        labels = [e.text for e in by_id[axis].iter(SVG + "text")]
        assert len(labels) >= 6, axis
    markers = [e for e in root.iter(SVG + "line") if e.get("class") == "baseline-marker"]
    assert sorted(float(m.get("data-t")) for m in markers) == [0.0, 0.0, 3.0, 3.0]
    if shutil.which("rsvg-convert"):
        png = tmp_path / "t.png"
        assert subprocess.run(["rsvg-convert", str(svg), "-o", str(png)]).returncode == 0
        w, h = png_size(str(png))
        assert w == 960 and h > 900


# --- the reader's tolerance and its errors ----------------------------------------------

def damaged(tmp_path, lines, tail):
    p = tmp_path / "damaged.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines) + tail)
    return str(p)


def test_truncated_last_line_unknown_type_and_field_are_read(tmp_path):
    lines = synthetic_trace(str(tmp_path / "src.jsonl"), seconds=1.0, fps=10)
    lines[6]["gyro"] = [0.1, 0.2, 0.3]                              # an unknown field
    lines.insert(8, {"type": "temperature", "t": 0.05, "celsius": 41})  # an unknown record type
    path = damaged(tmp_path, lines, '{"type":"sample","t":1.01,"seq":61,"acc')  # a crash mid-write
    r = run_shimmerd("plot", path, "--out", str(tmp_path / "p.svg"))
    assert r.returncode == 0, r.stderr
    assert "partial last line" in r.stderr
    r = run_shimmerd("replay", path, "--out", str(tmp_path / "p.raw"))
    assert r.returncode == 0, r.stderr
    assert os.path.getsize(tmp_path / "p.raw") == 11 * 350 * 233 * 4
    out = str(tmp_path / "again.jsonl")
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + path, "--set", "Sensor.trace_speed=max",
                     "--set", "Sink.type=null", "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3",
                     "--set", "Trace.path=" + out)
    assert r.returncode == 0, r.stderr
    # 3 readings + 61 samples; the 3-sample baseline completes on the third reading.
    assert len(read_trace(out, "sample", final=True)) == 62


def test_a_run_that_dropped_frames_plots_and_replays_its_dropped_records(bed_factory, tmp_path):
    """Raw frames into a FIFO nobody reads: every frame is `dropped` ("no reader"). plot
    and replay read those records as a known type (plot counts them), never as unknown."""
    fifo = str(tmp_path / "frames.fifo")
    os.mkfifo(fifo)
    rec = Recording(bed_factory, tmp_path, "Attitude.filter=none", "Sink.type=raw", "Sink.path=" + fifo)
    for roll, lean in [(0.1, 0.0), (-0.1, 0.05)]:
        rec.tilt(roll, lean)
    wait_trace(rec.path, lambda r: r["type"] == "dropped", "a dropped frame")
    assert rec.d.stop() == 0
    dropped = read_trace(rec.path, "dropped", final=True)
    assert dropped and all(d["reason"] == "no reader" and len(d["focal"]) == 2 for d in dropped)
    svg = tmp_path / "p.svg"
    r = run_shimmerd("plot", rec.path, "--out", str(svg))
    assert r.returncode == 0 and "unknown" not in r.stderr, r.stderr
    assert ", %d dropped" % len(dropped) in svg.read_text()
    r = run_shimmerd("replay", rec.path, "--out", str(tmp_path / "p.raw"))
    assert r.returncode == 0 and "unknown" not in r.stderr, r.stderr
    assert os.path.getsize(tmp_path / "p.raw") > 0


@pytest.mark.parametrize("command", ["plot", "replay", "run"])
def test_malformed_middle_line_is_65_naming_the_line(tmp_path, command):
    lines = synthetic_trace(str(tmp_path / "src.jsonl"), seconds=1.0, fps=10)
    text = "".join(json.dumps(r) + "\n" for r in lines).splitlines(keepends=True)
    text[9] = '{"type":"sample","t":0.1,"seq":"x"\n'
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(text))
    args = {"plot": ["plot", str(path), "--out", str(tmp_path / "p.svg")],
            "replay": ["replay", str(path), "--out", str(tmp_path / "p.raw")],
            "run": ["run", "--set", "Sensor.device=trace:%s" % path, "--set", "Sink.type=null"]}[command]
    r = run_shimmerd(*args)
    assert r.returncode == 65
    assert "%s:10:" % path in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not os.path.exists(tmp_path / "p.svg")


@pytest.mark.parametrize("command", ["plot", "replay"])
def test_missing_trace_is_66(tmp_path, command):
    out = tmp_path / ("x.svg" if command == "plot" else "x.raw")
    r = run_shimmerd(command, str(tmp_path / "none.jsonl"), "--out", str(out))
    assert r.returncode == 66 and "none.jsonl" in r.stderr


# --- trace hygiene --------------------------------------------------------------------

def test_trace_rotates_by_size_and_every_file_explains_itself(tmp_path):
    src = str(tmp_path / "src.jsonl")
    synthetic_trace(src, seconds=5.0)
    out = str(tmp_path / "rot.jsonl")
    r = run_shimmerd("run", "--set", "Sensor.device=trace:" + src, "--set", "Sensor.trace_speed=max",
                     "--set", "Sink.type=null", "--set", "Trace.path=" + out, "--set", "Trace.max_size=16K",
                     "--set", "Trace.max_files=3")
    assert r.returncode == 0, r.stderr
    names = sorted(os.listdir(tmp_path))
    assert [n for n in names if n.startswith("rot.jsonl")] == ["rot.jsonl", "rot.jsonl.1", "rot.jsonl.2"]
    parts = []
    for name in ["rot.jsonl.2", "rot.jsonl.1", "rot.jsonl"]:
        rs = read_trace(str(tmp_path / name), final=True)
        assert rs[0]["type"] == "header" and rs[1]["type"] == "baseline"
        assert rs[0]["run"]["started"].endswith("Z") and rs[0]["run"]["argv"][1] == "run"
        parts.append(rs[0]["run"]["part"])
        if name != "rot.jsonl":
            assert os.path.getsize(tmp_path / name) < 16384 + 400
    assert parts == sorted(parts) and parts[0] >= 1
    # The newest samples survive, contiguous across the kept files.
    kept = [s for name in ["rot.jsonl.2", "rot.jsonl.1", "rot.jsonl"]
            for s in read_trace(str(tmp_path / name), "sample", final=True)]
    seqs = [s["seq"] for s in kept]
    # 304 readings; those before the baseline are no samples (the loop never rests: its
    # baseline comes after 3 s). The last reading (t = 5 s) is the last sample.
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) and kept[-1]["t"] == 5.0
