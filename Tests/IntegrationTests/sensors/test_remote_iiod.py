"""A remote read through a real iiod on 127.0.0.1, started inside the testbed: it works
like a local one (`Sensor.device = uri:ip:127.0.0.1:PORT`), and when iiod goes away and
comes back the daemon releases the sensor and reconnects."""
import json

import pytest

from support.harness import NO_FILTER as ARGS
from support.harness import Device, close_to, free_port, pose, tilt


@pytest.fixture
def remote(bed_factory):
    dev = Device("kxtf9_acer_iconia_a500")
    bed = bed_factory(dev.fixture)
    port = free_port()
    bed.iiod = bed.start_iiod(port)
    bed.iiod_port = port
    return bed, dev, "uri:ip:127.0.0.1:%d" % port


def test_remote_sensors_report(remote):
    bed, dev, uri = remote
    r = bed.run("sensors", "--json", "--set", "Sensor.device=" + uri)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["source"] == uri[len("uri:"):]
    assert rep["selected"] == dev.id
    got = next(d for d in rep["devices"] if d["device"] == dev.id)
    assert got["mount_matrix"] == dev.matrix
    assert got["mount_matrix_source"] == "sysfs:in_accel_mount_matrix"
    assert got["scale"] == pytest.approx([0.019163] * 3)
    assert got["syspath"] is None


@pytest.mark.parametrize("mode", ["poll", "buffer"])
def test_remote_monitor_reads_like_local(remote, mode):
    bed, dev, uri = remote
    d = bed.spawn("monitor", "--json", "--set", "Sensor.device=" + uri, "--set", "Sensor.mode=" + mode, *ARGS)
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert a["device"] == dev.id and a["mode"] == mode
    i, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], dev.exp["accel_ms2"], 0.05)
    if mode == "poll":
        accel = dev.accel_of(dev.raw_for(pose(-1.0, 0.4)))
        bed.set_raw(dev, dev.raw_for(pose(-1.0, 0.4)))
        _, s2 = d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], accel, 1e-6), "tilted sample",
                           start=i)
        dp, dr = tilt(s["accel"], accel)
        assert s2["dpitch"] == pytest.approx(dp, abs=1e-6) and s2["droll"] == pytest.approx(dr, abs=1e-6)
    assert d.stop() == 0


@pytest.mark.parametrize("mode", ["poll", "buffer"])
def test_remote_sensor_reconnects_after_iiod_restarts(remote, mode):
    """iiod killed: the reads fail, and after 2 s of nothing but failures the sensor is
    released with one line naming the URI (the card eases back to center); the context is
    opened again every second, and once iiod listens again the sensor is attached anew,
    with a new baseline, in a new pose."""
    bed, dev, uri = remote
    d = bed.spawn("monitor", "--json", "--set", "Sensor.device=" + uri, "--set", "Sensor.mode=" + mode, *ARGS)
    d.wait_for(lambda r: r["type"] == "sample", "sample")
    bed.iiod.kill()
    bed.iiod.wait()
    i, gone = d.wait_for(lambda r: r["type"] == "detached", "detached")
    assert gone["device"].startswith(dev.id)
    _, line = d.wait_log("unreachable", "the line that releases the sensor")   # stderr: read by its own thread
    assert ("every read from %s failed for 2 s" % uri[len("uri:"):]) in line and "reconnecting every second" in line
    i, _ = d.wait_for(lambda r: r["type"] == "waiting" and "Connection refused" in r["reason"], "waiting", start=i)
    tilted = pose(0.3, -0.2)
    bed.set_raw(dev, dev.raw_for(tilted))
    if mode == "buffer":
        bed.write_node(dev.id, dev.scans(tilted))
    bed.start_iiod(bed.iiod_port)
    i, back = d.wait_for(lambda r: r["type"] == "attached", "attached again", start=i)
    assert back["device"] == dev.id and back["mode"] == mode
    want = dev.accel_of(dev.raw_for(tilted))
    i, base = d.wait_for(lambda r: r["type"] == "baseline", "new baseline", start=i)
    norm = sum(x * x for x in want) ** 0.5
    assert close_to(base["up"], [-x / norm for x in want], 1e-3)
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample after reconnecting", start=i)
    assert close_to(s["accel"], want, 1e-6)
    assert d.stop() == 0
