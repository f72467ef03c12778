"""A device at rest and the daemon's rest watch: a HID hub that honours (or ignores) its
change sensitivity, a bmc150 whose motion interrupt is an IIO event stream, a hand that
moves a device at rest, and how long the first motion takes to be drawn."""
import random
import struct
import threading
import time

from support.harness import HID, G, Device, pose

HID_DEV = Device(HID)
REST = r"device still: reading every"
EVENTS = "bmc150_bosc0200_ideapad_d330_events"
HYSTERESIS = "in_accel_hysteresis"
EV_DEV = Device(EVENTS)


def focal(name):
    """The focal point of the newest frame in the shm header (docs/SHM.md: f32 at 64, 68)."""
    with open("/dev/shm/" + name, "rb") as f:
        h = f.read(72)
    return struct.unpack_from("<ff", h, 64)


def first_motion_latencies(d, shm_name, move, trials=20):
    """Per trial: at rest, the device tipped by `move(k)`; seconds until the shm header's
    focal point moves. Each trial waits for the rest that follows the last."""
    out = []
    mark = 0
    for k in range(trials):
        mark, _ = d.wait_log(REST, "rest before trial %d" % k, start=mark)
        mark += 1
        time.sleep(0.3)
        before = focal(shm_name)
        t0 = time.monotonic()
        move(k)
        deadline = t0 + 2
        while focal(shm_name) == before and time.monotonic() < deadline:
            time.sleep(0.001)
        out.append(time.monotonic() - t0)
    return sorted(out)


def hand(report, target, seconds=0.5, hz=50, noise=3, seed=0):
    """A hand setting the device down in a new pose: `report(counts)` of `target` (a dict of
    counts) at once, then `seconds` of reports at `hz` around it (+-`noise` counts, what a
    sensor moved by a hand reads), then the pose itself, held; on a thread, so the first
    report's time is the move's."""
    rng = random.Random(seed)
    report(target)

    def run():
        for _ in range(int(seconds * hz)):
            time.sleep(1 / hz)
            report({c: v + rng.randint(-noise, noise) for c, v in target.items()})
        time.sleep(1 / hz)
        report(target)
    threading.Thread(target=run, daemon=True).start()


class Hub:
    """The hub's side of a running buffer, from the kernel's view: at the sampling
    frequency the daemon set, the pose `pose_now()` is sampled; a hub that honours its
    change sensitivity sends a report only when an axis moved by `in_accel_hysteresis`
    (g, the HID field's unit) since the last report it sent, and then one group of
    `buffer/watermark` reports (a moving hub goes on reporting at its rate: the kernel
    makes the node readable at the watermark). A non-compliant hub (`every` seconds) sends
    a report every `every` seconds whatever its sensitivity, handed over by the
    watermark's groups too."""

    def __init__(self, bed, pipe, pose_now, every=None):
        self.bed, self.pipe, self.pose_now, self.every = bed, pipe, pose_now, every
        self.rng = random.Random(1)
        self.hand_until = 0.0        # a hand moves it: reports at its rate, with a hand's noise
        self.stop = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def attr(self, name, default):
        try:
            return float(self.bed.attr(HID_DEV.syspath, name).strip() or default)
        except (OSError, ValueError):
            return default

    def run(self):
        last = None
        queued = []
        t0 = time.monotonic()
        t = 0.0
        while not self.stop.is_set():
            hz = self.attr("in_accel_sampling_frequency", 100.0) or 100.0
            group = max(1, int(self.attr("buffer/watermark", 1)))
            step = self.every or 1 / hz
            t += step
            time.sleep(max(0.0, t0 + t - time.monotonic()))
            raw = HID_DEV.raw_for(pose(*self.pose_now()))
            in_hand = time.monotonic() < self.hand_until
            if in_hand:
                raw = [v + self.rng.randint(-300, 300) for v in raw]      # +-0.003 g
            hysteresis = 0.0 if in_hand else self.attr(HYSTERESIS, 0.0)
            moved = last is None or max(abs(a - b) * HID_DEV.scale[i] / G for i, (a, b) in enumerate(zip(raw, last))) \
                >= hysteresis
            ts = int((t0 + t) * 1e9)
            if self.every is not None:
                queued.append(HID_DEV.scans(None, count=1, ts0=ts, raw=raw))
                if len(queued) >= group:
                    self.send(b"".join(queued))
                    queued = []
            elif moved:
                self.send(b"".join(HID_DEV.scans(None, count=1, ts0=ts + k * int(1e9 / hz), raw=raw)
                                   for k in range(group)))
                t += (group - 1) / hz
                last = raw
            if self.every is None and hysteresis <= 0:
                last = None          # no sensitivity set: every report is sent

    def send(self, data):
        try:
            self.pipe.send(data)
            self.sent += 1
        except BlockingIOError:
            pass

    def close(self):
        self.stop.set()
        self.thread.join()


class Held:
    """The device lying in a pose, its attributes read with +-`noise` counts of a sensor's
    noise (a fresh value every 10 ms, as a polled sensor converts) for the first
    `noisy_for` seconds: the daemon's own noise estimate, and so its rest band, are a real
    sensor's; then without (a sensor whose last bit stands still, so that the rest comes
    when the test expects it). `pose` may change at any time.

    The values change from `start()` on: umockdev writes an attribute as a new file
    renamed over the old, and libiio's scan of the device's directory, when the daemon
    builds its context, fails on a name that vanished between listing and stat (sysfs
    never renames), so the test starts the noise once the daemon has attached."""

    def __init__(self, bed, pose_now, noise=1, noisy_for=4.0, hand_noise=3):
        self.bed, self.pose = bed, pose_now
        self.written = EV_DEV.raw_for(pose(*pose_now))
        self.bed.set_raw(EV_DEV, self.written)
        self.noisy_for = noisy_for
        self.noise_until = 0.0
        self.noise = noise
        self.rng = random.Random(3)
        self.hand_until = 0.0        # a hand moves it: +-3 counts, as for the other devices
        self.hand_noise = hand_noise
        self.creeping = None         # (from, to, start, seconds): a slow drift, no event
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        """Begins the noise and the moves' writes; once only, later calls do nothing."""
        if self.thread.is_alive():
            return
        self.noise_until = time.monotonic() + self.noisy_for if self.noise else 0.0
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            with self.lock:
                now = time.monotonic()
                if self.creeping:
                    a, b, start, seconds = self.creeping
                    f = min(1.0, (now - start) / seconds)
                    self.pose = tuple(x + (y - x) * f for x, y in zip(a, b))
                raw = EV_DEV.raw_for(pose(*self.pose))
                noise = self.hand_noise if now < self.hand_until else self.noise if now < self.noise_until else 0
                values = [v + self.rng.randint(-noise, noise) for v in raw]
                if values != self.written:
                    self.bed.set_raw(EV_DEV, values)
                    self.written = values
            time.sleep(0.01)

    def move(self, to):
        """A hand sets the device down at `to`: the registers hold it at once, then 0.5 s of a
        hand's noise around it."""
        with self.lock:
            self.pose = to
            self.hand_until = time.monotonic() + 0.5
            self.written = EV_DEV.raw_for(pose(*to))
            self.bed.set_raw(EV_DEV, self.written)

    def creep(self, to, seconds):
        """From now on the device drifts to `to` at an even pace over `seconds`, too slow
        for its motion detector, which sends nothing; then it lies there."""
        with self.lock:
            self.creeping = (self.pose, to, time.monotonic(), seconds)

    def close(self):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
