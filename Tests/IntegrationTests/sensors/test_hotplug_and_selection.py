"""Hotplug through udev uevents (detach, wait, resume with a new baseline, no restart)
and the choice of the display accelerometer on a convertible."""
import math
import re

import pytest

from support.harness import NO_FILTER as ARGS
from support.harness import Device, close_to, pose


@pytest.mark.parametrize("mode", ["poll", "buffer"])
def test_remove_and_add_back_resumes_with_a_new_baseline(bed_factory, mode):
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.mode=" + mode, *ARGS)
    d.wait_for(lambda r: r["type"] == "sample", "first sample")
    pid_records = len(d.records)

    bed.remove(dev.syspath)
    i, gone = d.wait_for(lambda r: r["type"] == "detached", "detached", start=pid_records)
    assert gone["device"].startswith(dev.id)
    d.wait_for(lambda r: r["type"] == "waiting", "waiting", start=i)
    last_seq = max(r["seq"] for r in d.samples())

    # The device comes back in another pose: the baseline must be taken again.
    new_accel = pose(0.3, 0.2)
    raw = dev.raw_for(new_accel)
    block = dev.text.split("\n\n")[0]
    for axis, v in zip("xyz", raw):
        block = re.sub(r"A: in_accel_%s_raw=.*" % axis, "A: in_accel_%s_raw=%d\\\\n" % (axis, v), block)
    block = re.sub(r"N: iio:device0=.*", "N: iio:device0=" + dev.scans(new_accel).hex().upper(), block)
    bed.add(block + "\n")

    i, back = d.wait_for(lambda r: r["type"] == "attached", "attached again", start=i)
    assert back["device"] == dev.id and back["mode"] == mode
    i, base = d.wait_for(lambda r: r["type"] == "baseline", "new baseline", start=i)
    got = dev.accel_of(raw)
    n = math.sqrt(sum(x * x for x in got))
    assert close_to(base["up"], [-x / n for x in got], 1e-6)
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample after resume", start=i)
    assert close_to(s["accel"], got, 1e-6)
    assert s["dpitch"] == pytest.approx(0, abs=1e-9) and s["droll"] == pytest.approx(0, abs=1e-9)
    assert s["seq"] > last_seq            # the same process: no restart
    assert d.poll() is None
    assert d.stop() == 0


def test_waits_for_an_accelerometer_and_attaches_when_it_appears(bed_factory):
    dev = Device("kxtf9_acer_iconia_a500")
    bed = bed_factory("kxtf9_acer_iconia_a500")
    bed.remove(dev.syspath)
    d = bed.spawn("monitor", "--json", *ARGS)
    _, w = d.wait_for(lambda r: r["type"] == "waiting", "waiting")
    assert "no usable accelerometer" in w["reason"]
    d.wait_log(r"waiting for an accelerometer", "waiting log line")
    bed.add(dev.text.split("\n\n")[0] + "\n")
    d.wait_for(lambda r: r["type"] == "attached", "attached")
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], dev.exp["accel_ms2"], 0.05)
    assert d.stop() == 0


@pytest.mark.parametrize("mode", ["poll", "buffer"])
def test_convertible_uses_the_display_accelerometer(bed_factory, mode):
    display = Device("kxcjk_teclast_f6pro_convertible", "iio:device1")
    base = Device("kxcjk_teclast_f6pro_convertible", "iio:device0")
    bed = bed_factory(display.fixture)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.mode=" + mode, *ARGS)
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert a["device"] == "iio:device1"
    assert "display accelerometer (udev:ACCEL_LOCATION)" in a["selection"]
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], display.exp["devices"]["iio:device1"]["accel_ms2"], 0.05)
    assert not close_to(s["accel"], base.exp["devices"]["iio:device0"]["accel_ms2"], 1.0)
    assert d.stop() == 0


def test_label_selector_picks_the_base(bed_factory):
    base = Device("kxcjk_teclast_f6pro_convertible", "iio:device0")
    bed = bed_factory(base.fixture)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.device=label:accel-base", *ARGS)
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert a["device"] == "iio:device0"
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], base.dev["accel_ms2"], 0.05)
    assert d.stop() == 0


def test_sigusr1_recaptures_the_baseline(bed_factory):
    import signal
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.mode=poll", *ARGS)
    i, _ = d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    new = pose(0.2, -0.1)
    raw = dev.raw_for(new)
    bed.set_raw(dev, raw)
    got = dev.accel_of(raw)
    i, s = d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6), "tilted", start=i)
    assert abs(s["droll"]) > 0.1
    d.p.send_signal(signal.SIGUSR1)
    i, b = d.wait_for(lambda r: r["type"] == "baseline", "recaptured baseline", start=i)
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample", start=i)
    assert s["droll"] == pytest.approx(0, abs=1e-9) and s["dpitch"] == pytest.approx(0, abs=1e-9)
    assert d.stop() == 0


def test_text_lines_like_monitor_sensor(bed_factory):
    bed = bed_factory("bmc150_bosc0200_ideapad_d330")
    r = bed.run("monitor", "--duration", "0.5", "--set", "Sensor.mode=poll", *ARGS)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("=== Accelerometer iio:device0 (BMA253/BMA254/BMA255/BMC150/BMC156/BMI055) attached, "
                               "poll mode")
    assert any(l.startswith("=== Baseline captured: up = (0.000, 0.985, 0.174)") for l in lines)
    assert ("    Accelerometer: x=0.000 y=-9.654 z=-1.705 m/s^2  dPitch=+0.00°  dRoll=+0.00°  focal=(175.0, 233.3)"
            in lines)
