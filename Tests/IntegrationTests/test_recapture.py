"""A new baseline where the device comes to rest far from the old one (a convertible
folded into tablet mode, a tablet laid down), and on a change of the kernel's tablet-mode
switch (SW_TABLET_MODE of an input device found with libudev): logged and traced as a
`recapture` with its reason, through the real binary."""
import json
import math
import os
import struct

from harness import G, Device, pose, read_trace, wait_trace, wait_until

SWITCH = "intel_vbtn_tablet_mode_switch"


def test_resting_far_from_the_baseline_captures_a_new_one(tmp_path):
    """Replayed as the sensor: flat for 2 s, then folded 40 degrees and left there."""
    src = tmp_path / "fold.jsonl"
    with open(src, "w") as f:
        for i in range(800):
            t = i / 100
            angle = 0 if t < 2 else math.radians(40)
            a = [0.0, -G * math.sin(angle), -G * math.cos(angle)]
            f.write(json.dumps({"type": "reading", "t": t, "accel": a, "use": "sensor"}) + "\n")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    out = tmp_path / "out.jsonl"
    from harness import SHIMMERD
    import subprocess
    p = subprocess.run([SHIMMERD, "run", "--config", str(conf), "--set", "Sensor.device=trace:%s" % src,
                        "--set", "Sensor.trace_speed=max", "--set", "Sink.type=null", "--set", "Trace.path=%s" % out],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    records = read_trace(out, final=True)
    [r] = [r for r in records if r["type"] == "recapture"]
    assert r["reason"] == "rested 3 s at 40 degrees from the baseline"
    assert 5 <= r["t"] <= 5.5
    assert "recapturing the baseline: rested 3 s at 40 degrees from the baseline" in p.stderr
    # The new baseline is the folded pose: the samples after it are level again.
    later = [s for s in records if s["type"] == "sample" and s["t"] > r["t"] + 0.5]
    assert later and all(abs(s["dpitch"]) < 1e-3 and abs(s["droll"]) < 1e-3 for s in later)
    # Turned off, the card stays pinned at the clamp.
    out2 = tmp_path / "out2.jsonl"
    p = subprocess.run([SHIMMERD, "run", "--config", str(conf), "--set", "Sensor.device=trace:%s" % src,
                        "--set", "Sensor.trace_speed=max", "--set", "Sink.type=null", "--set", "Trace.path=%s" % out2,
                        "--set", "Attitude.recapture_after=0"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and not any(r["type"] == "recapture" for r in read_trace(out2, final=True))


def test_the_tablet_mode_switch_captures_a_new_baseline(bed_factory, tmp_path):
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture, SWITCH)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    # The evdev node as a FIFO the test writes `struct input_event`s into (a writer stays
    # open, so the reader never sees an end).
    node = os.path.join(bed.root, "dev", "input", "event13")
    if os.path.lexists(node):
        os.unlink(node)
    os.makedirs(os.path.dirname(node), exist_ok=True)
    os.mkfifo(node)
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sink.type=null", "--set", "Sensor.mode=poll",
                  "--set", "Trace.path=" + trace, "--set", "Log.level=info")
    try:
        d.wait_log(r"tablet-mode switch /dev/input/event13 \(Intel Virtual Switches\)", "the switch found")
        wait_trace(trace, lambda r: r["type"] == "baseline", "the first baseline", d)

        def event(type_, code, value):
            return struct.pack("<qqHHi", 1_800_000_000, 0, type_, code, value)
        os.write(fd, event(0x05, 0x01, 1) + event(0x00, 0x00, 0))    # SW_TABLET_MODE = 1, SYN_REPORT
        d.wait_log(r"tablet-mode switch Intel Virtual Switches: tablet mode; capturing a new baseline", "the notice")
        recaptures = wait_until(lambda: [r for r in read_trace(trace) if r["type"] == "recapture"], "the recapture record",
                                daemon=d)
        assert recaptures[0]["reason"] == "tablet-mode switch Intel Virtual Switches: tablet mode"
        os.write(fd, event(0x05, 0x01, 0) + event(0x00, 0x00, 0))
        wait_until(lambda: any(r.get("reason") == "tablet-mode switch Intel Virtual Switches: laptop mode"
                               for r in read_trace(trace)), "the second recapture", daemon=d)
        assert d.stop() == 0
    finally:
        os.close(fd)
