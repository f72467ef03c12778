"""The kernel side of an input device's event node, emulated for the end-to-end tests
(there is no /dev/uinput here): what evdev answers and what it hands a reader, following
include/uapi/linux/input.h, drivers/input/evdev.c and drivers/input/input.c.

- The ioctls libevdev makes (served by a UMockdev.IoctlBase from the node's
  `*.evdev.json` fixture): EVIOCGVERSION, EVIOCGID, EVIOCGNAME, EVIOCGPHYS and EVIOCGUNIQ
  (ENOENT when the driver set none), EVIOCGPROP, EVIOCGBIT of every type, EVIOCGKEY,
  EVIOCGLED, EVIOCGSW and EVIOCGSND (all clear), EVIOCSCLOCKID, and EVIOCGABS with the
  axis's value as the kernel holds it *now* (dev->absinfo): what libevdev reads again
  after a SYN_DROPPED. A recorded ioctl file could not change that answer.
- The node itself is a FIFO the test writes `struct input_event`s into (24 bytes on 64-bit:
  a timeval, u16 type, u16 code, s32 value); every read(2) of a whole number of events
  gets whole events, as from evdev_read().
- A report passes the input core as the kernel passes it: each axis defuzzed against
  the value it had (input_defuzz_abs_event()) and left out when unchanged, MSC_TIMESTAMP
  where the device sends it, and SYN_REPORT only when something came before it
  (input_handle_event(): num_vals >= 2).
- The kernel's buffer for each reader (evdev_compute_buffer_size(): room for 8 packets of
  the events input_estimate_events_per_packet() counts, at least 64, a power of two): a
  reader that falls behind past it loses what was queued, and reads SYN_DROPPED first
  (__pass_event()).

Every request the daemon makes of the node is a round trip to this process, which the
kernel's evdev does not cost: umockdev's preload library sends each ioctl here, and each
read(2) too (no handler here takes reads, so umockdev answers that the daemon reads the
FIFO itself). The ioctls are counted here; the wakeup test counts the reads in the
daemon's /proc/PID/io."""
import fcntl
import json
import os
import struct
import termios
import threading
import time

from gi.repository import UMockdev

from support.harness import FIXTURES, G, mat_inv, mat_vec

ENOENT, ENODEV, ENOTTY, EINVAL = 2, 19, 25, 22
EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_FF = 0, 1, 2, 3, 4, 5, 0x11, 0x12, 0x15
SYN_REPORT, SYN_DROPPED = 0, 3
MSC_TIMESTAMP = 5
ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ = range(6)
EVENT = struct.Struct("<qqHHi")
ABSINFO = struct.Struct("<6i")
# include/uapi/linux/input-event-codes.h: the largest code of each type.
MAX_CODE = {EV_SYN: 0x0f, EV_KEY: 0x2ff, EV_REL: 0x0f, EV_ABS: 0x3f, EV_MSC: 0x07, EV_SW: 0x10, EV_LED: 0x0f,
            EV_SND: 0x07, EV_FF: 0x7f}
EV_MAX = 0x1f


def bits(codes, max_code):
    """A bitmap as the kernel copies it out: whole longs (8 bytes), bit n of byte n // 8."""
    size = ((max_code + 1) + 63) // 64 * 8
    out = bytearray(size)
    for c in codes:
        out[c // 8] |= 1 << (c % 8)
    return bytes(out)


def c_div(a, b):
    """C's integer division: toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def defuzz(value, old, fuzz):
    """drivers/input/input.c input_defuzz_abs_event()."""
    if fuzz:
        if old - c_div(fuzz, 2) < value < old + c_div(fuzz, 2):
            return old
        if old - fuzz < value < old + fuzz:
            return c_div(old * 3 + value, 4)
        if old - fuzz * 2 < value < old + fuzz * 2:
            return c_div(old + value, 2)
    return value


class EvdevNode:
    """One event node of a testbed (its udev view comes from the fixture's `.umockdev`),
    its kernel side served from `<name>.evdev.json`."""

    def __init__(self, bed, spec_name, devnode=None):
        """`devnode`: another node to serve the same device at (a twin)."""
        with open(os.path.join(FIXTURES, spec_name + ".evdev.json")) as f:
            spec = json.load(f)
        self.spec = spec
        self.bed = bed
        self.devnode = devnode or spec["devnode"]
        self.name = spec["name"]
        self.codes = {int(t): list(c) for t, c in spec["codes"].items()}
        self.absinfo = {int(c): [0] + list(v) for c, v in spec["abs"].items()}   # value, min, max, fuzz, flat, res
        self.lock = threading.Lock()
        self.ioctls = 0          # ioctls the daemon made of the node
        self.unknown = []        # ioctl numbers not emulated
        self.dropped = 0         # times a reader fell behind (SYN_DROPPED handed over)
        self.gone = False
        self.written = 0         # reports handed over
        axes = len(self.absinfo)
        wanted = max(8 * (axes + len(self.codes.get(EV_REL, [])) + 7), 64)
        self.buffer_events = 1 << (wanted - 1).bit_length()
        path = bed.root + self.devnode
        if os.path.lexists(path):
            os.unlink(path)          # umockdev's pty: a FIFO hands over whole events instead
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkfifo(path)
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.handler = UMockdev.IoctlBase()
        self.handler.connect("handle-ioctl", self._ioctl)
        bed.tb.attach_ioctl(self.devnode, self.handler)

    # --- what the device does ---

    def set(self, values):
        """The device's state changes without anyone reading it (reports a reader lost):
        the kernel's dev->absinfo takes the values, defuzzed."""
        with self.lock:
            for code, v in values.items():
                info = self.absinfo[code]
                info[0] = defuzz(int(round(v)), info[0], info[3])

    def report(self, values, timestamp_us=None, time_ns=None):
        """One report: each axis in `values` (code -> counts) through the input core, then
        MSC_TIMESTAMP (`timestamp_us`, 32 bits) and SYN_REPORT; handed to the reader's
        buffer. Returns the state of the axes after it (what a reader's libevdev holds)."""
        t = time_ns if time_ns is not None else time.monotonic_ns()
        with self.lock:
            events = []
            for code, v in values.items():
                info = self.absinfo[code]
                new = defuzz(int(round(v)), info[0], info[3])
                if new != info[0]:
                    info[0] = new
                    events.append((EV_ABS, code, new))
            if timestamp_us is not None:
                # A u32 the driver passes as the event's s32 value (input_event()).
                us = timestamp_us & 0xFFFFFFFF
                events.append((EV_MSC, MSC_TIMESTAMP, us - (1 << 32) if us >= 1 << 31 else us))
            state = {c: info[0] for c, info in self.absinfo.items()}
            if not events:
                return state
            events.append((EV_SYN, SYN_REPORT, 0))
            self._hand_over(events, t)
            self.written += 1
            return state

    def drop(self, time_ns=None):
        """The reader fell behind: what was queued is lost and SYN_DROPPED comes first."""
        with self.lock:
            self._flush()
            self._write([(EV_SYN, SYN_DROPPED, 0)], time_ns if time_ns is not None else time.monotonic_ns())
            self.dropped += 1

    def vanish(self):
        """The device is unplugged: evdev answers every read and ioctl with ENODEV from now
        on (evdev_read(), evdev_ioctl() once !evdev->exist), before udev's remove event."""
        with self.lock:
            self.gone = True
        self.handler.connect("handle-read", self._read_gone)

    def _read_gone(self, handler, client):
        client.complete(-1, ENODEV)
        return True

    def unread(self):
        """Events handed over that no reader has taken."""
        with self.lock:
            return self._queued()

    def state(self):
        with self.lock:
            return {c: info[0] for c, info in self.absinfo.items()}

    def close(self):
        """The node goes: its FIFO closed, its ioctls no longer served."""
        self.bed.tb.detach_ioctl(self.devnode)
        os.close(self.fd)

    # --- the reader's buffer ---

    def _queued(self):
        n = bytearray(4)
        fcntl.ioctl(self.fd, termios.FIONREAD, n)
        return struct.unpack("<i", n)[0] // EVENT.size

    def _flush(self):
        try:
            while os.read(self.fd, 1 << 16):
                pass
        except BlockingIOError:
            pass

    def _hand_over(self, events, t):
        if self._queued() + len(events) > self.buffer_events:
            self._flush()                                   # __pass_event(): all unread events go
            events = [(EV_SYN, SYN_DROPPED, 0)] + events
            self.dropped += 1
        self._write(events, t)

    def _write(self, events, t):
        sec, usec = divmod(t // 1000, 1_000_000)
        os.write(self.fd, b"".join(EVENT.pack(sec, usec, ty, code, value) for ty, code, value in events))

    # --- the ioctls (evdev_do_ioctl()) ---

    def _ioctl(self, handler, client):
        req = client.get_request()
        nr, size, kind = req & 0xFF, (req >> 16) & 0x3FFF, (req >> 8) & 0xFF
        with self.lock:
            self.ioctls += 1
            try:
                if self.gone:
                    answer = -ENODEV
                else:
                    answer = self._answer(nr, size) if kind == ord("E") else None
            except Exception as e:   # a bug here must show in the test, not hang the daemon
                self.unknown.append("%x raised %r" % (req, e))
                answer = -EINVAL
            if answer is None:
                self.unknown.append(hex(req))
                client.complete(-1, ENOTTY)
            elif isinstance(answer, int):
                client.complete(-1 if answer < 0 else answer, -answer if answer < 0 else 0)
            else:
                data = answer[:size]
                if data:
                    client.get_arg().resolve(0, len(data)).update(0, data)
                # evdev returns the length copied for names and bitmaps, 0 otherwise.
                client.complete(len(data) if 0x06 <= nr < 0x40 else 0, 0)
        return True

    def _answer(self, nr, size):
        """The bytes an ioctl writes (its return value is their length where evdev returns
        one), or an int: 0, or -errno."""
        spec = self.spec
        if nr == 0x01:
            return struct.pack("<i", spec["driver_version"])
        if nr == 0x02:
            return struct.pack("<4H", *spec["id"])
        if nr in (0x06, 0x07, 0x08):
            text = spec[{0x06: "name", 0x07: "phys", 0x08: "uniq"}[nr]]
            return -ENOENT if text is None else text.encode() + b"\0"
        if nr == 0x09:
            return bits(spec["properties"], 0x1f)
        if nr in (0x18, 0x19, 0x1A, 0x1B):           # EVIOCGKEY, LED, SND, SW: nothing pressed or lit
            return bits([], MAX_CODE[{0x18: EV_KEY, 0x19: EV_LED, 0x1A: EV_SND, 0x1B: EV_SW}[nr]])
        if 0x20 <= nr < 0x20 + EV_MAX + 1:            # EVIOCGBIT(type)
            ev = nr - 0x20
            if ev == 0:
                return bits([EV_SYN] + list(self.codes), EV_MAX)
            return bits(self.codes.get(ev, []), MAX_CODE.get(ev, 0x0f))
        if 0x40 <= nr < 0x80:                         # EVIOCGABS(axis): dev->absinfo now
            info = self.absinfo.get(nr - 0x40, [0, 0, 0, 0, 0, 0])
            return ABSINFO.pack(*info)
        if nr == 0xA0:                                # EVIOCSCLOCKID
            return 0
        return None


# The lis3lv02d of an HP EliteBook: its fixture, its input device, and its axes in milli-g
# with the fixture's udev ACCEL_MOUNT_MATRIX.
LIS3 = "lis3lv02d_hp_elitebook"
LIS3_INPUT = "/sys/devices/platform/lis3lv02d/input/input6"
LIS3_MATRIX = [[0, -1, 0], [-1, 0, 0], [0, 0, -1]]


def lis3_counts(accel):
    return dict(zip((ABS_X, ABS_Y, ABS_Z), [round(a / G * 1000) for a in mat_vec(mat_inv(LIS3_MATRIX), accel)]))


def sensors_json(bed, *extra, status=0):
    """The report of `shimmerd sensors --json`; it exits 69 when nothing is usable."""
    r = bed.run("sensors", "--json", *extra)
    assert r.returncode == status, r.stderr
    return json.loads(r.stdout)
