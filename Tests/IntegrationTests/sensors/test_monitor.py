"""`shimmerd monitor --json` in poll and buffer mode: samples in m/s^2 as the fixtures
expect, tilts moving dPitch and dRoll by the angles of docs/TILT.md, and the
sampling frequency set and restored."""
import math
import os
import time

import pytest

from support.harness import (NO_FILTER, OWN_FIXTURES, PUBLIC_FIXTURES, SHIMMERD, Device, Lines, ScanPipe, close_to,
                             expected_focal, monitor, pose,
                             tilt)


@pytest.mark.parametrize("mode", ["poll", "buffer"])
@pytest.mark.parametrize("fixture", PUBLIC_FIXTURES + OWN_FIXTURES)
def test_samples_match_expected_ms2(bed_factory, fixture, mode):
    dev = Device(fixture)
    bed = bed_factory(fixture)
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.mode=" + mode)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert attached["device"] == dev.id and attached["mode"] == mode
    assert attached["mount_matrix"] == dev.matrix
    i, base = d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    want_up = [-x / math.sqrt(sum(y * y for y in dev.exp["accel_ms2"])) for x in dev.exp["accel_ms2"]]
    assert close_to(base["up"], want_up, 1e-3)
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample", start=i)
    assert close_to(s["accel"], dev.exp["accel_ms2"], dev.exp.get("tolerance_ms2", 0.05))
    assert s["seq"] == 0
    assert s["dpitch"] == pytest.approx(0, abs=1e-12) and s["droll"] == pytest.approx(0, abs=1e-12)
    assert s["focal"] == pytest.approx([175, 350 * 2 / 3])
    assert set(s) >= {"t", "seq", "accel", "dpitch", "droll", "focal"}
    if mode == "buffer":   # the decoded scan timestamp (le:s64/64>>0, aligned to 8)
        assert int(s["scan_timestamp_ns"]) in {1700000000000000000 + k * 100000000 for k in range(4)}
    else:
        assert "scan_timestamp_ns" not in s
    assert d.stop() == 0


def follow_path(bed, d, dev, baseline_accel, steps, feed):
    """Feeds each reading, waits for the sample that carries it, checks the angles."""
    start = len(d.records)
    for accel in steps:
        raw = dev.raw_for(accel)
        feed(raw, accel)
        got_accel = dev.accel_of(raw)
        start, s = d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], got_accel, 1e-6),
                              "sample with accel %s" % got_accel, start=start)
        dp, dr = tilt(baseline_accel, got_accel)
        assert s["dpitch"] == pytest.approx(dp, abs=1e-6)
        assert s["droll"] == pytest.approx(dr, abs=1e-6)
        assert s["focal"] == pytest.approx(expected_focal(s["dpitch"], s["droll"]), abs=1e-6)
        yield accel, s


def test_poll_tilt_path_moves_dpitch_and_droll(bed_factory):
    """Upright display; a known path of in-plane turns (dRoll) and top-edge tilts (dPitch)."""
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    baseline = dev.accel_of(dev.raw_for(pose(0, 0)))
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.mode=poll")
    d.wait_for(lambda r: r["type"] == "sample", "first sample")
    # (roll, lean back): dRoll = roll, dPitch = -lean for single-axis moves.
    path = [(0.1, 0.0), (0.0, -0.05), (0.0, 0.08), (-0.15, 0.0), (0.12, -0.06), (0.0, 0.0)]
    steps = [pose(r, p) for r, p in path]
    seen = list(follow_path(bed, d, dev, baseline, steps, lambda raw, _: bed.set_raw(dev, raw)))
    # Single-axis moves land on the nominal angles (12-bit quantisation: < 0.004 rad).
    for (roll, lean), (_, s) in zip(path, seen):
        if roll == 0 or lean == 0:
            assert s["droll"] == pytest.approx(roll, abs=0.004)
            assert s["dpitch"] == pytest.approx(-lean, abs=0.004)
    assert d.stop() == 0


def test_buffer_tilt_path_big_endian_portrait(bed_factory):
    """mxc4005 (be:s12/16>>4) in buffer mode, held right edge up (portrait fallback):
    new scans written to the device node move the angles."""
    dev = Device("mxc4005_aquarius_cmp_ns483")
    bed = bed_factory(dev.fixture)
    baseline = dev.exp["accel_ms2"]
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.mode=buffer")
    d.wait_for(lambda r: r["type"] == "sample", "first sample")

    def turned(v, r):  # clockwise in-plane turn of a reading
        return [v[0] * math.cos(r) - v[1] * math.sin(r), v[0] * math.sin(r) + v[1] * math.cos(r), v[2]]

    def leaned(v, a):  # rotate about the device x axis
        return [v[0], v[1] * math.cos(a) - v[2] * math.sin(a), v[1] * math.sin(a) + v[2] * math.cos(a)]

    steps = [turned(baseline, 0.1), turned(baseline, -0.2), leaned(baseline, 0.15),
             leaned(turned(baseline, 0.05), -0.1)]
    seen = list(follow_path(bed, d, dev, baseline, steps, lambda raw, accel: bed.write_node(dev.id, dev.scans(accel))))
    assert seen[0][1]["droll"] > 0.05 and seen[1][1]["droll"] < -0.1
    assert d.stop() == 0


@pytest.mark.parametrize("fps,group", [(60, 3), (20, 7)])
def test_buffer_batches_a_frame_interval_and_uses_the_newest_scan(bed_factory, fps, group):
    """Buffer mode asks the kernel to wake it once a frame interval's scans are waiting
    (buffer/watermark = ceil(125 Hz / Sink.fps)), keeps a kernel buffer long enough for
    the 0.1 s reads of a still device, and of each batch uses the newest scan only."""
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    pipe = ScanPipe(bed, dev)      # the device node as a FIFO: scans arrive when written
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=100",
                "--set", "Sink.fps=%d" % fps, "--set", "Attitude.baseline_samples=1")
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert attached["mode"] == "buffer"
    assert "125.000000 already fits" in attached["sampling_frequency"]
    assert bed.attr(dev.syspath, "buffer/watermark").strip() == str(group)
    assert int(bed.attr(dev.syspath, "buffer/length").strip()) >= 64
    pipe.send(dev.scans(pose(0, 0), count=group))   # the baseline (one reading)
    d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    decoy = pose(0.3, -0.3)        # older scans of every batch: never the sample
    for k in range(1, 9):
        real = pose(0.02 * k, -0.01 * k)
        pipe.send(dev.scans(decoy, count=group - 1) + dev.scans(real, count=1))
        want = dev.accel_of(dev.raw_for(real))
        d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], want, 1e-6), "sample of batch %d" % k)
    not_wanted = dev.accel_of(dev.raw_for(decoy))
    assert not any(r["type"] == "sample" and close_to(r["accel"], not_wanted, 1e-6) for r in d.records)
    assert d.stop() == 0
    pipe.close()


def test_sampling_frequency_set_and_restored(bed_factory):
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.mode=poll")
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert "125.000000 -> 62.500000" in a["sampling_frequency"]
    assert bed.attr(dev.syspath, "in_accel_sampling_frequency").strip() == "62.500000"
    assert d.stop() == 0
    assert bed.attr(dev.syspath, "in_accel_sampling_frequency").strip() == "125.000000"


def test_sampling_frequency_never_below_10_hz(bed_factory):
    dev = Device("st_lis2dh12_lenovo_miix320")
    bed = bed_factory(dev.fixture)
    d = monitor(bed, *NO_FILTER, "--set", "Sensor.rate=2")
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert bed.attr(dev.syspath, "sampling_frequency").strip() == "10"
    d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert d.stop() == 0
    assert bed.attr(dev.syspath, "sampling_frequency").strip() == "1"


def test_auto_mode_falls_back_to_poll_when_buffer_is_not_writable(bed_factory):
    """An unprivileged process (user nobody) that may not write buffer/enable gets poll
    mode, told why, and leaves sampling_frequency alone when it may not write it."""
    dev = Device("kxtf9_acer_iconia_a500")
    bed = bed_factory(dev.fixture)
    for dirpath, dirnames, filenames in os.walk(bed.root):
        os.chmod(dirpath, 0o777)
        for f in filenames:
            if not os.path.islink(os.path.join(dirpath, f)):
                os.chmod(os.path.join(dirpath, f), 0o644)
    d = bed.spawn("monitor", "--json", *NO_FILTER,
                  prefix=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert a["mode"] == "poll"
    assert "buffer/enable is not writable" in a["mode_reason"]
    assert "not writable" in a["sampling_frequency"]
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    assert close_to(s["accel"], dev.exp["accel_ms2"], 0.05)
    assert d.stop() == 0


def test_lines_come_when_the_tilt_changes_and_all_prints_every_sample(bed_factory):
    """Like monitor-sensor, the lines say what changed: a device lying still gives its
    first sample line and no more for 5 s, though it is read ten times a second; a tilt
    gives a line; --all prints a line for every sample. The attach block says once why
    there is no gyroscope, and the attach log line names the device once."""
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    argv = [SHIMMERD, "monitor", "--set", "Sensor.mode=poll", *NO_FILTER]
    mon = Lines(argv, bed.env)
    bed.children.append(mon)
    mon.wait_line(r"^    Accelerometer: x=", "the first sample line")
    still_until = time.monotonic() + 5
    while time.monotonic() < still_until:
        bed.wait_polled(dev, mon, "a reading of the still device")
    assert len([l for l in mon.lines if l.startswith("    Accelerometer: x=")]) == 1, mon.lines
    assert "    gyroscope: none (no gyroscope found)" in mon.lines, mon.lines
    attach = [l for l in mon.lines if l.startswith("shimmerd: using iio:device0")]
    assert len(attach) == 1 and attach[0].count("BMA253/BMA254/BMA255/BMC150/BMC156/BMI055") == 1, attach
    bed.set_raw(dev, dev.raw_for(pose(0.1, 0)))
    mon.wait_line(r"^    Accelerometer: .*dRoll=\+5\.7", "the line of the tilt")
    mon.terminate()
    assert mon.wait(timeout=10) == 0

    every = Lines(argv + ["--all"], bed.env)
    bed.children.append(every)
    first, _ = every.wait_line(r"^    Accelerometer: x=", "the first sample line")
    for k in range(1, 6):
        every.wait_line(r"^    Accelerometer: x=", "sample line %d of the still device" % k, start=first + k)
    lines = [l for l in every.lines if l.startswith("    Accelerometer: x=")]
    assert len(set(lines)) == 1 and len(lines) >= 6, lines
    every.terminate()
    assert every.wait(timeout=10) == 0
