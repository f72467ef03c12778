"""The kernel's side of an IIO device's event stream, emulated for the end-to-end tests
(include/uapi/linux/iio/events.h, drivers/iio/industrialio-event.c): IIO_GET_EVENT_FD_IOCTL
(0x80046990, `_IOR('i', 0x90, int)`) on the device's character device hands out a new
descriptor from which `struct iio_event_data` records are read.

umockdev cannot hand a new descriptor over its socket, so the stream is a pipe made here
whose read end the daemon inherits (`fd`, passed with `pass_fds`): a UMockdev.IoctlBase on
the device node answers the ioctl by writing that descriptor's number into `*arg`, as the
kernel writes the new one's. The test writes records into the pipe (`motion`), or bytes
that are none (`send`)."""
import os
import struct
import threading
import time

from gi.repository import UMockdev

ENOTTY = 25
IIO_GET_EVENT_FD_IOCTL = 0x80046990
# include/uapi/linux/iio/types.h: IIO_ACCEL; IIO_MOD_X, _Y, _Z; IIO_EV_TYPE_ROC; IIO_EV_DIR_EITHER.
IIO_ACCEL, MOD = 3, {"x": 1, "y": 2, "z": 3}
IIO_EV_TYPE_ROC, IIO_EV_DIR_EITHER = 2, 0
RECORD = struct.Struct("=Qq")


def event_code(chan_type, modifier, direction, ev_type, chan=0):
    """IIO_EVENT_CODE() of include/linux/iio/events.h (diff 0, chan2 0)."""
    return (ev_type << 56) | (direction << 48) | (modifier << 40) | (chan_type << 32) | (chan & 0xFFFF)


class EventStream:
    """The event stream of the device at `devnode` (`/dev/iio:deviceN`). `fifo`: make the
    node a FIFO first (poll mode: nothing else serves it; in buffer mode `ScanPipe` has)."""

    def __init__(self, bed, devnode, fifo=True):
        self.fd, self.w = os.pipe()
        os.set_blocking(self.w, False)
        if fifo:
            path = bed.root + devnode
            if os.path.lexists(path):
                os.unlink(path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.mkfifo(path)
        self.lock = threading.Lock()
        self.requests = 0          # IIO_GET_EVENT_FD_IOCTL calls the daemon made
        self.refuse = None         # an errno to answer the ioctl with (EBUSY: another reader has the stream)
        self.unknown = []
        self.handler = UMockdev.IoctlBase()
        self.handler.connect("handle-ioctl", self._ioctl)
        self.bed, self.devnode = bed, devnode
        bed.tb.attach_ioctl(devnode, self.handler)

    def _ioctl(self, handler, client):
        req = client.get_request()
        with self.lock:
            if req != IIO_GET_EVENT_FD_IOCTL:
                self.unknown.append(hex(req))
                client.complete(-1, ENOTTY)
                return True
            self.requests += 1
            if self.refuse is not None:
                client.complete(-1, self.refuse)
                return True
        client.get_arg().resolve(0, 4).update(0, struct.pack("=i", self.fd))
        client.complete(0, 0)
        return True

    def motion(self, axis="x"):
        """The detector fired on `axis`: one rate-of-change record, either direction."""
        self.send(RECORD.pack(event_code(IIO_ACCEL, MOD[axis], IIO_EV_DIR_EITHER, IIO_EV_TYPE_ROC),
                              time.monotonic_ns()))

    def send(self, data):
        os.write(self.w, data)

    def close(self):
        self.bed.tb.detach_ioctl(self.devnode)
        os.close(self.w)
        os.close(self.fd)
