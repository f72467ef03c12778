"""systemd/60-shimmerd.rules as udev reads it: `udevadm test` on devices emulated by
umockdev (udev's own builtins, input_id among them, classify them from their sysfs
attributes). Each run is in a private mount namespace whose /etc/udev/rules.d holds only
this rules file, and whose /run/udev, /dev/input and /dev/char are empty tmpfs (udevadm
test writes its database and device links there).

- The accelerometer rule is accepted whole: the group, the mode and the command that hands
  buffer mode's attributes to group shimmerd (udev rejects a RUN with an unknown `$`
  substitution, and says so only in its own log).
- The tablet-mode switch of intel-vbtn, on an input device of its own, gets the ACL that
  lets the service read it; a keyboard, and a switch that shares its device with keys
  (asus-wmi), get nothing: the service never reads keys."""
import os
import re
import shutil
import subprocess

import pytest

from support.harness import FIXTURES, REPO

RULES = os.path.join(REPO, "systemd", "60-shimmerd.rules")
ACL = "/usr/bin/setfacl -m g:shimmerd:r $devnode"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("udevadm"),
                                reason="needs root, unshare and udevadm (a private mount namespace)")

SCRIPT = r"""
set -e
mount -t tmpfs none /etc/udev/rules.d
cp "$RULES" /etc/udev/rules.d/
mkdir -p /run/udev /dev/input /dev/char
for d in /run/udev /dev/input /dev/char; do mount -t tmpfs none "$d"; done
exec umockdev-run -d "$DESCRIPTION" -- udevadm test --action=add "$SYSPATH"
"""


def udev_test(tmp_path, fixtures, syspath):
    """What `udevadm test` says of one emulated device, with only our rules installed."""
    description = tmp_path / "devices.umockdev"
    description.write_text("\n".join(open(os.path.join(FIXTURES, f + ".umockdev")).read().strip() + "\n"
                                     for f in fixtures))
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", SCRIPT],
                       env=dict(os.environ, RULES=RULES, DESCRIPTION=str(description), SYSPATH=syspath),
                       capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    return out


def rule_lines(out):
    """Lines about 60-shimmerd.rules, with the group lookup a test machine cannot do left
    out (the group is created by the package's sysusers file)."""
    return [x for x in out.splitlines() if "60-shimmerd.rules" in x and "Unknown group 'shimmerd'" not in x]


def test_the_accelerometer_rule_is_accepted_whole(tmp_path):
    out = udev_test(tmp_path, ["bmc150_bosc0200_ideapad_d330"],
                    "/sys/devices/pci0000:00/0000:00:16.0/i2c_designware.0/i2c-0/i2c-BOSC0200:00/iio:device0")
    lines = rule_lines(out)
    assert not [x for x in lines if "Invalid" in x or "ignoring" in x], lines
    assert any(re.search(r"60-shimmerd.rules:\d+ MODE 0660", x) for x in lines), lines
    [run] = [x for x in lines if " RUN " in x]
    assert "chgrp shimmerd" in run and "buffer/enable" in run and "scan_elements/*_en" in run


WACOM = "/sys/devices/pci0000:00/0000:00:15.1/i2c_designware.1/i2c-1/i2c-WACF2200:00/0018:056A:"


@pytest.mark.parametrize("fixtures,syspath,gets_acl,classes", [
    (["intel_vbtn_tablet_mode_switch"], "/sys/devices/platform/INT33D6:00/input/input14/event13", True, ["SWITCH"]),
    (["input_keyboard_and_keyed_switch"], "/sys/devices/platform/i8042/serio0/input/input3/event3", False,
     ["KEY", "KEYBOARD"]),
    (["input_keyboard_and_keyed_switch"], "/sys/devices/platform/asus-nb-wmi/input/input12/event12", False,
     ["SWITCH", "KEY"]),
    (["input_touch_and_lid_switches"], WACOM + "5256.0002/input/input21/event21", False, ["SWITCH", "TOUCHSCREEN"]),
    (["input_touch_and_lid_switches"], WACOM + "5256.0003/input/input22/event22", False, ["SWITCH", "TOUCHPAD"]),
    (["input_touch_and_lid_switches"],
     "/sys/devices/pci0000:00/0000:00:15.0/i2c_designware.0/i2c-0/i2c-ELAN2514:00/0018:04F3:2AF0.0001"
     "/input/input19/event19",
     False, ["TOUCHSCREEN"]),
    (["input_touch_and_lid_switches"], "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0D:00/input/input0/event0", False,
     ["SWITCH"]),
], ids=["intel-vbtn switch", "keyboard", "asus-wmi keys and switch", "wacom touch with a switch (direct)",
        "wacom touch with a switch (not direct)", "touchscreen", "lid switch"])
def test_only_a_tablet_mode_switch_of_its_own_is_given_to_the_service(tmp_path, fixtures, syspath, gets_acl, classes):
    """The ACL goes to an input device that reports SW_TABLET_MODE and nothing but switch
    events. A touch device that reports another switch (Wacom's touch on/off, SW_MUTE_DEVICE,
    SW=4000) is ID_INPUT_SWITCH without ID_INPUT_KEY too: it gets nothing, nor does a
    touchscreen, a lid switch or a keyboard. udev's input_id classifies each device first
    (`classes`), so the fixtures are what udev takes them for."""
    out = udev_test(tmp_path, fixtures, syspath)
    lines = rule_lines(out)
    assert not [x for x in lines if "Invalid" in x or "ignoring" in x], lines
    for c in ["SWITCH", "KEY", "KEYBOARD", "TOUCHSCREEN", "TOUCHPAD"]:
        assert (re.search(r"^ID_INPUT_%s=1$" % c, out, re.M) is not None) == (c in classes), (c, out[-2000:])
    assert any(ACL in x for x in lines) == gets_acl, lines


HUB_SYSFS = "/sys/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0003"


def test_what_a_still_device_is_told_is_handed_over_with_the_buffers_attributes(tmp_path):
    """What the daemon writes while a device lies still and puts back (its motion events'
    enables, a HID hub's in_accel_hysteresis) goes to group shimmerd beside the rate and
    buffer attributes; nothing else (a hub's gyroscope's hysteresis is never written)."""
    out = udev_test(tmp_path, ["hid_sensor_hub_accel_gyro"], HUB_SYSFS + "/HID-SENSOR-200073.2.auto/iio:device2")
    lines = rule_lines(out)
    assert not [x for x in lines if "Invalid" in x or "ignoring" in x], lines
    [run] = [x for x in lines if " RUN " in x]
    files = re.search(r"for f in (.*?); do", run).group(1).split()
    assert files == ["sampling_frequency", "in_accel_sampling_frequency", "in_anglvel_sampling_frequency",
                     "buffer/enable", "buffer/length", "buffer/watermark", "trigger/current_trigger",
                     "scan_elements/*_en", "events/*_en", "in_accel_hysteresis"], files


def test_a_gyroscope_of_its_own_gets_the_accelerometers_treatment(tmp_path):
    """A HID hub's gyro_3d (in_anglvel_*, no accel channels): its node and the attributes
    buffer mode writes go to group shimmerd, its rate attribute included."""
    out = udev_test(tmp_path, ["hid_sensor_hub_accel_gyro"], HUB_SYSFS + "/HID-SENSOR-200076.3.auto/iio:device3")
    lines = rule_lines(out)
    assert not [x for x in lines if "Invalid" in x or "ignoring" in x], lines
    assert any(re.search(r"60-shimmerd.rules:\d+ MODE 0660", x) for x in lines), lines
    [run] = [x for x in lines if " RUN " in x]
    assert "chgrp shimmerd" in run and "in_anglvel_sampling_frequency" in run and "buffer/enable" in run
    assert re.search(r"^SHIMMERD_SENSOR=gyroscope$", out, re.M), out[-2000:]


@pytest.mark.parametrize("fixtures,syspath,wanted", [
    (["bmc150_bosc0200_ideapad_d330"],
     "/sys/devices/pci0000:00/0000:00:16.0/i2c_designware.0/i2c-0/i2c-BOSC0200:00/iio:device0", True),
    (["hid_sensor_hub_accel_gyro"], HUB_SYSFS + "/HID-SENSOR-200073.2.auto/iio:device2", True),
    (["hid_sensor_hub_accel_gyro"], HUB_SYSFS + "/HID-SENSOR-200076.3.auto/iio:device3", False),
    (["input_keyboard_and_keyed_switch"], "/sys/devices/platform/i8042/serio0/input/input3/event3", False),
], ids=["bmc150 accelerometer", "HID accel_3d", "HID gyro_3d alone", "keyboard"])
def test_the_service_is_started_where_there_is_an_accelerometer(tmp_path, fixtures, syspath, wanted):
    """udev, not the boot, starts shimmerd: an accelerometer is tagged for systemd and
    wants shimmerd.service (as iio-sensor-proxy's rules want theirs); a gyroscope alone
    and any other device do not."""
    out = udev_test(tmp_path, fixtures, syspath)
    wants = re.findall(r"^SYSTEMD_WANTS=(.*)$", out, re.M)
    assert any("shimmerd.service" in w.split() for w in wants) == wanted, out[-2000:]
    if wanted:
        assert re.search(r"^TAGS=.*:systemd:", out, re.M), out[-2000:]


DUALSENSE_SYSFS = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3/1-3:1.3/0003:054C:0CE6.0005"
LIS3_SYSFS = "/sys/devices/platform/lis3lv02d/input/input6/event6"
POLL = "chgrp shimmerd"


@pytest.mark.parametrize("fixture,syspath,readable,wanted", [
    ("lis3lv02d_hp_elitebook", LIS3_SYSFS, True, True),
    ("dualsense_usb", DUALSENSE_SYSFS + "/input/input21/event21", True, False),
    ("dualsense_usb", DUALSENSE_SYSFS + "/input/input20/event20", False, False),
    ("dualsense_usb", DUALSENSE_SYSFS + "/input/input22/event22", False, False),
    ("input_keyboard_and_keyed_switch", "/sys/devices/platform/i8042/serio0/input/input3/event3", False, False),
], ids=["lis3lv02d", "DualSense motion sensors", "DualSense gamepad", "DualSense touchpad", "keyboard"])
def test_input_accelerometers_alone_are_readable_and_only_a_machines_own_starts_the_service(tmp_path, fixture,
                                                                                            syspath, readable, wanted):
    """udev's input_id classifies each node from its capabilities: the service's group may
    read an input accelerometer's node (lis3lv02d; a controller's motion sensors, which
    Sensor.device may name) and nothing else of group input, never a gamepad, a touchpad
    or a keyboard; the service is wanted where the accelerometer is not part of a HID
    device (a game controller)."""
    out = udev_test(tmp_path, [fixture], syspath)
    lines = rule_lines(out)
    assert not [x for x in lines if "Invalid" in x or "ignoring" in x], lines
    assert ("ID_INPUT_ACCELEROMETER=1" in out) == readable, out[-2000:]
    assert any(ACL in x for x in lines) == readable, lines
    assert any(POLL in x and "/poll" in x for x in lines) == readable, lines
    wants = re.findall(r"^SYSTEMD_WANTS=(.*)$", out, re.M)
    assert any("shimmerd.service" in w.split() for w in wants) == wanted, out[-2000:]
