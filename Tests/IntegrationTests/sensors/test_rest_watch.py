"""A still device that says itself when it moves, through the real binary under umockdev
(the frames painted into shm, as for a reader that holds a claim): the daemon sleeps
until it does, instead of reading it ten times a second.

- lis3lv02d's event node (evdev_emulation.py): the input core sends nothing while the
  values stand, so the node is waited on at rest;
- a HID sensor hub (hid-sensor-accel-3d) in buffer mode: `in_accel_hysteresis` is set at
  rest, and the hub, emulated here from the kernel's side, hands over scans only when an
  axis moved by it since the last one it sent; the node is waited on. A hub that ignores
  it (AMD SFH re-sends every 200 ms) is found out and read on a timer again;
- a bmc150 whose any-motion interrupt is wired (its trigger says so): its rate-of-change
  events are enabled at rest and its event stream (iio_events_emulation.py) is waited on,
  with a read every second besides, for a creep no event reports;
- what is written for the rest is put back when the device moves, on SIGTERM and on reload.

Figures: over 20 s from 2 s after rest, at most 1.5 wakeups a second (voluntary context
switches of all the daemon's threads, support.harness.wakeups); the first motion after a rest
drawn (the shm header's focal point moves) within 100 ms at p95 and 150 ms at most over 20
trials."""
import math
import random
import threading
import time

import pytest

from support.evdev_emulation import LIS3, LIS3_INPUT, EvdevNode, lis3_counts, sensors_json
from support.harness import (HID, ROUND_TRIP_CALLS, ScanPipe, pose, record_switches, voluntary_switches, wait_until,
                             wakeups)
from support.iio_events_emulation import EventStream
from support.rest import EV_DEV, EVENTS, HID_DEV, HYSTERESIS, REST, Held, Hub, first_motion_latencies, focal, hand

MOVING = r"device moving: full rate"


def spawn(bed, tmp_path, shm_name, *extra, pass_fds=()):
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    # No system bus: nobody could claim, so the frames are painted, as for a claim.
    return bed.spawn("run", "--config", str(conf), "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name,
                     "--set", "Log.level=debug", "--set", "Attitude.baseline_samples=3", *extra, pass_fds=pass_fds)


def wakeup_rate(d, seconds, after=0.0):
    """The daemon's wakeups a second over `seconds`, from `after` seconds from now."""
    time.sleep(after)
    before, t0 = wakeups(d.p.pid), time.monotonic()
    time.sleep(seconds)
    return (wakeups(d.p.pid) - before) / (time.monotonic() - t0)


def still_wakeups(d, rest_line):
    """Wakeups a second over 20 s from 2 s after the rest that `rest_line` (a log index) began."""
    start, _ = d.wait_log(REST, "the device at rest", start=rest_line)
    rate = wakeup_rate(d, 20, after=2)
    assert not [line for line in d.logs[start + 1:] if MOVING in line], "the device was taken as moving while still"
    return rate


def p95(values):
    return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


# --- an input device: its node waited on ---

def test_lis3lv02d_at_rest_wakes_at_most_1_5_times_a_second_and_its_first_move_is_drawn_within_100_ms(
        bed_factory, tmp_path, shm_name):
    bed = bed_factory(LIS3)
    node = EvdevNode(bed, LIS3 + ".event6")
    node.report(lis3_counts(pose(0, 0.2)))
    d = spawn(bed, tmp_path, shm_name)
    _, line = d.wait_log(r"using input:event6 .* in input mode", "lis3lv02d taken")
    assert "at rest: node (the input core passes only changes beyond the axes' fuzz" in line
    try:
        rate = still_wakeups(d, 0)
        poses = [pose(0.05, 0.2), pose(0, 0.2)]
        latencies = first_motion_latencies(d, shm_name, lambda k: hand(node.report, lis3_counts(poses[k % 2]), seed=k))
    finally:
        status = d.stop()
    print("lis3lv02d at rest: %.2f wakeups a second; first motion drawn after p95 %.1f ms, max %.1f ms (%s)"
          % (rate, 1000 * p95(latencies), 1000 * latencies[-1], ", ".join("%.0f" % (1000 * x) for x in latencies)))
    assert status == 0
    assert rate <= 1.5, "%.2f wakeups a second at rest" % rate
    assert p95(latencies) <= 0.1 and latencies[-1] <= 0.15, latencies
    assert bed.attr(LIS3_INPUT, "poll").strip() == "50"


def test_sensors_says_which_rest_watch_each_device_gets(bed_factory):
    bed = bed_factory(LIS3)
    EvdevNode(bed, LIS3 + ".event6")
    lis3 = sensors_json(bed)
    hub = sensors_json(bed_factory(HID))
    by_id = {d["device"]: d for r in (lis3, hub) for d in r["devices"]}
    assert by_id["input:event6"]["rest_watch"] == "node"
    assert by_id["iio:device3"]["rest_watch"] == "hysteresis"
    assert "in_accel_hysteresis set to 0.004000 g at rest" in by_id["iio:device3"]["rest_watch_reason"]
    text = bed_factory(HID).run("sensors").stdout
    assert "    at rest: hysteresis (a HID sensor hub" in text


# --- a HID sensor hub: its change sensitivity ---


def start_hub(bed_factory, tmp_path, shm_name, every=None, *extra):
    bed = bed_factory(HID)
    pipe = ScanPipe(bed, HID_DEV)
    held = {"pose": (0.0, 0.2)}
    hub = Hub(bed, pipe, lambda: held["pose"], every=every)
    d = spawn(bed, tmp_path, shm_name, "--set", "Sensor.mode=buffer", *extra)
    _, line = d.wait_log(r"using iio:device3 .* in buffer mode", "the hub in buffer mode")
    return bed, pipe, hub, held, d, line


def test_a_hub_honouring_its_sensitivity_at_rest_wakes_at_most_1_5_times_a_second_and_its_first_move_is_drawn_within_100_ms(  # noqa: E501 (a name that states the claim)
        bed_factory, tmp_path, shm_name):
    bed, pipe, hub, held, d, line = start_hub(bed_factory, tmp_path, shm_name)
    assert "at rest: hysteresis (a HID sensor hub: in_accel_hysteresis set to 0.004000 g at rest" in line
    try:
        rate = still_wakeups(d, 0)
        assert bed.attr(HID_DEV.syspath, HYSTERESIS).strip() == "0.004000"
        poses = [(0.05, 0.2), (0.0, 0.2)]

        def move(k):
            held["pose"] = poses[k % 2]
            hub.hand_until = time.monotonic() + 0.5
        latencies = first_motion_latencies(d, shm_name, move)
    finally:
        status = d.stop()
        hub.close()
    print("HID hub honouring in_accel_hysteresis, at rest: %.2f wakeups a second; "
          "first motion drawn after p95 %.1f ms, max %.1f ms (%s)"
          % (rate, 1000 * p95(latencies), 1000 * latencies[-1], ", ".join("%.0f" % (1000 * x) for x in latencies)))
    assert status == 0
    assert rate <= 1.5, "%.2f wakeups a second at rest" % rate
    assert p95(latencies) <= 0.1 and latencies[-1] <= 0.15, latencies
    assert bed.attr(HID_DEV.syspath, HYSTERESIS).strip() == "0.000000"


def test_a_hub_that_ignores_its_sensitivity_is_found_out_put_back_and_read_on_a_timer(bed_factory, tmp_path, shm_name):
    bed, pipe, hub, held, d, line = start_hub(bed_factory, tmp_path, shm_name, every=0.2)
    try:
        rest, _ = d.wait_log(REST, "the device at rest")
        _, why = d.wait_log(r"iio:device3 .*: still sends [0-9.]+ scans a second at rest with in_accel_hysteresis = "
                            r"0\.004000: the hub ignores its change sensitivity; "
                            r"reading it every 0\.1 s at rest instead",
                            "the hub found out", start=rest)
        d.wait_log(r"in_accel_hysteresis put back to 0\.000000", "its sensitivity put back", start=rest)
        assert bed.attr(HID_DEV.syspath, HYSTERESIS).strip() == "0.000000"
        rate = wakeup_rate(d, 10, after=1)
    finally:
        status = d.stop()
        hub.close()
    print("a hub re-sending every 200 ms, at rest: %.2f wakeups a second after it was found out (%s)" % (rate, why))
    assert status == 0
    assert rate <= 10.5, "%.2f wakeups a second: worse than reading every 0.1 s" % rate


# --- what was written for the rest, put back ---

def hysteresis_set_and_put_back(d, start):
    """Log indices of the next setting of the hub's sensitivity at rest from `start`."""
    i, _ = d.wait_log(r"at rest: in_accel_hysteresis = 0\.004000 \(was 0\.000000\)", "the sensitivity set", start=start)
    return i


@pytest.mark.parametrize("ending", ["motion", "SIGTERM", "reload"])
def test_the_sensitivity_is_put_back(bed_factory, tmp_path, shm_name, ending):
    """Set at each rest, put back when the hub moves, on SIGTERM and on reload (then set
    again at the next rest)."""
    bed, pipe, hub, held, d, _ = start_hub(bed_factory, tmp_path, shm_name)
    try:
        i = hysteresis_set_and_put_back(d, 0)
        assert bed.attr(HID_DEV.syspath, HYSTERESIS).strip() == "0.004000"
        if ending == "motion":
            held["pose"] = (0.3, 0.2)
        elif ending == "reload":
            d.p.send_signal(1)      # SIGHUP
        if ending != "SIGTERM":
            j, _ = d.wait_log(r"in_accel_hysteresis put back to 0\.000000", "put back", start=i)
            moved = [line for line in d.logs[i:j] if MOVING in line]
            assert not moved, "put back only after the move was taken, or a reload's put back after a move"
            if ending == "motion":
                d.wait_log(MOVING, "the move taken", start=j)
            hysteresis_set_and_put_back(d, j)      # the next rest sets it again
    finally:
        status = d.stop()
        hub.close()
    assert status == 0
    assert bed.attr(HID_DEV.syspath, HYSTERESIS).strip() == "0.000000"
    assert [line for line in d.logs if "in_accel_hysteresis put back to 0.000000" in line]


# --- a device's own motion events ---

ENABLES = ["events/in_accel_%s_roc_either_en" % a for a in "xyz"]
LSB = 0.019154


def start_events(bed_factory, tmp_path, shm_name, *extra, refuse=None, noise=1, hand_noise=3):
    bed = bed_factory(EVENTS)
    stream = EventStream(bed, "/dev/iio:device0")
    stream.refuse = refuse
    held = Held(bed, (0.0, 0.2), noise=noise, hand_noise=hand_noise)
    try:
        d = spawn(bed, tmp_path, shm_name, "--set", "Sensor.mode=poll", "--set", "Sensor.rate=100", *extra,
                  pass_fds=(stream.fd,))
        _, line = d.wait_log(r"using iio:device0 .* in poll mode", "the bmc150 in poll mode")
        held.start()
    except BaseException:
        held.close()
        raise
    return bed, stream, held, d, line


def test_a_bmc150_whose_readings_stand_still_between_moves_draws_every_move(bed_factory, tmp_path, shm_name):
    """No noise at rest and none in the hand: the registers change only when the device is
    set down elsewhere, 3 degrees away and back. Its moves are not its noise: each of 12
    is drawn within 150 ms of its event (the card had stopped following at the eighth)."""
    bed, stream, held, d, _ = start_events(bed_factory, tmp_path, shm_name, noise=0, hand_noise=0)
    try:
        poses = [(0.05, 0.2), (0.0, 0.2)]

        def move(k):
            held.move(poses[k % 2])
            stream.motion("xyz"[k % 3])
        latencies = first_motion_latencies(d, shm_name, move, trials=12)
    finally:
        status = d.stop()
        held.close()
    print("bmc150 without noise, moved 12 times: drawn after %s ms" % ", ".join("%.0f" % (1000 * x) for x in latencies))
    assert status == 0
    assert latencies[-1] < 0.15


def enables(bed):
    return [bed.attr(EV_DEV.syspath, f).strip() for f in ENABLES]


def test_a_bmc150_with_its_interrupt_at_rest_wakes_at_most_1_5_times_a_second_and_an_event_is_drawn_within_100_ms(
        bed_factory, tmp_path, shm_name):
    bed, stream, held, d, line = start_events(bed_factory, tmp_path, shm_name, noise=0)
    assert "at rest: events (its motion events (in_accel_x_roc_either_en, in_accel_y_roc_either_en, " \
           "in_accel_z_roc_either_en) enabled at rest, its event stream waited on, a read every 1 s besides)" in line
    try:
        rate = still_wakeups(d, 0)
        assert enables(bed) == ["1", "1", "1"] and stream.requests == 1
        poses = [(0.05, 0.2), (0.0, 0.2)]

        def move(k):
            # The detector fires once the device has moved: its data registers hold the new pose.
            held.move(poses[k % 2])
            stream.motion("xyz"[k % 3])
        latencies = first_motion_latencies(d, shm_name, move)
    finally:
        status = d.stop()
        held.close()
    print("bmc150 with motion events, at rest: %.2f wakeups a second; first motion drawn after p95 %.1f ms, max %.1f ms"
          " (%s)" % (rate, 1000 * p95(latencies), 1000 * latencies[-1],
                     ", ".join("%.0f" % (1000 * x) for x in latencies)))
    assert status == 0 and stream.unknown == []
    assert rate <= 1.5, "%.2f wakeups a second at rest" % rate
    assert p95(latencies) <= 0.1 and latencies[-1] <= 0.15, latencies
    assert enables(bed) == ["0", "0", "0"]


def test_with_its_noise_all_along_a_bmc150_rests_on_its_events_and_a_creep_they_miss_is_drawn_within_1_1_s_of_its_end(
        bed_factory, tmp_path, shm_name):
    """The device's noise (+-1 count, 0.1 degrees) all along: at rest, at most 1.5 wakeups a
    second all the same; then half a degree over 2 s, below any motion detector's
    threshold: the read every second besides the events sees it."""
    bed, stream, held, d, _ = start_events(bed_factory, tmp_path, shm_name, noise=1)
    held.noise_until = float("inf")
    half_degree = math.radians(0.5)
    delays = []
    try:
        rate = still_wakeups(d, 0)
        mark = 0
        for k in range(6):
            mark, _ = d.wait_log(REST, "rest before creep %d (drawn so far: %s)" % (k, delays), start=mark)
            mark += 1
            time.sleep(0.5 + 0.17 * k)      # the creep starts at another phase of the reads each time
            before = focal(shm_name)
            roll, lean = held.pose
            start = time.monotonic()
            held.creep((roll, lean + (half_degree if k % 2 == 0 else -half_degree)), 2.0)
            while focal(shm_name) == before and time.monotonic() < start + 5:
                time.sleep(0.002)
            delays.append(time.monotonic() - start)
            time.sleep(max(0.0, start + 2.0 - time.monotonic()))      # the creep ends before the next rest
    finally:
        status = d.stop()
        held.close()
    print("bmc150 with motion events and its noise, at rest: %.2f wakeups a second; a half-degree creep over 2 s "
          "with no event: drawn %s s after it began" % (rate, ", ".join("%.2f" % x for x in delays)))
    assert status == 0 and stream.unknown == []
    assert rate <= 1.5, "%.2f wakeups a second at rest" % rate
    assert max(delays) <= 2 + 1.1, delays


def test_in_buffer_mode_a_bmc150_rests_on_the_event_stream_of_the_buffer_s_own_descriptor(bed_factory, tmp_path,
                                                                                          shm_name):
    """Buffer mode: libiio holds the device's character device, so the event stream is asked
    for on that descriptor (a second open of the node would be refused); the buffer's scans
    keep coming at rest (the kernel fills it at its rate) and are read by the backstop; the
    device's own events wake the daemon: at most 1.5 wakeups a second at rest, and the
    first motion after a rest drawn within 100 ms at p95 and 150 ms at most."""
    bed = bed_factory(EVENTS)
    pipe = ScanPipe(bed, EV_DEV)
    stream = EventStream(bed, "/dev/iio:device0", fifo=False)
    held = {"pose": (0.0, 0.2)}
    stop = threading.Event()
    rng = random.Random(4)

    def scan(t, ts_ns):
        # The device's noise, +-1 count, in every scan: a real sensor's last bit flickers.
        raw = [v + rng.randint(-1, 1) for v in EV_DEV.raw_for(pose(*held["pose"]))]
        return EV_DEV.scans(None, count=1, ts0=ts_ns, raw=raw)
    pipe.feed(bed, None, stop, scan_at=scan)
    d = spawn(bed, tmp_path, shm_name, "--set", "Sensor.mode=buffer", "--set", "Sensor.rate=100",
              pass_fds=(stream.fd,))
    try:
        _, line = d.wait_log(r"using iio:device0 .* in buffer mode", "the bmc150 in buffer mode")
        assert "at rest: events (its motion events" in line, line
        rest, _ = d.wait_log(REST, "the device at rest")
        time.sleep(2)
        # umockdev forwards each read of a node that has an ioctl handler to this process and
        # sleeps for the answer (two switches a read; the kernel's buffer costs none): the
        # daemon's own wakeups are its switches less those, told apart by where they sleep.
        seconds = 20.0
        by_call = voluntary_switches(record_switches(d.p.pid, seconds, tmp_path))
        rate = sum(n for call, n in by_call.items() if call not in ROUND_TRIP_CALLS) / seconds
        assert not [x for x in d.logs[rest + 1:] if MOVING in x], "the device was taken as moving while still"
        assert enables(bed) == ["1", "1", "1"] and stream.requests == 1
        poses = [(0.05, 0.2), (0.0, 0.2)]

        def move(k):
            held["pose"] = poses[k % 2]
            stream.motion("xyz"[k % 3])
        latencies = first_motion_latencies(d, shm_name, move)
    finally:
        status = d.stop()
        stop.set()
    calls = sorted(by_call.items(), key=lambda x: -x[1])
    print("bmc150 with motion events in buffer mode, at rest: %.2f wakeups a second (by call: %s); first motion drawn "
          "after p95 %.1f ms, max %.1f ms (%s)" % (rate, calls, 1000 * p95(latencies), 1000 * latencies[-1],
                                                   ", ".join("%.0f" % (1000 * x) for x in latencies)))
    # libiio frees its mmap blocks when it closes the buffer (BLOCK_FREE_IOCTL, _IO('i', 0xa1)),
    # which a kernel without that interface refuses, as the handler does.
    assert status == 0 and set(stream.unknown) <= {hex(0x69a1)}, stream.unknown
    assert rate <= 1.5, "%.2f wakeups a second at rest" % rate
    assert p95(latencies) <= 0.1 and latencies[-1] <= 0.15, latencies
    assert enables(bed) == ["0", "0", "0"]


@pytest.mark.parametrize("ending", ["motion", "SIGTERM", "reload"])
def test_the_motion_events_enables_are_put_back(bed_factory, tmp_path, shm_name, ending):
    bed, stream, held, d, _ = start_events(bed_factory, tmp_path, shm_name)
    try:
        i, _ = d.wait_log(r"at rest: events/in_accel_x_roc_either_en, events/in_accel_y_roc_either_en, "
                          r"events/in_accel_z_roc_either_en = 1", "the events enabled")
        assert enables(bed) == ["1", "1", "1"]
        if ending == "motion":
            held.pose = (0.3, 0.2)
            stream.motion("x")
        elif ending == "reload":
            d.p.send_signal(1)
        if ending != "SIGTERM":
            j, _ = d.wait_log(r"events/in_accel_z_roc_either_en put back to 0", "put back", start=i)
            moved = [line for line in d.logs[i:j] if MOVING in line]
            assert not moved if ending == "reload" else True
            wait_until(lambda: enables(bed) == ["0", "0", "0"] or
                       any("roc_either_en = 1" in line for line in d.logs[j:]), "the files put back", daemon=d)
    finally:
        status = d.stop()
        held.close()
    assert status == 0
    assert enables(bed) == ["0", "0", "0"]
    assert stream.requests == 1, "one event stream for the attach"


def test_bytes_that_are_no_event_record_are_said_once_and_the_device_is_read_all_the_same(bed_factory, tmp_path,
                                                                                          shm_name):
    bed, stream, held, d, _ = start_events(bed_factory, tmp_path, shm_name)
    try:
        rest, _ = d.wait_log(REST, "the device at rest")
        time.sleep(0.5)
        held.pose = (0.2, 0.2)
        stream.send(b"\x01" * 10)
        _, said = d.wait_log(r"iio:device0 .*: event stream: 10 bytes, not a whole number of 16-byte records; "
                             r"ignored, the device is read all the same", "the bad record said", start=rest)
        d.wait_log(MOVING, "the move read", start=rest)
        stream.send(b"\x02" * 10)
        d.wait_log(REST, "at rest again", start=rest + 1)
        time.sleep(0.5)
    finally:
        status = d.stop()
        held.close()
    assert status == 0
    assert len([line for line in d.logs if "event stream:" in line]) == 1


def test_an_event_stream_the_kernel_refuses_is_said_once_and_the_device_is_read_on_a_timer(bed_factory, tmp_path,
                                                                                           shm_name):
    bed, stream, held, d, _ = start_events(bed_factory, tmp_path, shm_name, refuse=16)     # EBUSY
    try:
        rest, _ = d.wait_log(REST, "the device at rest")
        _, said = d.wait_log(r"iio:device0 .*: ioctl IIO_GET_EVENT_FD_IOCTL on /dev/iio:device0 failed: "
                             r".*\(errno 16\); reading it every 0\.1 s at rest instead", "the refusal said")
        rate = wakeup_rate(d, 5, after=1)
    finally:
        status = d.stop()
        held.close()
    assert status == 0
    assert rate <= 10.5, rate
    assert enables(bed) == ["0", "0", "0"], "nothing left enabled"
