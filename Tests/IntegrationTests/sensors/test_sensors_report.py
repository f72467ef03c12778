"""`shimmerd sensors --json` reports what each fixture's .expect.json says."""
import json

import pytest

from support.harness import OWN_FIXTURES, PUBLIC_FIXTURES, expect

ALL = PUBLIC_FIXTURES + OWN_FIXTURES


def report(bed_factory, fixture, *args, status=0):
    bed = bed_factory(fixture)
    r = bed.run("sensors", "--json", *args)
    assert r.returncode == status, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("fixture", ALL)
def test_sensors_json_matches_expectation(bed_factory, fixture):
    exp = expect(fixture)
    rep = report(bed_factory, fixture)
    assert rep["selected"] == exp["display_device"]
    by_id = {d["device"]: d for d in rep["devices"]}
    for dev_id, want in exp["devices"].items():
        got = by_id[dev_id]
        assert got["accelerometer"] and got["usable"], got
        assert got["name"] == want["name"]
        assert got["channels"] == ["accel_x", "accel_y", "accel_z"]
        scale = want["scale"] if isinstance(want["scale"], list) else [want["scale"]] * 3
        assert got["scale"] == pytest.approx(scale, rel=1e-9)
        offset = want.get("offset", 0)
        assert got["offset"] == pytest.approx(offset if isinstance(offset, list) else [offset] * 3)
        assert got["mount_matrix"] == want["mount_matrix"]
        assert got["mount_matrix_source"] == want["mount_matrix_source"]
        assert got["location"] == want["location"]
        assert got["poll_capable"] and got["buffer_capable"]
        assert got["mode"] == "buffer", got["mode_reason"]
        assert [e["channel"] for e in got["scan_elements"]] == ["accel_x", "accel_y", "accel_z", "timestamp"]
        if "buffer" in want and "trigger" in want["buffer"]:
            assert got["trigger"] == want["buffer"]["trigger"]
    assert "display" in rep["reason"]


def test_per_axis_scale_sources_are_reported(bed_factory):
    rep = report(bed_factory, "st_lis2dh12_lenovo_miix320")
    dev = rep["devices"][0]
    assert dev["scale_source"] == ["sysfs:in_accel_x_scale", "sysfs:in_accel_y_scale", "sysfs:in_accel_z_scale"]
    # The udev hwdb matrix beats the device-level sysfs mount_matrix (identity).
    assert dev["mount_matrix_source"] == "udev:ACCEL_MOUNT_MATRIX"
    assert dev["sampling_frequency"] == {"attribute": "sampling_frequency", "current": 1,
                                         "available": [1, 10, 25, 50, 100, 200, 400, 1600]}


def test_non_accelerometer_is_listed_as_skipped_with_the_reason(bed_factory):
    rep = report(bed_factory, "kxtf9_acer_iconia_a500")
    gyro = next(d for d in rep["devices"] if d["device"] == "iio:device0")
    assert gyro["name"] == "mpu3050"
    assert not gyro["accelerometer"] and not gyro["selected"]
    assert "no accelerometer channels" in gyro["why"]


def test_convertible_reports_why_auto_picked_the_display(bed_factory):
    rep = report(bed_factory, "kxcjk_teclast_f6pro_convertible")
    assert rep["selected"] == "iio:device1"
    base = next(d for d in rep["devices"] if d["device"] == "iio:device0")
    assert base["location"] == "base" and base["label"] == "accel-base"
    assert "base" in base["why"] and "display" in base["why"]


@pytest.mark.parametrize("selector,chosen", [
    ("iio:device0", "iio:device0"), ("label:accel-base", "iio:device0"), ("name:KIOX010A:00", "iio:device1"),
    ("label:accel-display", "iio:device1"),
])
def test_selectors(bed_factory, selector, chosen):
    rep = report(bed_factory, "kxcjk_teclast_f6pro_convertible", "--set", "Sensor.device=" + selector)
    assert rep["selected"] == chosen


def test_selector_matching_nothing_says_why(bed_factory):
    # Nothing usable: the report all the same, and exit 69 (EX_UNAVAILABLE) for scripts.
    rep = report(bed_factory, "kxtf9_acer_iconia_a500", "--set", "Sensor.device=iio:device0", status=69)
    assert rep["selected"] is None
    assert "iio:device0" in rep["reason"]


def test_configured_matrix_wins(bed_factory):
    rep = report(bed_factory, "bmc150_bosc0200_ideapad_d330", "--set", "Sensor.mount_matrix=1, 0, 0; 0, -1, 0; 0, 0, 1")
    dev = rep["devices"][0]
    assert dev["mount_matrix_source"] == "config:Sensor.mount_matrix"
    assert dev["mount_matrix"] == [[1, 0, 0], [0, -1, 0], [0, 0, 1]]


def test_malformed_configured_matrix_is_a_configuration_error(bed_factory):
    bed = bed_factory("bmc150_bosc0200_ideapad_d330")
    r = bed.run("sensors", "--set", "Sensor.mount_matrix=1, 0, 0; 0, 0, 0; 0, 0, 1")
    assert r.returncode == 78
    assert "mount_matrix" in r.stderr


def test_text_output_explains_the_choice(bed_factory):
    bed = bed_factory("kxcjk_teclast_f6pro_convertible")
    r = bed.run("sensors")
    assert r.returncode == 0, r.stderr
    assert "uses iio:device1" in r.stdout
    assert ("why: iio:device1 (KIOX010A:00): display accelerometer (udev:ACCEL_LOCATION), preferred over base"
            in r.stdout)
    assert "not chosen: base accelerometer" in r.stdout
