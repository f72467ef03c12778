"""`shimmerd run` end to end: the real binary under umockdev with a fixture
accelerometer, the png sink, the trace, signals, the still device, SIGHUP reloads, the
systemd unit, and `shimmerd demo` without hardware or root."""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from support.harness import BMC150 as FIXTURE
from support.harness import REPO, SHIMMERD, WAIT, Device, close_to, expected_focal, pose, read_trace, tilt, wait_trace


def png_daemon(bed, tmp_path, *extra, config_text=""):
    """The daemon writing PNG frames to tmp_path/frames, with a trace, on the fixture's
    device polled at 30 Hz: (daemon, trace path, frames folder)."""
    conf = tmp_path / "shimmerd.conf"
    if not conf.exists():
        conf.write_text(config_text)
    args = ["run", "--config", str(conf),
            "--set", "Sink.type=png", "--set", "Sink.path=%s" % (tmp_path / "frames"),
            "--set", "Trace.path=%s" % (tmp_path / "trace.jsonl"),
            "--set", "Sensor.mode=poll", "--set", "Sensor.rate=30", "--set", "Sink.fps=30",
            "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3", *extra]
    return bed.spawn(*args), tmp_path / "trace.jsonl", tmp_path / "frames"


def feed(bed, dev, trace, d, accel, start):
    """Sets the raw attributes for `accel` and waits for the sample that carries them."""
    raw = dev.raw_for(accel)
    bed.set_raw(dev, raw)
    got = dev.accel_of(raw)
    return wait_trace(trace, lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
                      "sample with accel %s" % got, start=start, daemon=d)


def test_tilt_path_png_sink_and_trace(bed_factory, tmp_path):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    base_raw = dev.raw_for(pose(0, 0))
    bed.set_raw(dev, base_raw)
    baseline = dev.accel_of(base_raw)
    d, trace, frames = png_daemon(bed, tmp_path)
    i, _ = wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", daemon=d)
    # Rolls and top-edge tilts through and past the mapper's range (clamping).
    path = [(0.1, 0.0), (0.0, -0.05), (0.15, 0.03), (-0.3, 0.0), (0.0, 0.2), (0.05, -0.02), (0.0, 0.0)]
    for roll, lean in path:
        i, _ = feed(bed, dev, trace, d, pose(roll, lean), i)
    time.sleep(0.5)   # let the smoothed focal point reach the last target
    assert d.stop() == 0

    records = read_trace(trace)
    assert records[0]["type"] == "header" and records[0]["version"] == 1
    assert records[0]["card"]["origin"] == [175, 350 * 2 / 3]
    samples = [r for r in records if r["type"] == "sample"]
    # Every sample the daemon used is in the trace, in order, none missing.
    assert [s["seq"] for s in samples] == list(range(len(samples)))
    _, stopped = d.wait_log(r"stopped after (\d+) frames? and (\d+) samples?", "stop summary")
    n_frames, n_samples = map(int, re.search(r"after (\d+) frames? and (\d+) samples?", stopped).groups())
    assert n_samples == len(samples)
    for s in samples:
        dp, dr = tilt(baseline, s["accel"])
        assert s["dpitch"] == pytest.approx(dp, abs=1e-9)
        assert s["droll"] == pytest.approx(dr, abs=1e-9)
        assert s["focal"] == pytest.approx(expected_focal(s["dpitch"], s["droll"]), abs=1e-9)
    # The path visited both clamps.
    assert min(s["focal"][0] for s in samples) == pytest.approx(75)
    assert max(s["focal"][1] for s in samples) == pytest.approx(350 * 2 / 3 + 100) or \
        min(s["focal"][1] for s in samples) == pytest.approx(350 * 2 / 3 - 100)

    # Frames: one PNG per frame record; the last one equals `shimmerd render` of its focal point.
    frame_records = [r for r in records if r["type"] == "frame"]
    assert len(frame_records) == n_frames == len(os.listdir(frames))
    last = frame_records[-1]
    # A frame is published only when a dot's color changes, so the last frame may have
    # been drawn a fraction of a point before the smoothed point reached the target: it
    # must still be the picture of the target.
    checks = [(frame_records[len(frame_records) // 2], None), (last, None), (last, samples[-1]["focal"])]
    for r, focal in checks:
        focal = focal or r["focal"]
        png = frames / ("frame-%06d.png" % r["frame"])
        ref = tmp_path / "ref.png"
        out = subprocess.run([SHIMMERD, "render", "--focal", "%r,%r" % tuple(focal), "--out", str(ref)],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert png.read_bytes() == ref.read_bytes(), "frame %d differs from render of %s" % (r["frame"], focal)


def test_still_device_writes_no_frames(bed_factory, tmp_path):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0.05, 0.02)))
    d, trace, frames = png_daemon(bed, tmp_path, "--set", "Attitude.filter=one-euro")
    wait_trace(trace, lambda r: r["type"] == "sample", "first sample", daemon=d)
    # A tilt, then stillness: frames follow the move, then stop once the point settles.
    i, _ = feed(bed, dev, trace, d, pose(0.12, -0.04), 0)
    deadline = time.monotonic() + WAIT
    count = -1
    while True:
        time.sleep(1.0)
        now = len(os.listdir(frames))
        if now == count:
            break
        count = now
        assert time.monotonic() < deadline, "frames never stopped"
    time.sleep(5)
    assert len(os.listdir(frames)) == count, "frames were written while the device lay still"
    assert d.stop() == 0
    records = read_trace(trace)
    last_frame = max(r["t"] for r in records if r["type"] == "frame")
    end = max(r.get("t", 0) for r in records)
    # The sensor is still read, but slowly: 2.5 s after the last frame (2 s without motion
    # makes the device "still") reads run at the idle 10 Hz, not at Sensor.rate = 30.
    window = [r for r in records if r["type"] == "sample" and last_frame + 2.5 <= r["t"] <= end]
    span = end - (last_frame + 2.5)
    assert span >= 2, span
    assert len(window) >= 1, "the sensor must still be read"
    assert len(window) <= span * 10 + 2, (len(window), span)


def test_sighup_reloads_valid_and_keeps_running_on_invalid(bed_factory, tmp_path):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("[Mapper]\nmax_offset = 100\n")
    d, trace, _ = png_daemon(bed, tmp_path)
    i, _ = wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", daemon=d)
    i, s = feed(bed, dev, trace, d, pose(0.15, 0), i)
    assert s["droll"] == pytest.approx(0.15, abs=0.004)
    assert s["focal"][0] == pytest.approx(175 + s["droll"] / 0.2 * 100, abs=1e-9)

    # Valid: the new max_offset applies; the baseline is recaptured at the current pose.
    conf.write_text("[Mapper]\nmax_offset = 50\n")
    d.p.send_signal(1)
    d.wait_log("configuration reloaded", "reload")
    i, _ = wait_trace(trace, lambda r: r["type"] == "baseline", "new baseline", start=i + 1, daemon=d)
    i, s = feed(bed, dev, trace, d, pose(0, 0), i)
    assert s["droll"] == pytest.approx(-0.15, abs=0.004)
    assert s["focal"] == pytest.approx(expected_focal(s["dpitch"], s["droll"], 50), abs=1e-9)
    i, s = feed(bed, dev, trace, d, pose(-0.1, 0), i)          # -0.25 rad: clamped at -50
    assert s["focal"][0] == pytest.approx(175 - 50, abs=1e-9)

    # Invalid: one log line naming file:line; the running configuration stays.
    conf.write_text("[Mapper]\nmax_offset = lots\n")
    n = len(d.logs)
    d.p.send_signal(1)
    _, line = d.wait_log(r"not reloaded", "rejected reload", start=n)
    assert "%s:2" % conf in line and "max_offset" in line
    i, s = feed(bed, dev, trace, d, pose(0.3, 0), i)            # +0.15 rad against the new baseline
    assert d.poll() is None
    assert s["focal"] == pytest.approx(expected_focal(s["dpitch"], s["droll"], 50), abs=1e-9)
    assert s["focal"][0] == pytest.approx(175 + 37.5, abs=0.5)
    assert d.stop() == 0


def test_sigterm_flushes_the_trace_promptly(bed_factory, tmp_path):
    """SIGTERM loses nothing: every sample counted in the log is in the trace."""
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d, trace, _ = png_daemon(bed, tmp_path, "--set", "Sensor.rate=100")
    wait_trace(trace, lambda r: r["type"] == "sample", "a sample", daemon=d)
    assert d.stop() == 0
    _, stopped = d.wait_log(r"stopped after", "stop summary")
    n = int(re.search(r"and (\d+) samples?", stopped).group(1))
    assert len([r for r in read_trace(trace) if r["type"] == "sample"]) == n
    assert open(trace).read().endswith("\n")


def documented_signals():
    """The signals shimmerd(8) lists (`shimmerd man shimmerd.8`, "SIGNALS")."""
    page = subprocess.run([SHIMMERD, "man", "shimmerd.8"], capture_output=True, text=True, check=True).stdout
    section = page.split('.SH "SIGNALS"\n', 1)[1].split("\n.SH ", 1)[0]
    return re.findall(r"^\\fB(SIG[A-Z0-9]+)\\fR$", section, re.M)


# What each signal visibly does to a running daemon (README "Running", shimmerd(8)).
SIGNAL_EFFECTS = {"SIGTERM": "exits 0", "SIGINT": "exits 0", "SIGQUIT": "exits 0", "SIGHUP": "configuration reloaded",
                  "SIGUSR1": "recapture", "SIGUSR2": "console switch"}


def test_the_manual_page_lists_the_signals_the_daemon_acts_on():
    assert sorted(documented_signals()) == sorted(SIGNAL_EFFECTS)


@pytest.mark.parametrize("name", sorted(SIGNAL_EFFECTS))
def test_each_documented_signal_does_what_the_manual_page_says(bed_factory, tmp_path, name):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d, trace, _ = png_daemon(bed, tmp_path)
    i, _ = wait_trace(trace, lambda r: r["type"] == "baseline", "baseline", daemon=d)
    n = len(d.logs)
    d.p.send_signal(getattr(signal, name))
    effect = SIGNAL_EFFECTS[name]
    if effect == "exits 0":
        assert d.wait(timeout=WAIT) == 0
    elif effect == "configuration reloaded":
        d.wait_log("configuration reloaded", name, start=n)
        wait_trace(trace, lambda r: r["type"] == "baseline", "a new baseline", start=i + 1, daemon=d)
        assert d.stop() == 0
    elif effect == "console switch":
        # No display sink and no switch pending: nothing changes, the daemon reads on
        # (test_drm.py and test_sinks.py switch VTs under a display sink).
        before = len(read_trace(trace))
        dev_pose = dev.raw_for(pose(0.2, 0))
        bed.set_raw(dev, dev_pose)
        wait_trace(trace, lambda r: r["type"] == "sample", "a sample after SIGUSR2", start=before, daemon=d)
        assert d.poll() is None
        assert d.stop() == 0
    else:
        wait_trace(trace, lambda r: r["type"] == "recapture" and r["reason"] == name, "recapture", daemon=d)
        assert d.stop() == 0


def test_duration_stops_cleanly(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    d, trace, _ = png_daemon(bed, tmp_path, "--duration", "1.5")
    assert d.wait(timeout=WAIT) == 0
    assert read_trace(trace)[0]["type"] == "header"


def test_systemd_unit_verifies_and_is_hardened(tmp_path):
    unit = open(os.path.join(REPO, "systemd", "shimmerd.service")).read()
    assert "Type=notify" in unit and "WatchdogSec=" in unit and "User=shimmerd" in unit
    # systemd-analyze verify checks that ExecStart exists: point it at the built binary.
    copy = tmp_path / "shimmerd.service"
    copy.write_text(unit.replace("/usr/local/bin/shimmerd", SHIMMERD))
    r = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "shimmerd.service" not in r.stderr, r.stderr
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", str(copy)], capture_output=True, text=True)
    level = float(re.search(r"Overall exposure level for shimmerd.service: ([0-9.]+)", r.stdout).group(1))
    assert level <= 1.2, r.stdout
    # Ordering after the deprecated systemd-udev-settle.service would hold the boot up.
    assert "systemd-udev-settle" not in unit


def test_the_unit_does_not_restart_a_daemon_whose_command_line_or_configuration_is_wrong(tmp_path):
    """Restart=on-failure would start a daemon that cannot start every RestartSec; the unit
    lists the exit codes the daemon gives for a wrong command line and a configuration that
    does not load in RestartPreventExitStatus=, and those are the codes it gives."""
    unit = open(os.path.join(REPO, "systemd", "shimmerd.service")).read()
    prevented = set(re.search(r"^RestartPreventExitStatus=(.*)$", unit, re.M).group(1).split())
    usage = subprocess.run([SHIMMERD, "run", "--no-such-option"], capture_output=True, text=True, timeout=30)
    broken = tmp_path / "broken.conf"
    broken.write_text("[Sink]\ntype = teletype\n")
    configuration = subprocess.run([SHIMMERD, "run", "--config", str(broken)], capture_output=True, text=True,
                                   timeout=30)
    assert (usage.returncode, configuration.returncode) == (64, 78), (usage.stderr, configuration.stderr)
    assert "teletype" in configuration.stderr, configuration.stderr
    assert prevented == {"64", "78"}, prevented


def test_demo_without_hardware_or_root(tmp_path):
    # A directory anyone may enter (pytest's own tmp_path lives under a 0700 directory).
    shared = tempfile.mkdtemp(prefix="shimmerd-demo-", dir="/tmp")
    os.chmod(shared, 0o777)
    out = Path(shared) / "out" / "demo"
    prefix = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root"
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
    r = subprocess.run([*prefix, SHIMMERD, "demo", "--out", str(out)], capture_output=True, text=True,
                       timeout=120, env=env, cwd=shared)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "open %s/shimmer.png" % out in r.stdout
    frames = sorted(os.listdir(out / "frames"))
    assert len(frames) > 30 and frames[0] == "frame-000001.png"
    animation = (out / "shimmer.png").read_bytes()
    assert animation[:8] == b"\x89PNG\r\n\x1a\n" and b"acTL" in animation[:100]
    assert animation.count(b"fcTL") == len(frames)
    records = read_trace(out / "trace.jsonl")
    assert records[0]["type"] == "header" and records[0]["sensor"]["device"] == "simulated"
    assert sum(1 for r in records if r["type"] == "sample") > 100   # real time: fewer on a loaded machine
    shutil.rmtree(shared)


@pytest.mark.usefixtures("realtime")     # it counts the frames of two runs
def test_demo_at_scale_2_keeps_the_frame_rate_of_scale_1(tmp_path):
    """A frame of the card at scale 2 (1400 x 934) takes tens of milliseconds to compress:
    the png sink's writer thread does that beside the loop, so the demo's path gives as
    many frames at scale 2 as at scale 1 (the ratio of two runs on this machine), every
    frame traced is a file, and the progress has a line for every second announced, the
    still start and the settled end included."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
    frames = {}
    for scale in (1, 2):
        out = tmp_path / ("scale-%d" % scale)
        r = subprocess.run([SHIMMERD, "demo", "--out", str(out), "--set", "Card.scale=%d" % scale,
                            "--set", "Sink.fps=30"], capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        announced = int(re.search(r"^demo: (\d+) s of simulated tilting", r.stdout, re.M).group(1))
        assert re.findall(r"^demo: (\d+) s, ", r.stdout, re.M) == [str(s) for s in range(1, announced + 1)], r.stdout
        assert "lies still for the first" in r.stdout
        traced = read_trace(out / "trace.jsonl", "frame")
        assert len(os.listdir(out / "frames")) == len(traced)
        frames[scale] = len(traced)
    print("demo frames at Sink.fps = 30: scale 1: %d, scale 2: %d" % (frames[1], frames[2]))
    assert frames[2] >= 0.9 * frames[1], frames


def test_sd_notify_ready_status_watchdog_stopping(bed_factory, tmp_path):
    """The real libsystemd sd_notify against a notification socket of our own, as the
    service manager would hold it."""
    import socket
    sock_path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(0.2)
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    conf = tmp_path / "shimmerd.conf"
    conf.write_text("")
    # WATCHDOG_USEC=400000: the loop must ping every 0.2 s even while the card is still.
    d = bed.spawn("run", "--config", str(conf), "--set", "Sink.type=null", "--set", "Sensor.mode=poll",
                  "--set", "Sensor.rate=10", extra_env={"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "400000"})
    messages = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and sum(m == "WATCHDOG=1" for m in messages) < 5:
        try:
            messages.append(sock.recv(4096).decode())
        except socket.timeout:
            pass
    ready = [m for m in messages if m.startswith("READY=1")]
    assert ready, messages
    assert "STATUS=sensor: " in ready[0] and "sink: null" in ready[0]
    assert sum(m == "WATCHDOG=1" for m in messages) >= 5
    assert d.stop() == 0
    sock.settimeout(2)
    rest = []
    try:
        while True:
            rest.append(sock.recv(4096).decode())
    except socket.timeout:
        pass
    assert "STOPPING=1" in rest
    sock.close()
