"""The running daemon allocates nothing per frame: the real shimmerd, in buffer mode on
the bmc150 fixture (an accelerometer) and on the MPU-6500 (accelerometer and gyroscope in
one scan: every scan's rates go through the fusion), with the shm sink, counted by an
allocation counter preloaded ahead of everything else (support/malloc_count.c: every malloc, calloc, realloc and aligned
allocation of the process, umockdev's preload and the C libraries included).

The binary is the release build that install.sh ships (scripts/build-release.sh, built
here if it is not up to date): allocating nothing is a property of optimized code, since
an unoptimized build puts closure contexts and existential boxes on the heap, hundreds
of them a frame.

After a warm-up, in which the loop's arrays reach their working size, the count must not
move at all while the card follows a moving tilt for 150 scan groups and over a hundred
frames, nor while the device then lies still and the daemon reads it on its idle timer.
Exact counts, not times: the property holds on any machine."""
import math
import os
import re
import time

import pytest

from support.harness import BMC150 as ACCELEROMETER
from support.harness import IMU, AllocationCount, Device, ScanPipe, frames_published, pose, wait_until


def turn_between(a, b):
    """The rotation vector (rad, device frame) that carries gravity's direction `a` onto
    `b` under du/dt = -w x u: along b x a, by the angle between them."""
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    ua, ub = [x / na for x in a], [x / nb for x in b]
    c = [ub[1] * ua[2] - ub[2] * ua[1], ub[2] * ua[0] - ub[0] * ua[2], ub[0] * ua[1] - ub[1] * ua[0]]
    s = math.sqrt(sum(x * x for x in c))
    if s == 0:
        return [0.0, 0.0, 0.0]
    angle = math.atan2(s, sum(x * y for x, y in zip(ua, ub)))
    return [x / s * angle for x in c]


@pytest.mark.parametrize("fixture,radius", [(ACCELEROMETER, 0.12), (IMU, 0.03)])
def test_the_running_daemon_allocates_nothing_per_frame(bed_factory, tmp_path, release_shimmerd, malloc_count_library,
                                                        shm_name, fixture, radius):
    """`radius`: of the circle of tilts (radians). On the IMU the gyroscope reads no turn,
    so the circle is kept small enough that its self-check never gives it up (a turn of
    0.12 rad in half a second would): the fusion runs on every scan to the end."""
    dev = Device(fixture)
    bed = bed_factory(fixture)
    pipe = ScanPipe(bed, dev)
    address_file = str(tmp_path / "allocations.address")
    pipe.pose(0, 0)
    d = bed.spawn("run", "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=100",
                  "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name, "--set", "Sink.fps=60",
                  "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3",
                  binary=release_shimmerd,
                  extra_env={"LD_PRELOAD": malloc_count_library + ":" + bed.env["LD_PRELOAD"],
                             "SHIMMERD_TEST_MALLOC_COUNT_FILE": address_file,
                             # The render loop alone: on a system bus, each PropertiesChanged
                             # (at most 10 a second) is a message sd-bus allocates.
                             "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"})
    count = AllocationCount(d.p.pid, address_file, d)
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and frames_published(shm_name) > 0, "the first frame", d)
    group = int(bed.attr(dev.syspath, "buffer/watermark").strip())

    def tilt(steps, start):
        """One scan group per step along a circle of tilts, each waited for until a
        frame shows it (every step moves the focal point well past the dead band)."""
        for k in range(start, start + steps):
            before = frames_published(shm_name)
            a = 0.3 * k
            now = pose(radius * math.sin(a), radius * math.cos(a))
            if fixture == IMU:
                # The gyroscope turns with the tilt (in the step's first scan, 10 ms), so
                # that the fusion follows it at once, as it follows a real turn.
                was = pose(radius * math.sin(a - 0.3), radius * math.cos(a - 0.3))
                turn = [x / 0.01 for x in turn_between(was, now)]
                pipe.send(dev.scans(now, count=1, gyro_raw=dev.gyro_raw_for(turn))
                          + (dev.scans(now, count=group - 1) if group > 1 else b""))
            else:
                pipe.send(dev.scans(now, count=group))
            wait_until(lambda: frames_published(shm_name) > before, "a frame for step %d" % k, d)

    # Warm-up: the baseline (3 readings: each read takes a group's newest scan), the
    # first frames, the loop's arrays grown to their size.
    for _ in range(4):
        pipe.send(dev.scans(pose(0, 0), count=group))
        time.sleep(0.1)
    tilt(40, 0)
    allocations, frames = count.read(), frames_published(shm_name)
    tilt(150, 40)
    moving_frames = frames_published(shm_name) - frames
    assert moving_frames >= 150, moving_frames
    assert count.read() - allocations == 0, "allocations while moving, over %d frames" % moving_frames

    # Still: the same pose from now on. The smoother settles, the daemon stops drawing
    # and reads the device on its idle timer (every 0.1 s).
    pipe.send(dev.scans(pose(radius * math.sin(0.3 * 190), radius * math.cos(0.3 * 190)), count=group))
    seen = [frames_published(shm_name)]

    def settled():
        time.sleep(0.5)
        seen.append(frames_published(shm_name))
        return seen[-1] == seen[-2]
    wait_until(settled, "the card to settle", d)
    frames = seen[-1]
    time.sleep(2.5)   # the stillness window: the idle timer takes over
    allocations = count.read()
    time.sleep(1.5)
    assert frames_published(shm_name) == frames, "no frames while still"
    assert count.read() - allocations == 0, "allocations while still"
    assert d.poll() is None
    assert d.stop() == 0
    pipe.close()
    if fixture == IMU:
        assert any(re.search(r"gyroscope: iio:device0 \(mpu6500\).*same scan", x) for x in d.logs), d.logs
        assert not any("disagrees" in x or "stopped giving readings" in x for x in d.logs), d.logs
