"""Gyroscopes through the real binary under umockdev (docs/TILT.md, "With a gyroscope"): discovery and
pairing, units and the matrix rule, a combined IMU's scans in buffer mode, a HID hub's
gyro_3d read from its own buffer, fusion that rides through hand-held acceleration,
hotplug (a gyroscope that appears later, goes away, comes back), and the fallbacks: a
gyroscope whose frame disagrees, one that returns garbage, one that vanishes, one whose
buffer this process may not use. The card never stops."""
import fcntl
import json
import math
import os
import re
import stat
import struct
import termios
import threading
import time

import pytest

from support.harness import (FIXTURES, HUB, IMU, G, AllocationCount, ScanPipe, block_of, close_to, cross, dot, expect,
                             frames_published, mat_inv, mat_vec, monitor, norm, pose, read_trace, wait_until)
# The allocation counter and the release build it counts in (fixtures, used by name below).

WRONG = "kxtf9_mpu3050_wrong_gyro_matrix"
SETTLED = ["--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=50"]     # of every monitor run
IMU_PATH = "/sys/devices/pci0000:00/0000:00:15.1/i2c_designware.1/i2c-1/i2c-INVN6500:00/iio:device0"
HUB_ROOT = "/sys/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0003"
HUB_ACCEL = HUB_ROOT + "/HID-SENSOR-200073.2.auto/iio:device2"
HUB_GYRO = HUB_ROOT + "/HID-SENSOR-200076.3.auto/iio:device3"
A500_ACCEL = "/sys/devices/platform/7000c000.i2c/i2c-0/0-0068/i2c-4/4-000f/iio:device1"
A500_GYRO = "/sys/devices/platform/7000c000.i2c/i2c-0/0-0068/iio:device0"


def set_vec(bed, syspath, channel, raw):
    for axis, v in zip("xyz", raw):
        bed.set_attr(syspath, "in_%s_%s_raw" % (channel, axis), "%d\n" % v)


def accel_raw(m, scale, accel):
    """Sensor counts that read as `accel` (m/s^2, device frame) through matrix m."""
    return [int(round(v / scale)) for v in mat_vec(mat_inv(m), accel)]


def tilted(pitch):
    """Flat, screen up, then the top edge raised by `pitch` radians (docs/TILT.md, "The two angles")."""
    return [0.0, -G * math.sin(pitch), -G * math.cos(pitch)]


def lying_level(bed, e, accel_path, gyro_path):
    """Both sensors read the device lying level and still (`e`: the fixture's expect.json)."""
    set_vec(bed, accel_path, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    set_vec(bed, gyro_path, "anglvel", [0, 0, 0])


def polled_with_gyroscope(bed_factory, fixture, accel_path, gyro_path):
    """`fixture` lying level, monitored in poll mode until its first gyro record:
    (expect.json, testbed, daemon)."""
    e = expect(fixture)
    bed = bed_factory(fixture)
    lying_level(bed, e, accel_path, gyro_path)
    d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll")
    d.wait_for(lambda r: r["type"] == "gyro", "first gyro record")
    return e, bed, d


def feeding(send, period=0.02):
    """Calls send(n) for n = 0, 1, ... every `period` seconds on a thread until the
    returned event is set (scans a full pipe cannot take are dropped, as a full kernel
    buffer drops them); returns the event and the thread."""
    stop = threading.Event()

    def run():
        n = 0
        while not stop.is_set():
            try:
                send(n)
            except BlockingIOError:
                pass
            n += 1
            time.sleep(period)
    th = threading.Thread(target=run, daemon=True)
    th.start()
    return stop, th


def run_buffered(bed, tmp_path):
    """The daemon in buffer mode at 50 Hz with a trace and no output; returns it and the
    trace's path."""
    trace = str(tmp_path / "trace.jsonl")
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    d = bed.spawn("run", "--config", str(conf), "--set", "Sensor.mode=buffer", "--set", "Sink.type=null",
                  "--set", "Trace.path=" + trace, "--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=50")
    return d, trace


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
    d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll")
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert attached["gyro"] == ("iio:device0" if fixture == IMU else "iio:device3")
    _, r = d.wait_for(lambda r: r["type"] == "gyro", "a gyro record")
    # docs/TILT.md, "With a gyroscope": det(M) * M * ((raw + offset) * scale) for one chip or hub.
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
    d, trace = run_buffered(bed, tmp_path)
    d.wait_log(r"using iio:device0 \(mpu6500\) in buffer mode.*gyroscope: iio:device0 \(mpu6500\).*same scan",
               "buffer mode with the gyroscope")
    raw = [0, 0, 300]
    stop, th = feeding(lambda n: pipe.send(imu_scan(e, tilted(0), raw, 1_800_000_000_000_000_000 + n * 20_000_000)))

    def gyros():
        return read_trace(trace, "gyro")
    try:
        records = wait_until(lambda: len(gyros()) >= 3 and gyros(), "gyro records in the trace", daemon=d)
    finally:
        stop.set()
        th.join()
    want = [e["gyro_sign"] * v for v in mat_vec(e["gyro_matrix"], [x * e["gyro_scale"] for x in raw])]
    assert all(close_to(r["anglvel"], want, 1e-9) for r in records), records[:3]
    assert d.stop() == 0
    pipe.close()
    samples = read_trace(trace, "sample", final=True)
    assert samples and all(close_to(s["accel"], tilted(0), 0.01) for s in samples)
    assert not any("differs from the kernel layout" in x for x in d.logs)


def test_fusion_rides_through_hand_held_acceleration_that_fools_the_accelerometer(bed_factory):
    """A push that makes the accelerometer read a 6 degree tilt while the gyroscope says
    nothing turned: the fused attitude stays put; the accelerometer alone follows it."""
    e = expect(IMU)
    results = {}
    for gyro in ("auto", "none"):
        bed = bed_factory(IMU)
        lying_level(bed, e, IMU_PATH, IMU_PATH)
        d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll", "--set", "Attitude.filter=none",
                    "--set", "Sensor.gyro=" + gyro)
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
    lying_level(bed, e, A500_ACCEL, A500_GYRO)
    d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll", "--set", "Sensor.gyro=name:mpu3050", *extra)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert attached["gyro"] == "iio:device0"
    d.wait_for(lambda r: r["type"] == "sample", "first sample")
    stop = threading.Event()
    th = threading.Thread(target=turn_back_and_forth, args=(bed, A500_ACCEL, m, e["scale"], A500_GYRO, m,
                                                            e["gyro_scale"], stop), daemon=True)
    th.start()
    return d, stop, th


def matrix_in(reason):
    """The matrix a verdict names ("turned by the matrix "a, b, c; d, e, f; g, h, i"")."""
    m = re.search(r'matrix "([^"]+)"', reason)
    assert m, reason
    return [[float(x) for x in row.split(",")] for row in m.group(1).split(";")]


def test_a_gyroscope_in_the_wrong_frame_is_doubted_with_the_frame_that_fits_and_the_card_goes_on(bed_factory):
    """Many seconds of turning about x with the gyroscope's sysfs matrix wrong: one verdict,
    naming a frame that turns the rates as read onto the device's x axis; the accelerometer
    goes on alone, and the gyroscope is still read (its evidence weighed)."""
    d, stop, th = turning_a500(bed_factory)
    try:
        i, r = d.wait_for(lambda r: r["type"] == "gyro-disagrees", "the self-check's verdict", timeout=60)
        mark = len(d.records)
        d.wait_for(lambda r: r["type"] == "sample", "samples after the verdict", start=mark)
        d.wait_for(lambda r: r["type"] == "gyro", "gyroscope readings after the verdict", start=mark)
    finally:
        stop.set()
        th.join()
    assert "s of motion" in r["reason"]
    p = matrix_in(r["reason"])
    # The rates as read, in the device frame, turned by the matrix: about x, all of it.
    turning = [x["anglvel"] for x in d.records[:i] if x["type"] == "gyro" and math.hypot(*x["anglvel"]) > 0.3]
    assert turning
    for w in turning[-20:]:
        fitted = mat_vec(p, w)
        assert abs(abs(fitted[0]) - math.hypot(*w)) < 0.05 * math.hypot(*w), (w, fitted)
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
        from support.harness import wait_until
        wait_until(lambda: sum(1 for r in d.records[mark:] if r["type"] == "sample") >= 200, "200 samples", daemon=d)
    finally:
        stop.set()
        th.join()
    assert not any(r["type"] == "gyro-disagrees" for r in d.records)
    assert d.stop() == 0


@pytest.mark.parametrize("value,reason", [("abc", "not a number"), ("nan", "not finite")])
def test_gyroscope_garbage_is_logged_and_skipped_and_the_accelerometer_goes_on(bed_factory, value, reason):
    e, bed, d = polled_with_gyroscope(bed_factory, IMU, IMU_PATH, IMU_PATH)
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


def test_a_combined_imus_gyroscope_whose_reads_fail_is_given_up_with_one_line(bed_factory):
    """No udev event says that part of a device stopped answering: here the MPU-6500's
    angular velocity attributes fail to read (the files are gone) while its acceleration
    still reads. After three reads in a row that fail, the gyroscope is given up with one
    line and the accelerometer goes on alone; the card never stops."""
    e, bed, d = polled_with_gyroscope(bed_factory, IMU, IMU_PATH, IMU_PATH)
    d.wait_for(lambda r: r["type"] == "baseline", "the baseline, level")
    for axis in "xyz":
        bed.delete_attr(IMU_PATH, "in_anglvel_%s_raw" % axis)
    d.wait_log(r"gyroscope iio:device0 \(mpu6500\) stopped giving readings \(in_anglvel_x_raw.*"
               r"continuing with the accelerometer alone", "the give-up line")
    mark = len(d.records)
    set_vec(bed, IMU_PATH, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0.2)))
    d.wait_for(lambda r: r["type"] == "sample" and abs(r["dpitch"]) > 0.1, "the accelerometer alone follows a tilt",
               start=mark)
    assert sum(1 for x in d.logs if "stopped giving readings" in x) == 1
    assert not any(r["type"] == "gyro" for r in d.records[mark:])
    assert d.poll() is None
    assert d.stop() == 0


def test_a_vanished_sibling_gyroscope_leaves_the_accelerometer_alone_with_one_line(bed_factory):
    e, bed, d = polled_with_gyroscope(bed_factory, HUB, HUB_ACCEL, HUB_GYRO)
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
    lying_level(bed, e, HUB_ACCEL, HUB_GYRO)
    before = bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency")
    d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll")
    d.wait_log(r"gyroscope: iio:device3 \(gyro_3d\).*in_anglvel_sampling_frequency 10.000000 -> 50 .*restored on exit",
               "the gyroscope's frequency in the attach line")
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "50"
    assert d.stop() == 0
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == before.strip()


def umockdev_block(fixture, syspath):
    """A device's description block, to add it back to a testbed after a removal."""
    with open(os.path.join(FIXTURES, fixture + ".umockdev")) as f:
        return block_of(f.read(), syspath[len("/sys"):])


def rad_per_s(e, raw):
    """docs/TILT.md, "With a gyroscope": det(M) * M * ((raw + offset) * scale) for one chip or hub."""
    return [e["gyro_sign"] * v for v in mat_vec(e["gyro_matrix"], [x * e["gyro_scale"] for x in raw])]


def test_a_sibling_gyroscope_that_appears_later_is_taken_up_dropped_when_removed_and_taken_up_again(bed_factory):
    e = expect(HUB)
    bed = bed_factory(HUB)
    set_vec(bed, HUB_ACCEL, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0)))
    gyro_block = umockdev_block(HUB, HUB_GYRO)
    bed.remove(HUB_GYRO)                     # not there when the daemon starts
    d = monitor(bed, *SETTLED, "--set", "Sensor.mode=poll")
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert attached["gyro"] is None
    d.wait_for(lambda r: r["type"] == "sample", "samples without a gyroscope")
    assert not any(r["type"] == "gyro" for r in d.records)

    # It appears: taken up with one line, its sampling frequency set, its readings used.
    bed.add(gyro_block)
    i, up = d.wait_for(lambda r: r["type"] == "gyro-attached", "the gyroscope taken up")
    assert up["gyro"] == "iio:device3" and up["gyro_reason"].startswith("same parent device as the accelerometer")
    assert up["gyro_mount_matrix_source"] == "accelerometer:default:identity"
    d.wait_log(r"now using gyroscope iio:device3 \(gyro_3d\), same parent device.*polled with each reading.*"
               r"in_anglvel_sampling_frequency 10.000000 -> 50 .*restored on exit", "the take-up line")
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "50"
    raw = [100, -50, 20]
    set_vec(bed, HUB_GYRO, "anglvel", raw)
    d.wait_for(lambda r: r["type"] == "gyro" and close_to(r["anglvel"], rad_per_s(e, raw), 1e-9), "its readings",
               start=i)

    # Removed: dropped at once on the udev event, one line; the accelerometer goes on alone.
    bed.remove(HUB_GYRO)
    i, gone = d.wait_for(lambda r: r["type"] == "gyro-detached", "the gyroscope dropped", start=i)
    assert gone["device"] == "iio:device3 (gyro_3d)" and gone["reason"] == "udev remove event for " + HUB_GYRO
    d.wait_log(r"gyroscope iio:device3 \(gyro_3d\) stopped giving readings \(udev remove event for .*/iio:device3\); "
               r"continuing with the accelerometer alone", "the drop line")
    wait_until(lambda: sum(1 for r in d.records[i:] if r["type"] == "sample") >= 20, "samples after", daemon=d)
    assert not any(r["type"] == "gyro" for r in d.records[i:])

    # Back: taken up again.
    bed.add(gyro_block)
    j, again = d.wait_for(lambda r: r["type"] == "gyro-attached", "the gyroscope taken up again", start=i)
    assert again["gyro"] == "iio:device3"
    assert not any(r["type"] == "gyro" for r in d.records[i:j])
    set_vec(bed, HUB_GYRO, "anglvel", raw)
    d.wait_for(lambda r: r["type"] == "gyro" and close_to(r["anglvel"], rad_per_s(e, raw), 1e-9), "its readings again",
               start=j)
    assert d.stop() == 0
    assert sum(1 for x in d.logs if "now using gyroscope" in x) == 2
    assert sum(1 for x in d.logs if "stopped giving readings" in x) == 1
    assert not any(r["type"] == "detached" for r in d.records)     # the accelerometer stayed
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "10.000000"


def hub_scan(raw, t_ns):
    """One scan of a HID sensor hub's accel_3d or gyro_3d (hid-sensor-accel-3d.c,
    hid-sensor-gyro-3d.c): x, y, z le:s32 at 0, 4, 8, the timestamp le:s64 at 16."""
    return struct.pack("<3i4xq", *raw, t_ns)


def test_a_hubs_gyroscope_is_read_from_its_own_buffer_in_buffer_mode(bed_factory, tmp_path):
    """Both devices fed scans: every gyroscope scan is a reading (two per accelerometer
    scan here, alternating values), at its time among the accelerometer's, in rad/s in the
    device frame; the accelerometer's samples come from its buffer."""
    e = expect(HUB)
    bed = bed_factory(HUB)
    # The raw attributes differ from what the scans carry: a polled value would show.
    set_vec(bed, HUB_ACCEL, "accel", accel_raw(e["mount_matrix"], e["scale"], tilted(0.3)))
    set_vec(bed, HUB_GYRO, "anglvel", [7, 7, 7])
    accel_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device2"})())
    gyro_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device3"})())
    d, trace = run_buffered(bed, tmp_path)
    d.wait_log(r"using iio:device2 \(accel_3d\) in buffer mode.*"
               r"gyroscope: iio:device3 \(gyro_3d\), same parent device.*read from its own buffer.*"
               r"in_anglvel_sampling_frequency 10.000000 -> 50", "the gyroscope's buffer")
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "50"
    a_raw = accel_raw(e["mount_matrix"], e["scale"], tilted(0))
    first, second = [100, -50, 20], [200, -100, 40]

    def send(n):
        t = 1_800_000_000_000_000_000 + n * 20_000_000
        accel_pipe.send(hub_scan(a_raw, t))
        gyro_pipe.send(hub_scan(first, t - 10_000_000) + hub_scan(second, t))
    stop, th = feeding(send)
    try:
        wait_until(lambda: sum(1 for r in read_trace(trace) if r["type"] == "gyro") >= 40, "gyro records in the trace",
                   daemon=d)
    finally:
        stop.set()
        th.join()
    assert d.stop() == 0
    accel_pipe.close()
    gyro_pipe.close()
    assert bed.attr(HUB_GYRO, "in_anglvel_sampling_frequency").strip() == "10.000000"
    lines = read_trace(trace)
    gyros = [r for r in lines if r["type"] == "gyro"]
    want = [rad_per_s(e, first), rad_per_s(e, second)]
    # Every scan once, in order: the two values alternate, the polled one never shows.
    for k, r in enumerate(gyros):
        assert close_to(r["anglvel"], want[k % 2], 1e-9), (k, r)
    samples = [r for r in lines if r["type"] == "sample"]
    assert samples and all(close_to(s["accel"], tilted(0), 0.01) for s in samples)
    # In time order, gyroscope readings and accelerometer readings alike.
    times = [r["t"] for r in lines if r["type"] in ("gyro", "sample", "reading")]
    assert times == sorted(times)
    assert sum(1 for x in d.logs if "not from its buffer" in x) == 0


def test_a_hubs_gyroscope_whose_buffer_is_not_writable_is_polled_with_one_line(bed_factory):
    """As an unprivileged user who may run the accelerometer's buffer but not the
    gyroscope's: the gyroscope is polled with each reading, and the attach line says why."""
    if os.geteuid() != 0:
        pytest.skip("needs root (to drop to nobody)")
    e = expect(HUB)
    bed = bed_factory(HUB)
    raw = [100, -50, 20]
    set_vec(bed, HUB_GYRO, "anglvel", raw)
    accel_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device2"})())
    for dirpath, _, filenames in os.walk(bed.root):
        os.chmod(dirpath, 0o777)
        for f in filenames:
            path = os.path.join(dirpath, f)
            if not os.path.islink(path):
                # umockdev's own sockets stay open to all: they stand for the kernel.
                os.chmod(path, 0o666 if stat.S_ISSOCK(os.stat(path).st_mode) else 0o644)
    # What a udev rule might give: the accelerometer's attributes and node, nothing of the gyroscope's.
    for dirpath, _, filenames in os.walk(bed.root + HUB_ACCEL):
        for f in filenames:
            if not os.path.islink(os.path.join(dirpath, f)):
                os.chmod(os.path.join(dirpath, f), 0o666)
    os.chmod(os.path.join(bed.root, "dev", "iio:device2"), 0o666)
    d = bed.spawn("monitor", "--json", "--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=50",
                  "--set", "Sensor.mode=buffer",
                  prefix=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
    _, a = d.wait_for(lambda r: r["type"] == "attached", "attach")
    assert a["mode"] == "buffer" and a["gyro"] == "iio:device3"
    d.wait_log(r"gyroscope: iio:device3 \(gyro_3d\), same parent device.*polled with each reading, "
               r"not from its buffer: buffer/enable is not writable by this process", "the fallback, told why")
    a_raw = accel_raw(e["mount_matrix"], e["scale"], tilted(0))
    stop, th = feeding(lambda n: accel_pipe.send(hub_scan(a_raw, 1_800_000_000_000_000_000 + n * 20_000_000)))
    try:
        d.wait_for(lambda r: r["type"] == "gyro" and close_to(r["anglvel"], rad_per_s(e, raw), 1e-9), "polled readings")
        _, s = d.wait_for(lambda r: r["type"] == "sample", "samples from the accelerometer's buffer")
    finally:
        stop.set()
        th.join()
    assert close_to(s["accel"], tilted(0), 0.01) and "scan_timestamp_ns" in s
    assert d.stop() == 0
    accel_pipe.close()
    assert sum(1 for x in d.logs if "not from its buffer" in x) == 1


def test_a_doubted_gyroscope_that_comes_back_is_weighed_again_not_trusted_afresh(bed_factory):
    """The verdict is the evidence's, not the device's: a doubted gyroscope that goes away
    and comes back is taken up and read again, and stays doubted (no second verdict, no
    `gyro-agrees`) while nothing new says its frame fits."""
    beds = []
    d, stop, th = turning_a500(lambda fixture: beds.append(bed_factory(fixture)) or beds[-1])
    try:
        d.wait_for(lambda r: r["type"] == "gyro-disagrees", "the self-check's verdict", timeout=60)
    finally:
        stop.set()
        th.join()
    bed = beds[0]
    bed.remove(A500_GYRO)
    d.wait_for(lambda r: r["type"] == "gyro-detached", "the gyroscope's removal")
    # Without its node line: umockdev 0.17 keeps the emulated node of a removed device and
    # aborts on a second one (the node is not read in poll mode).
    bed.add(umockdev_block(WRONG, A500_GYRO).replace("N: iio:device0\n", ""))
    i, _ = d.wait_for(lambda r: r["type"] == "gyro-attached", "the gyroscope taken up again")
    wait_until(lambda: sum(1 for r in d.records[i:] if r["type"] == "gyro") >= 20, "its readings", daemon=d)
    assert sum(1 for r in d.records if r["type"] == "gyro-disagrees") == 1
    assert not any(r["type"] == "gyro-agrees" for r in d.records)
    assert d.stop() == 0


def unread_bytes(pipe):
    """Bytes written to a ScanPipe that the daemon has not read yet (FIONREAD)."""
    n = struct.unpack("i", fcntl.ioctl(pipe.fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    return n


def test_a_hubs_two_buffers_allocate_nothing_per_wakeup(bed_factory, tmp_path, release_shimmerd, malloc_count_library,
                                                        shm_name):
    """test_allocations.py's measure on the HUB in buffer mode, both devices read from their
    buffers: after a warm-up the count does not move while the card follows a tilt the
    gyroscope turns too (two gyroscope scans per accelerometer scan), nor while the device
    lies still and is read on the idle timer."""
    e = expect(HUB)
    bed = bed_factory(HUB)
    accel_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device2"})())
    gyro_pipe = ScanPipe(bed, type("D", (), {"id": "iio:device3"})())
    address_file = str(tmp_path / "allocations.address")
    # Sink.fps at its default, 60: two scans a wakeup at 100 Hz.
    d = bed.spawn("run", "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=100",
                  "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, binary=release_shimmerd,
                  extra_env={"LD_PRELOAD": malloc_count_library + ":" + bed.env["LD_PRELOAD"],
                             "SHIMMERD_TEST_MALLOC_COUNT_FILE": address_file})
    count = AllocationCount(d.p.pid, address_file, d)
    d.wait_log(r"gyroscope: iio:device3 \(gyro_3d\).*read from its own buffer", "the gyroscope's buffer")
    group = int(bed.attr(HUB_ACCEL, "buffer/watermark").strip())
    dt = group * 0.01                       # one group of scans at 100 Hz
    clock = {"ns": 1_800_000_000_000_000_000, "up": norm([-x for x in pose(0, 0)]), "due": time.monotonic()}

    def up_at(k):
        return norm([-x for x in pose(0.12 * math.sin(0.3 * k), 0.12 * math.cos(0.3 * k))])

    def step(up):
        """One group of accelerometer scans at `up`, and two gyroscope scans per scan at
        the rate that turns the previous up into it over the group (du/dt = -w x u), handed
        over when the kernel would: the scans' timestamps and the time they arrive agree."""
        u0 = clock["up"]
        axis = cross(u0, up)
        angle = math.atan2(math.sqrt(dot(axis, axis)), dot(u0, up))
        w = [-angle / dt * x for x in norm(axis)] if angle > 0 else [0.0, 0.0, 0.0]
        a_raw = accel_raw(e["mount_matrix"], e["scale"], [-G * x for x in up])
        w_raw = [int(round(x / e["gyro_scale"])) for x in w]
        t = clock["ns"]
        gyro_scans = b"".join(hub_scan(w_raw, t + (j + 1) * 5_000_000) for j in range(2 * group))
        accel_scans = b"".join(hub_scan(a_raw, t + (j + 1) * 10_000_000) for j in range(group))
        clock["due"] += dt
        time.sleep(max(0.0, clock["due"] - time.monotonic()))
        gyro_pipe.send(gyro_scans)
        accel_pipe.send(accel_scans)
        clock["ns"] = t + group * 10_000_000
        clock["up"] = up

    def drained():
        wait_until(lambda: unread_bytes(accel_pipe) == 0 and unread_bytes(gyro_pipe) == 0, "the scans read", d)

    # Warm-up: the baseline (0.4 s of rest and more), the first frames, the arrays grown to
    # their size.
    for _ in range(int(0.6 / dt) + 1):
        step(clock["up"])
    for k in range(60):
        step(up_at(k))
    drained()
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and frames_published(shm_name) > 0, "the first frame", d)
    allocations, frames = count.read(), frames_published(shm_name)
    for k in range(60, 210):
        step(up_at(k))
    drained()
    moving_frames = frames_published(shm_name) - frames
    assert moving_frames >= 50, moving_frames
    assert count.read() - allocations == 0, "allocations while moving, over %d frames" % moving_frames

    # Still: nothing more comes. Once the card has settled and the stillness window (2.5 s)
    # has passed, the daemon reads both buffers on its idle timer; the count must not move
    # in either state.
    time.sleep(3.0)
    allocations = count.read()
    time.sleep(1.5)
    assert count.read() - allocations == 0, "allocations while still"
    assert not any("stopped giving readings" in x or "disagrees" in x for x in d.logs)
    assert d.poll() is None
    assert d.stop() == 0
    accel_pipe.close()
    gyro_pipe.close()
