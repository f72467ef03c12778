#!/usr/bin/env python3
"""Reads shimmerd's shared-memory frames (Sink.type = shm): docs/SHM.md.

    shmread.py [--name shimmer] header              print the header as JSON
    shmread.py [--name shimmer] snapshot OUT.ppm    copy the newest frame (consistent copy,
                                                    retried per the format) to a PPM, print
                                                    the header of that frame as JSON
    shmread.py [--name shimmer] follow [-n N]       block on the futex, print one JSON line
                                                    per new frame (N frames, or forever)

As a module: `Segment(name)` gives `.header()`, `.read_frame()` and `.wait(frame, timeout)`.
Only the standard library (mmap via ctypes so read-only access works; futex via syscall(2)).
Python does plain loads; on x86-64 they are ordered like the C reader's acquire loads, and
the frame-counter check below detects a torn copy. Readers on weakly ordered CPUs that
need the strict guarantee should use C with __atomic_load_n(..., __ATOMIC_ACQUIRE).
"""
import argparse
import ctypes
import ctypes.util
import errno
import json
import os
import platform
import struct
import sys
import time

HEADER = struct.Struct("<4sIIIIIII QQQQ ff I")   # offsets 0..75 of the 128-byte header
FIELDS = ("magic", "version", "header_size", "width", "height", "stride", "fourcc", "buffer_count",
          "buffer_offset", "buffer_size", "frame", "frame_time_ns", "focal_x", "focal_y", "writer_pid")
FRAME_OFFSET = 48
XRGB8888 = 0x34325258
SYS_FUTEX = {"x86_64": 202, "aarch64": 98, "armv7l": 240, "riscv64": 98, "i686": 240}[platform.machine()]
FUTEX_WAIT = 0          # shared (no FUTEX_PRIVATE_FLAG): the writer is another process

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.syscall.restype = ctypes.c_long


class timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class FormatError(Exception):
    pass


class Segment:
    """A read-only mapping of /dev/shm/NAME. Reopen it (a new Segment) when `replaced()`
    says the writer created a new object under the name (another card size)."""

    def __init__(self, name="shimmer", directory="/dev/shm"):
        self.path = os.path.join(directory, name)
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            self.inode = st.st_ino
            if st.st_size < 128:
                raise FormatError("%s: %d bytes, smaller than the header" % (self.path, st.st_size))
            self.size = st.st_size
            addr = libc.mmap(None, self.size, 1, 1, fd, 0)     # PROT_READ, MAP_SHARED
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), "mmap " + self.path)
            self.addr = addr
        finally:
            os.close(fd)
        h = self.header()
        if h["magic"] != b"SHMR" or h["version"] != 1 or h["header_size"] != 128:
            raise FormatError("%s: not a version 1 SHMR object" % self.path)
        if h["buffer_count"] < 3 or h["buffer_offset"] + h["buffer_count"] * h["buffer_size"] > self.size:
            raise FormatError("%s: inconsistent buffer layout" % self.path)
        self.frame_word = ctypes.c_uint64.from_address(self.addr + FRAME_OFFSET)
        self.futex_word = ctypes.c_uint32.from_address(self.addr + FRAME_OFFSET)

    def close(self):
        if self.addr:
            libc.munmap(self.addr, self.size)
            self.addr = None

    def header(self):
        h = dict(zip(FIELDS, HEADER.unpack(ctypes.string_at(self.addr, HEADER.size))))
        h["fourcc_text"] = struct.pack("<I", h["fourcc"]).decode("ascii", "replace")
        return h

    def frame(self):
        return self.frame_word.value

    def read_frame(self, retries=100):
        """(header, pixels) of the newest complete frame, per docs/SHM.md: load frame f1,
        copy buffer (f1 - 1) mod N, load frame again as f2; the copy is good when
        f2 - f1 <= N - 2. The header's time and focal point are taken between the two
        loads and kept only when f2 == f1. Returns (header, None) when no frame exists yet."""
        for _ in range(retries):
            f1 = self.frame()
            h = self.header()
            if f1 == 0:
                return h, None
            n = h["buffer_count"]
            start = self.addr + h["buffer_offset"] + ((f1 - 1) % n) * h["buffer_size"]
            pixels = ctypes.string_at(start, h["stride"] * h["height"])
            f2 = self.frame()
            if f2 - f1 <= n - 2 and f2 == h["frame"] == f1:
                return h, pixels
        raise FormatError("%s: could not get a consistent copy in %d tries" % (self.path, retries))

    def wait(self, seen, timeout=None):
        """Blocks until `frame` differs from `seen` (FUTEX_WAIT on offset 48), or timeout
        seconds. Returns (frame, how): how is "woken" (a FUTEX_WAKE), "changed" (it had
        already changed: EAGAIN), "timeout" or "interrupted"."""
        ts = None
        if timeout is not None:
            ts = timespec(int(timeout), int((timeout - int(timeout)) * 1e9))
        current = self.frame()
        if current != seen:
            return current, "changed"
        r = libc.syscall(ctypes.c_long(SYS_FUTEX), ctypes.c_void_p(self.addr + FRAME_OFFSET), ctypes.c_int(FUTEX_WAIT),
                         ctypes.c_uint32(seen & 0xFFFFFFFF), ctypes.byref(ts) if ts else None, None, ctypes.c_int(0))
        e = ctypes.get_errno() if r != 0 else 0
        how = {0: "woken", errno.EAGAIN: "changed", errno.ETIMEDOUT: "timeout", errno.EINTR: "interrupted"}.get(e)
        if how is None:
            raise OSError(e, "futex wait on " + self.path)
        return self.frame(), how

    def replaced(self):
        """True when /dev/shm/NAME is now another object than the one mapped."""
        try:
            return os.stat(self.path).st_ino != self.inode
        except FileNotFoundError:
            return True


def ppm(header, pixels):
    """XRGB8888 (bytes B, G, R, X) to a binary PPM."""
    w, h, stride = header["width"], header["height"], header["stride"]
    out = bytearray(b"P6\n%d %d\n255\n" % (w, h))
    for y in range(h):
        row = pixels[y * stride:y * stride + w * 4]
        rgb = bytearray(w * 3)
        rgb[0::3] = row[2::4]
        rgb[1::3] = row[1::4]
        rgb[2::3] = row[0::4]
        out += rgb
    return bytes(out)


def printable(h):
    return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in h.items()}


def main(argv):
    p = argparse.ArgumentParser(description="Read shimmerd's shared-memory frames (docs/SHM.md).")
    p.add_argument("--name", default="shimmer", help="segment name: /dev/shm/NAME (default shimmer)")
    p.add_argument("--dir", default="/dev/shm", help=argparse.SUPPRESS)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("header", help="print the header as JSON")
    s = sub.add_parser("snapshot", help="write the newest frame to a PPM file")
    s.add_argument("out")
    s.add_argument("--raw", action="store_true", help="write the XRGB8888 bytes (stride as in the header), not PPM")
    f = sub.add_parser("follow", help="print a JSON line for each new frame")
    f.add_argument("-n", "--count", type=int, default=0, help="stop after N frames (0: forever)")
    f.add_argument("--timeout", type=float, default=None, help="give up after this many seconds without a frame")
    a = p.parse_args(argv)
    try:
        seg = Segment(a.name, a.dir)
    except (OSError, FormatError) as e:
        print("shmread: %s" % e, file=sys.stderr)
        return 66 if isinstance(e, FileNotFoundError) else 65
    if a.command == "header":
        print(json.dumps(printable(seg.header())))
    elif a.command == "snapshot":
        h, pixels = seg.read_frame()
        if pixels is None:
            print("shmread: %s has no frame yet" % seg.path, file=sys.stderr)
            return 69
        with open(a.out, "wb") as out:
            out.write(pixels if a.raw else ppm(h, pixels))
        print(json.dumps(printable(h)))
    else:
        seen = seg.frame()
        n = 0
        sys.stdout.write(json.dumps({"ready": True, "frame": seen}) + "\n")
        sys.stdout.flush()
        while a.count == 0 or n < a.count:
            frame, how = seg.wait(seen, a.timeout)
            if how == "timeout":
                print("shmread: no new frame within %s s" % a.timeout, file=sys.stderr)
                return 75
            if frame == seen:
                continue   # a wake without a new frame (the writer detached, or a signal)
            h = seg.header()
            sys.stdout.write(json.dumps({"frame": frame, "how": how, "writer_pid": h["writer_pid"],
                                         "focal": [h["focal_x"], h["focal_y"]], "t_ns": h["frame_time_ns"],
                                         "read_at_ns": time.monotonic_ns()}) + "\n")
            sys.stdout.flush()
            seen = frame
            n += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
