"""Bad input never kills the daemon and never reaches a sample: one log line naming
device, attribute and value, at most once per second per cause; the sample is skipped;
reading recovers when values are good again."""
import json
import math
import re
import time

import pytest

from support.harness import Device, close_to

ARGS = ["--json", "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=2", "--set", "Sensor.mode=poll"]


@pytest.fixture
def running(bed_factory):
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory(dev.fixture)
    d = bed.spawn("monitor", *ARGS)
    d.wait_for(lambda r: r["type"] == "sample", "first sample")
    return bed, dev, d


def good_samples_only(d, dev):
    good = dev.exp["accel_ms2"]
    for s in d.samples():
        assert all(math.isfinite(x) for x in s["accel"] + [s["dpitch"], s["droll"]] + s["focal"]), s
        assert close_to(s["accel"], good, 1e-6), s


@pytest.mark.parametrize("value,reason", [
    ("", "empty value"), ("abc", "not a number"), ("nan", "not finite"), ("inf", "not finite"),
    ("-Infinity", "not finite"), ("99999999999999999999", "out of range"), ("1e400", "out of range"),
    ("0,5", "not a number"),
])
def test_bad_raw_value_is_logged_skipped_and_recovers(running, value, reason):
    bed, dev, d = running
    log_start = len(d.logs)
    bed.set_attr(dev.syspath, "in_accel_x_raw", value + "\n")
    _, line = d.wait_log(r"iio:device0.*in_accel_x_raw = \"%s\".*%s" % (re.escape(value), reason),
                         "bad-value line", start=log_start)
    assert "sensor.device=iio:device0" in line and "sensor.attribute=in_accel_x_raw" in line
    mark = len(d.records)
    bed.set_attr(dev.syspath, "in_accel_x_raw", "504\n")
    d.wait_for(lambda r: r["type"] == "sample", "sample after recovery", start=mark)
    assert d.poll() is None
    good_samples_only(d, dev)
    assert d.stop() == 0


def test_zero_vector_is_skipped(running):
    bed, dev, d = running
    for axis in "xyz":
        bed.set_attr(dev.syspath, "in_accel_%s_raw" % axis, "0\n")
    d.wait_log(r"iio:device0.*in_accel_x_raw,in_accel_y_raw,in_accel_z_raw = \"0 0 0\".*zero acceleration vector",
               "zero-vector line")
    mark = len(d.records)
    for axis, v in zip("xyz", (504, 0, -89)):
        bed.set_attr(dev.syspath, "in_accel_%s_raw" % axis, "%d\n" % v)
    d.wait_for(lambda r: r["type"] == "sample" and close_to(r["accel"], dev.exp["accel_ms2"], 1e-6),
               "good sample", start=mark)
    # Poll mode reads the three attributes one by one, so the readings between the
    # writes (e.g. (0, 0, -89)) are real, non-zero vectors and may be used; the zero one
    # never is.
    for s in d.samples():
        assert all(math.isfinite(x) for x in s["accel"] + [s["dpitch"], s["droll"]]), s
        assert math.sqrt(sum(x * x for x in s["accel"])) > 0.1, s
    assert d.poll() is None
    assert d.stop() == 0


def test_read_error_is_logged_and_recovers(running):
    bed, dev, d = running
    bed.delete_attr(dev.syspath, "in_accel_y_raw")
    d.wait_log(r"iio:device0.*in_accel_y_raw = \"read error\"", "read-error line")
    mark = len(d.records)
    bed.set_attr(dev.syspath, "in_accel_y_raw", "0\n")
    d.wait_for(lambda r: r["type"] == "sample", "sample after recovery", start=mark)
    good_samples_only(d, dev)
    assert d.stop() == 0


def test_one_line_per_second_per_cause(running):
    bed, dev, d = running
    before = [s["t"] for s in d.samples()][-1]
    log_start = len(d.logs)
    bed.set_attr(dev.syspath, "in_accel_z_raw", "garbage\n")
    d.wait_log(r"in_accel_z_raw = \"garbage\"", "first line", start=log_start)
    time.sleep(2.5)   # let the daemon retry ~150 times at 60 Hz
    mark = len(d.records)
    bed.set_attr(dev.syspath, "in_accel_z_raw", "-89\n")
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample after recovery", start=mark)
    lines = [l for l in d.logs[log_start:] if 'in_accel_z_raw = "garbage"' in l]
    window = s["t"] - before          # the daemon's own clock
    assert 1 <= len(lines) <= math.ceil(window) + 1, (len(lines), window)
    assert any("more since the last report" in l for l in lines[1:]) or len(lines) == 1
    good_samples_only(d, dev)
    assert d.stop() == 0


def malformed_matrix_bed(bed_factory, matrix):
    dev = Device("bmc150_bosc0200_ideapad_d330")
    bed = bed_factory()
    bed.add(dev.text.replace("E: ACCEL_MOUNT_MATRIX=0, 1, 0; -1, 0, 0; 0, 0, 1", "E: ACCEL_MOUNT_MATRIX=" + matrix))
    return bed, dev


@pytest.mark.parametrize("matrix,why", [
    ("0, 1, 0; 0, 0, 0; 0, 0, 1", "all zero"), ("0,5, 1, 0; -1, 0, 0; 0, 0, 1", "expected 3 numbers"),
    ("garbage", "expected 3 rows"), ("0, 1, 0; -1, 0, nan; 0, 0, 1", "not a number"),
])
def test_malformed_udev_matrix_falls_back_and_is_logged(bed_factory, matrix, why):
    bed, dev = malformed_matrix_bed(bed_factory, matrix)
    r = bed.run("sensors", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["devices"][0]
    assert got["mount_matrix_source"] == "sysfs:in_mount_matrix"
    assert got["mount_matrix"] == [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    assert any("udev:ACCEL_MOUNT_MATRIX" in p and why in p for p in got["mount_matrix_problems"])
    d = bed.spawn("monitor", *ARGS)
    d.wait_log(r"iio:device0.*malformed mount matrix udev:ACCEL_MOUNT_MATRIX = \"%s\"" % re.escape(matrix),
               "malformed-matrix line")
    _, s = d.wait_for(lambda r: r["type"] == "sample", "sample")
    # The sysfs matrix is the transpose of the hwdb one: the reading comes out rotated.
    sysfs_accel = [-x for x in dev.exp["accel_ms2"][:2]] + [dev.exp["accel_ms2"][2]]
    assert close_to(s["accel"], sysfs_accel, 0.05)
    assert d.stop() == 0


SINGULAR = "1, 0, 0; 1, 0, 0; 0, 0, 1"
TINY = "1e-300, 0, 0; 0, 1e-300, 0; 0, 0, 1e-300"


@pytest.mark.parametrize("matrix,why", [
    (SINGULAR, "singular (determinant 0)"), (TINY, "singular (determinant 0)"),
    ("0.5, 0, 0; 0, 1, 0; 0, 0, 1", "not a rotation (determinant 0.5)"),
])
def test_a_device_matrix_that_is_no_rotation_is_refused_for_the_identity(bed_factory, matrix, why):
    """hwdb and sysfs both offer a matrix that is no rotation: each is named once, with why,
    and the identity is used, so readings go on (none is a "zero acceleration vector")."""
    bed, dev = malformed_matrix_bed(bed_factory, matrix)
    bed.set_attr(dev.syspath, "in_mount_matrix", matrix + "\n")
    got = json.loads(bed.run("sensors", "--json").stdout)["devices"][0]
    assert got["mount_matrix_source"] == "default:identity"
    assert got["mount_matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    problems = got["mount_matrix_problems"]
    assert [p.split(" = ")[0] for p in problems] == ["udev:ACCEL_MOUNT_MATRIX", "sysfs:in_mount_matrix"], problems
    assert all(why in p and "a mount matrix must be a rotation, or a rotation with a mirror" in p for p in problems)
    d = bed.spawn("monitor", *ARGS)
    _, s = d.wait_for(lambda r: r["type"] == "sample", "a sample through the identity")
    raw = [int(dev.attrs["in_accel_%s_raw" % a]) for a in "xyz"]
    assert close_to(s["accel"], [v * dev.scale[0] for v in raw], 1e-6)
    for source in ("udev:ACCEL_MOUNT_MATRIX", "sysfs:in_mount_matrix"):
        lines = [l for l in d.logs if "refused mount matrix %s = \"%s\"" % (source, matrix) in l]
        assert len(lines) == 1 and why in lines[0] and "using default:identity" in lines[0], d.logs
    assert not [l for l in d.logs if "zero acceleration" in l], d.logs
    assert d.stop() == 0


@pytest.mark.parametrize("key", ["Sensor.mount_matrix", "Sensor.gyro_mount_matrix"])
@pytest.mark.parametrize("matrix,why", [
    (SINGULAR, "singular (determinant 0)"), (TINY, "singular (determinant 0)"),
    ("2, 0, 0; 0, 2, 0; 0, 0, 2", "not a rotation (determinant 8)"),
    ("1e308, 0, 0; 0, 1, 0; 0, 0, 1", 'row 1, column 1: out of range: "1e308"'),
])
def test_a_configured_matrix_that_is_no_rotation_is_a_configuration_error(bed_factory, key, matrix, why):
    """check-config and run refuse it with the same line: the key, the value and why."""
    bed = bed_factory("bmc150_bosc0200_ideapad_d330")
    said = []
    for args in (["check-config"], ["run", "--set", "Sink.type=null", "--duration", "1"]):
        r = bed.run(*args, "--set", "%s=%s" % (key, matrix))
        assert r.returncode == 78, (args, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and '%s = "%s" is ' % (key, matrix) in lines[0] and why in lines[0], r.stderr
        assert "not a number" not in lines[0]
        said.append(lines[0])
    assert said[0] == said[1]


def test_an_out_of_range_hwdb_entry_is_called_out_of_range(bed_factory):
    matrix = "0, 1, 0; -1, 0, 1e308; 0, 0, 1"
    bed, dev = malformed_matrix_bed(bed_factory, matrix)
    got = json.loads(bed.run("sensors", "--json").stdout)["devices"][0]
    [problem] = got["mount_matrix_problems"]
    assert 'row 2, column 3: out of range: "1e308"' in problem and "not a number" not in problem, problem
    assert got["mount_matrix_source"] == "sysfs:in_mount_matrix"
