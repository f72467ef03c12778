"""Gyroscopes through the real binary under umockdev (attitude.md section 9): discovery and
pairing, units and the matrix rule, a combined IMU's scans in buffer mode, fusion that
rides through hand-held acceleration, and the fallbacks: a gyroscope whose frame disagrees,
one that returns garbage, one that vanishes. The card never stops."""
import json
import math
import os
import struct
import threading
import time

import pytest

from harness import FIXTURES, G, ScanPipe, close_to, mat_inv, mat_vec

IMU = "inv_mpu6500_combined_imu"
HUB = "hid_sensor_hub_accel_gyro"
WRONG = "kxtf9_mpu3050_wrong_gyro_matrix"
IMU_PATH = "/sys/devices/pci0000:00/0000:00:15.1/i2c_designware.1/i2c-1/i2c-INVN6500:00/iio:device0"
HUB_ROOT = "/sys/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0003"
HUB_ACCEL = HUB_ROOT + "/HID-SENSOR-200073.2.auto/iio:device2"
HUB_GYRO = HUB_ROOT + "/HID-SENSOR-200076.3.auto/iio:device3"
A500_ACCEL = "/sys/devices/platform/7000c000.i2c/i2c-0/0-0068/i2c-4/4-000f/iio:device1"
A500_GYRO = "/sys/devices/platform/7000c000.i2c/i2c-0/0-0068/iio:device0"


def expect(name):
    with open(os.path.join(FIXTURES, name + ".expect.json")) as f:
        return json.load(f)


def set_vec(bed, syspath, channel, raw):
    for axis, v in zip("xyz", raw):
        bed.set_attr(syspath, "in_%s_%s_raw" % (channel, axis), "%d\n" % v)


def accel_raw(m, scale, accel):
    """Sensor counts that read as `accel` (m/s^2, device frame) through matrix m."""
    return [int(round(v / scale)) for v in mat_vec(mat_inv(m), accel)]


def tilted(pitch):
    """Flat, screen up, then the top edge raised by `pitch` radians (attitude.md 7)."""
    return [0.0, -G * math.sin(pitch), -G * math.cos(pitch)]


def monitor(bed, *extra):
    d = bed.spawn("monitor", "--json", "--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=50", *extra)
    return d


def test_sensors_lists_gyroscopes_and_says_how_each_pairs(bed_factory):
    imu = json.loads(bed_factory(IMU).run("sensors", "--json").stdout)
    [g] = imu["gyroscopes"]
    assert g["device"] == "iio:device0" and g["paired"] and g["channels"] == ["anglvel_x", "anglvel_y", "anglvel_z"]
    assert g["mount_matrix_source"] == "sysfs:in_anglvel_mount_matrix"
    p = imu["gyro_pairing"]
    assert p["gyroscope"] == "iio:device0" and p["reason"] == "the accelerometer's own IIO device"
    assert p["mount_matrix_source"] == "accelerometer:udev:ACCEL_MOUNT_MATRIX" and p["mount_matrix_sign"] == -1
    [scan] = [d for d in imu["devices"] if d["device"] == "iio:device0"]
    assert [e["channel"] for e in scan["scan_elements"]] == ["accel_x", "accel_y", "accel_z", "temp", "anglvel_x",
                                                             "anglvel_y", "anglvel_z", "timestamp"]

    hub = json.loads(bed_factory(HUB).run("sensors", "--json").stdout)
    assert hub["selected"] == "iio:device2"
    assert hub["gyro_pairing"]["gyroscope"] == "iio:device3"
    assert hub["gyro_pairing"]["reason"].startswith("same parent device as the accelerometer")

    a500 = bed_factory(WRONG)
    report = json.loads(a500.run("sensors", "--json").stdout)
    assert report["gyro_pairing"]["gyroscope"] is None
    assert "not paired: iio:device0 (mpu3050)" in report["gyro_pairing"]["reason"]
    named = json.loads(a500.run("sensors", "--json", "--set", "Sensor.gyro=name:mpu3050").stdout)
    assert named["gyro_pairing"]["gyroscope"] == "iio:device0"
    assert named["gyro_pairing"]["mount_matrix_source"] == "sysfs:in_anglvel_mount_matrix"
    none = json.loads(bed_factory(IMU).run("sensors", "--json", "--set", "Sensor.gyro=none").stdout)
    assert none["gyro_pairing"]["gyroscope"] is None and none["gyro_pairing"]["reason"] == "Sensor.gyro = none"
    text = bed_factory(IMU).run("sensors").stdout
    assert "gyroscope: iio:device0 pairs with iio:device0: the accelerometer's own IIO device" in text


@pytest.mark.parametrize("fixture,accel_path,gyro_path", [(IMU, IMU_PATH, IMU_PATH), (HUB, HUB_ACCEL, HUB_GYRO)])
def test_angular_velocity_in_rad_per_second_in_the_device_frame(bed_factory, fixture, accel_path, gyro_path):
    e = expect(fixture)
    bed = bed_factory(fixture)
    set_vec(bed, accel_path, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    raw = [100, -50, 20]
    set_vec(bed, gyro_path, "anglvel", raw)
    d = monitor(bed, "--set", "Sensor.mode=poll")
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert attached["gyro"] == ("iio:device0" if fixture == IMU else "iio:device3")
    _, r = d.wait_for(lambda r: r["type"] == "gyro", "a gyro record")
    # attitude.md section 9: det(M) * M * ((raw + offset) * scale) for one chip or hub.
    m, sign = e["gyro_matrix"], e["gyro_sign"]
    want = [sign * v for v in mat_vec(m, [x * e["gyro_scale"] for x in raw])]
    assert close_to(r["anglvel"], want, 1e-9), (r, want)
    d.wait_log(r"gyroscope: iio:device\d \(\w+\)", "the gyroscope in the attach line")
    assert d.stop() == 0


def imu_scan(e, accel, anglvel_raw, t_ns):
    """One 24-byte inv_mpu6050 scan: accel, temp, anglvel be:s16, timestamp le:s64 at 16."""
    a = accel_raw(e["mount_matrix"], e["scale"], accel)
    return struct.pack(">7h", *a, 1200, *anglvel_raw) + b"\0\0" + struct.pack("<q", t_ns)


def test_a_combined_imu_in_buffer_mode_reads_both_from_one_24_byte_scan(bed_factory, tmp_path):
    e = expect(IMU)
    bed = bed_factory(IMU)
    pipe = ScanPipe(bed, type("D", (), {"id": "iio:device0"})())
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sensor.mode=buffer", "--set", "Sink.type=null",
                  "--set", "Trace.path=" + trace, "--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=50")
    d.wait_log(r"using iio:device0 \(mpu6500\) in buffer mode.*gyroscope: iio:device0 \(mpu6500\).*same scan",
               "buffer mode with the gyroscope")
    raw = [0, 0, 300]
    stop = threading.Event()

    def feed():
        n = 0
        while not stop.is_set():
            try:
                pipe.send(imu_scan(e, tilted(0), raw, 1_800_000_000_000_000_000 + n * 20_000_000))
            except BlockingIOError:
                pass
            n += 1
            time.sleep(0.02)
    th = threading.Thread(target=feed, daemon=True)
    th.start()

    def gyros():
        try:
            with open(trace) as f:
                return [json.loads(x) for x in f if '"gyro"' in x]
        except OSError:
            return []
    try:
        from harness import wait_until
        records = wait_until(lambda: len(gyros()) >= 3 and gyros(), "gyro records in the trace", daemon=d)
    finally:
        stop.set()
        th.join()
    want = [e["gyro_sign"] * v for v in mat_vec(e["gyro_matrix"], [x * e["gyro_scale"] for x in raw])]
    assert all(close_to(r["anglvel"], want, 1e-9) for r in records), records[:3]
    assert d.stop() == 0
    pipe.close()
    with open(trace) as f:
        lines = [json.loads(x) for x in f]
    samples = [r for r in lines if r["type"] == "sample"]
    assert samples and all(close_to(s["accel"], tilted(0), 0.01) for s in samples)
    assert not any("differs from the kernel layout" in x for x in d.logs)


def test_fusion_rides_through_hand_held_acceleration_that_fools_the_accelerometer(bed_factory):
    """A push that makes the accelerometer read a 6 degree tilt while the gyroscope says
    nothing turned: the fused attitude stays put; the accelerometer alone follows it."""
    e = expect(IMU)
    results = {}
    for gyro in ("auto", "none"):
        bed = bed_factory(IMU)
        set_vec(bed, IMU_PATH, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
        set_vec(bed, IMU_PATH, "anglvel", [0, 0, 0])
        d = monitor(bed, "--set", "Sensor.mode=poll", "--set", "Attitude.filter=none", "--set", "Sensor.gyro=" + gyro)
        d.wait_for(lambda r: r["type"] == "sample", "first sample")
        time.sleep(1.0)   # lying still: the gyroscope's offset is learnt
        mark = len(d.records)
        # The push: a sideways acceleration of 1 m/s^2 along the top edge's direction.
        fooled = tilted(0)
        fooled[1] -= 1.0
        set_vec(bed, IMU_PATH, "accel", accel_raw(e["mount_matrix"], e["scale"], fooled))
        d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], fooled, 0.01), "pushed sample", start=mark)
        time.sleep(0.3)
        pushed = [s for s in d.samples(mark) if close_to(s["accel"], fooled, 0.01)]
        results[gyro] = max(abs(s["dpitch"]) for s in pushed)
        assert d.stop() == 0
    assert math.degrees(results["none"]) > 5          # the accelerometer alone sees a tilt
    assert math.degrees(results["auto"]) < 1          # fused: nearly nothing moved


def turn_back_and_forth(bed, accel_path, accel_m, accel_scale, gyro_path, gyro_m, gyro_scale, stop, rate=0.6):
    """Turns the device about its x axis (top edge toward and away from the viewer) at
    `rate` rad/s, 1 s each way, updating both sensors' raw attributes every 10 ms: the
    gyroscope in its own sensor frame `gyro_m` (device = gyro_m * sensor)."""
    t0 = time.monotonic()
    while not stop.is_set():
        t = time.monotonic() - t0
        phase = t % 2
        direction = 1 if phase < 1 else -1
        angle = rate * (phase if phase < 1 else 2 - phase)
        set_vec(bed, accel_path, "accel", accel_raw(accel_m, accel_scale, tilted(angle)))
        # du/dt = -w x u: raising the top edge (u turning toward +y) is a positive rate about x.
        w_sensor = mat_vec(mat_inv(gyro_m), [direction * rate, 0, 0])
        set_vec(bed, gyro_path, "anglvel", [int(round(v / gyro_scale)) for v in w_sensor])
        time.sleep(0.01)


def turning_a500(bed_factory, *extra):
    """The A500 with its gyroscope named, level, then turned back and forth on a thread.
    The board turns the gyroscope like the accelerometer: its true frame is the
    accelerometer's matrix, whatever its sysfs matrix claims."""
    e = expect(WRONG)
    bed = bed_factory(WRONG)
    m = e["mount_matrix"]
    set_vec(bed, A500_ACCEL, "accel", accel_raw(m, e["scale"], tilted(0)))
    set_vec(bed, A500_GYRO, "anglvel", [0, 0, 0])
    d = monitor(bed, "--set", "Sensor.mode=poll", "--set", "Sensor.gyro=name:mpu3050", *extra)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert attached["gyro"] == "iio:device0"
    d.wait_for(lambda r: r["type"] == "sample", "first sample")
    stop = threading.Event()
    th = threading.Thread(target=turn_back_and_forth, args=(bed, A500_ACCEL, m, e["scale"], A500_GYRO, m,
                                                            e["gyro_scale"], stop), daemon=True)
    th.start()
    return d, stop, th


def test_a_gyroscope_in_the_wrong_frame_is_given_up_with_one_line_and_the_card_goes_on(bed_factory):
    d, stop, th = turning_a500(bed_factory)
    try:
        i, r = d.wait_for(lambda r: r["type"] == "gyro-disagrees", "the self-check's verdict", timeout=30)
        mark = len(d.records)
        d.wait_for(lambda r: r["type"] == "sample", "samples after the verdict", start=mark)
    finally:
        stop.set()
        th.join()
    assert "gyroscope predicted" in r["reason"]
    assert sum(1 for x in d.records if x["type"] == "gyro-disagrees") == 1
    assert d.poll() is None
    assert d.stop() == 0


def test_the_right_frame_passes_the_self_check(bed_factory):
    """The same motion with the gyroscope's true matrix configured: no verdict."""
    text = "; ".join(", ".join("%g" % v for v in row) for row in expect(WRONG)["mount_matrix"])
    d, stop, th = turning_a500(bed_factory, "--set", "Sensor.gyro_mount_matrix=" + text)
    try:
        # Four turns of a second each: more than the three windows that would condemn it.
        mark = len(d.records)
        from harness import wait_until
        wait_until(lambda: sum(1 for r in d.records[mark:] if r["type"] == "sample") >= 200, "200 samples", daemon=d)
    finally:
        stop.set()
        th.join()
    assert not any(r["type"] == "gyro-disagrees" for r in d.records)
    assert d.stop() == 0


@pytest.mark.parametrize("value,reason", [("abc", "not a number"), ("nan", "not finite")])
def test_gyroscope_garbage_is_logged_and_skipped_and_the_accelerometer_goes_on(bed_factory, value, reason):
    e = expect(IMU)
    bed = bed_factory(IMU)
    set_vec(bed, IMU_PATH, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    set_vec(bed, IMU_PATH, "anglvel", [0, 0, 0])
    d = monitor(bed, "--set", "Sensor.mode=poll")
    d.wait_for(lambda r: r["type"] == "gyro", "first gyro record")
    log_start = len(d.logs)
    bed.set_attr(IMU_PATH, "in_anglvel_x_raw", value + "\n")
    _, line = d.wait_log(r"iio:device0 \(mpu6500\): gyroscope reading skipped: in_anglvel_x_raw = \"%s\".*%s"
                         % (value, reason), "the bad gyroscope value", start=log_start)
    assert "sensor.attribute=in_anglvel_x_raw" in line
    mark = len(d.records)
    d.wait_for(lambda r: r["type"] == "sample", "samples meanwhile", start=mark)
    bed.set_attr(IMU_PATH, "in_anglvel_x_raw", "0\n")
    mark = len(d.records)
    d.wait_for(lambda r: r["type"] == "gyro", "gyro records again", start=mark)
    assert d.stop() == 0


def test_a_vanished_sibling_gyroscope_leaves_the_accelerometer_alone_with_one_line(bed_factory):
    e = expect(HUB)
    bed = bed_factory(HUB)
    set_vec(bed, HUB_ACCEL, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    set_vec(bed, HUB_GYRO, "anglvel", [0, 0, 0])
    d = monitor(bed, "--set", "Sensor.mode=poll")
    d.wait_for(lambda r: r["type"] == "gyro", "first gyro record")
    bed.remove(HUB_GYRO)
    d.wait_log(r"gyroscope iio:device3 \(gyro_3d\) stopped giving readings.*continuing with the accelerometer alone",
               "the give-up line")
    mark = len(d.records)
    d.wait_for(lambda r: r["type"] == "sample", "samples after", start=mark)
    time.sleep(0.5)
    assert sum(1 for x in d.logs if "stopped giving readings" in x) == 1
    assert not any(r["type"] == "gyro" for r in d.records[mark:])
    assert d.stop() == 0


def test_a_sibling_gyroscopes_sampling_frequency_is_set_and_restored(bed_factory):
    e = expect(HUB)
    bed = bed_factory(HUB)
    set_vec(bed, HUB_ACCEL, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    set_vec(bed, HUB_GYRO, "anglvel", [0, 0, 0])
    before = bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency")
    d = monitor(bed, "--set", "Sensor.mode=poll")
    d.wait_log(r"gyroscope: iio:device3 \(gyro_3d\).*in_anglvel_sampling_frequency 10.000000 -> 50 .*restored on exit",
               "the gyroscope's frequency in the attach line")
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "50"
    assert d.stop() == 0
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == before.strip()
