"""When libiio 0.24 cannot build a local context at all (one device it cannot parse),
shimmerd reads the accelerometer's sysfs attributes directly and says so."""
import json

import pytest

from support.harness import Device, close_to, pose, tilt

FIXTURE = "sysfs_fallback_broken_adc"


def test_sensors_reports_the_fallback(bed_factory):
    bed = bed_factory(FIXTURE)
    r = bed.run("sensors", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert "libiio cannot build a local context" in rep["libiio_local_context"]
    assert rep["selected"] == "iio:device0"
    acc = rep["devices"][0]
    assert acc["mode"] == "sysfs-poll"
    adc = rep["devices"][1]
    assert adc["name"] == "ads1015" and not adc["accelerometer"]


def test_monitor_reads_sysfs_directly(bed_factory):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    d = bed.spawn("monitor", "--json", "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=2",
                  "--set", "Sensor.mode=buffer")
    _, w = d.wait_for(lambda r: r["type"] == "waiting", "waiting: buffer impossible")
    assert "Sensor.mode = buffer" in w["reason"] and "reading sysfs directly" in w["reason"]
    d.stop()

    d = bed.spawn("monitor", "--json", "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=2")
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert a["mode"] == "sysfs-poll" and "libiio cannot build a local context" in a["mode_reason"]
    assert bed.attr(dev.syspath, "sampling_frequency").strip() == "100"
    i, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], dev.exp["accel_ms2"], 0.05)
    target = pose(0.1, 1.4)
    raw = dev.raw_for(target)
    bed.set_raw(dev, raw)
    got = dev.accel_of(raw)
    _, s2 = d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6), "tilted sample", start=i)
    dp, dr = tilt(s["accel"], got)
    assert s2["dpitch"] == pytest.approx(dp, abs=1e-6) and s2["droll"] == pytest.approx(dr, abs=1e-6)
    assert d.stop() == 0
    assert bed.attr(dev.syspath, "sampling_frequency").strip() == "1"
