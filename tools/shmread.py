#!/usr/bin/env python3
"""Reads shimmerd's shared-memory frames (Sink.type = shm): docs/SHM.md.

    shmread.py [--name shimmer] header              print the header as JSON
    shmread.py [--name shimmer] snapshot OUT.ppm    copy the newest frame (consistent copy,
                                                    retried per the format) to a PPM, print
                                                    the header of that frame as JSON
    shmread.py [--name shimmer] follow [-n N]       block on the futex, print one JSON line
                                                    per new frame (N frames, or forever)
    --claim (before the command)                    hold a claim on the daemon's frames while
                                                    reading (Claim() on org.shimmerd.Shimmerd1):
                                                    with Sink.demand = auto an unclaimed daemon
                                                    paints nothing; needs python3-gi

As a module: `Segment(name)` gives `.header()`, `.read_frame()` and `.wait(frame, timeout)`;
`claim()` returns the system bus connection that holds a claim while it is open.
Only the standard library (and, for --claim alone, Gio from python3-gi) (mmap via ctypes so
read-only access works; futex via syscall(2)).
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
import pwd
import stat
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


MAX_DIMENSION = 8192        # the bounds of SharedMemoryHeader.swift: no header makes a reader
MAX_BUFFERS = 8             # allocate without bound
MAX_BUFFER_OFFSET = 1 << 20
PAGE = 4096


def trusted_owners(extra_users=()):
    """uids whose segments are shown: root, this user, the service's user shimmerd (where
    it exists) and any user named with --trust-user."""
    owners = {0, os.geteuid()}
    for user in ("shimmerd", *extra_users):
        try:
            owners.add(pwd.getpwnam(user).pw_uid)
        except KeyError:
            if user != "shimmerd":
                raise FormatError("--trust-user %s: no such user" % user)
    return owners


def owner_name(uid):
    try:
        return "%s (uid %d)" % (pwd.getpwuid(uid).pw_name, uid)
    except KeyError:
        return "uid %d" % uid


def check_layout(path, h, size):
    """Every field within the format's bounds, before any arithmetic on it."""
    if h["magic"] != b"SHMR" or h["version"] != 1 or h["header_size"] != 128:
        raise FormatError("%s: not a version 1 SHMR object" % path)
    w, ht, stride, n, off, bs = (h[k] for k in ("width", "height", "stride", "buffer_count", "buffer_offset",
                                                "buffer_size"))
    frame_bytes = stride * ht
    ok = (1 <= w <= MAX_DIMENSION and 1 <= ht <= MAX_DIMENSION and w * 4 <= stride <= MAX_DIMENSION * 4 + PAGE
          and 3 <= n <= MAX_BUFFERS and 128 <= off <= MAX_BUFFER_OFFSET and off % PAGE == 0 and bs % PAGE == 0
          and frame_bytes <= bs <= (frame_bytes + PAGE - 1) // PAGE * PAGE)
    if not ok:
        raise FormatError("%s: inconsistent buffer layout or one out of bounds" % path)
    if h["fourcc"] != XRGB8888:
        raise FormatError("%s: pixel format 0x%x, not XRGB8888" % (path, h["fourcc"]))
    if off + n * bs > size:
        raise FormatError("%s: %d bytes, too small for its %d buffers" % (path, size, n))


class Segment:
    """/dev/shm/NAME, open read-only. Whoever creates the name first chooses what readers
    see, so it is used only when owned by a trusted user (`trusted_owners`) and writable
    by its owner alone, and every header field is bounded. Header words and pixels are
    read with os.pread, so a segment truncated under the reader is a FormatError, never
    SIGBUS; only the first page is mapped, for FUTEX_WAIT (which fails with EFAULT on a
    truncated page). Reopen (a new Segment) when `replaced()` says the writer created a
    new object under the name (another card size)."""

    def __init__(self, name="shimmer", directory="/dev/shm", trusted=None):
        self.path = os.path.join(directory, name)
        self.fd = None
        self.addr = None
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FormatError("%s: not a regular file" % self.path)
            owners = trusted_owners() if trusted is None else trusted
            if st.st_uid not in owners:
                raise FormatError("%s: owned by %s, not by %s; refusing to read it (--trust-user USER to accept)"
                                  % (self.path, owner_name(st.st_uid),
                                     ", ".join(owner_name(u) for u in sorted(owners))))
            if st.st_mode & 0o022:
                raise FormatError("%s: mode 0%o: others may write it; refusing to read it" % (self.path,
                                                                                              st.st_mode & 0o7777))
            self.inode = st.st_ino
            if st.st_size < 128:
                raise FormatError("%s: %d bytes, smaller than the header" % (self.path, st.st_size))
            self.size = st.st_size
            self.fd = fd
            check_layout(self.path, self.header(), self.size)
            addr = libc.mmap(None, PAGE, 1, 1, fd, 0)     # PROT_READ, MAP_SHARED: the futex word only
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), "mmap " + self.path)
            self.addr = addr
        except BaseException:
            os.close(fd)
            self.fd = None
            raise

    def close(self):
        if self.addr:
            libc.munmap(self.addr, PAGE)
            self.addr = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _pread(self, count, offset):
        data = os.pread(self.fd, count, offset)
        if len(data) != count:
            raise FormatError("%s: shrank below its layout (truncated by its owner)" % self.path)
        return data

    def header(self):
        h = dict(zip(FIELDS, HEADER.unpack(self._pread(HEADER.size, 0))))
        h["fourcc_text"] = struct.pack("<I", h["fourcc"]).decode("ascii", "replace")
        return h

    def frame(self):
        return struct.unpack("<Q", self._pread(8, FRAME_OFFSET))[0]

    def read_frame(self, retries=100):
        """(header, pixels) of the newest complete frame, per docs/SHM.md: load frame f1,
        copy buffer (f1 - 1) mod N, load frame again as f2; the copy is good when
        f2 - f1 <= N - 2. The header's time and focal point are taken between the two
        loads and kept only when f2 == f1. Returns (header, None) when no frame exists yet."""
        layout = self.header()
        n, off, bs = layout["buffer_count"], layout["buffer_offset"], layout["buffer_size"]
        for _ in range(retries):
            f1 = self.frame()
            h = self.header()
            if f1 == 0:
                return h, None
            pixels = self._pread(layout["stride"] * layout["height"], off + ((f1 - 1) % n) * bs)
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
        if e == errno.EFAULT:
            raise FormatError("%s: shrank below its layout (truncated by its owner)" % self.path)
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


def claim():
    """Claims the daemon's frames (`Claim()` on org.shimmerd.Shimmerd1, docs/SHM.md "Who
    looks"): the claim lasts as long as the returned connection (close it, or exit)."""
    from gi.repository import Gio
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    bus.call_sync("org.shimmerd.Shimmerd1", "/org/shimmerd/Shimmerd1", "org.shimmerd.Shimmerd1", "Claim",
                  None, None, Gio.DBusCallFlags.NONE, 5000, None)
    return bus


def main(argv):
    p = argparse.ArgumentParser(description="Read shimmerd's shared-memory frames (docs/SHM.md).")
    p.add_argument("--name", default="shimmer", help="segment name: /dev/shm/NAME (default shimmer)")
    p.add_argument("--dir", default="/dev/shm", help=argparse.SUPPRESS)
    p.add_argument("--trust-user", action="append", default=[], metavar="USER",
                   help="also read segments owned by USER (root, this user and shimmerd are trusted)")
    p.add_argument("--claim", action="store_true",
                   help="claim the frames on the system bus while reading (an unclaimed daemon paints nothing)")
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
        seg = Segment(a.name, a.dir, trusted_owners(a.trust_user))
    except (OSError, FormatError) as e:
        print("shmread: %s" % e, file=sys.stderr)
        return 66 if isinstance(e, FileNotFoundError) else 65
    held = None
    if a.claim:
        try:
            held = claim()
        except Exception as e:      # ImportError (no python3-gi) or a GLib.Error from the bus
            print("shmread: cannot claim the frames (%s); the daemon paints them only while someone claims them "
                  "or with Sink.demand = always" % e, file=sys.stderr)
            return 69
        if a.command == "snapshot":
            seg.wait(seg.frame(), 2.0)      # the daemon resumes within half a second of a claim
    try:
        return run(a, seg)
    except FormatError as e:
        print("shmread: %s" % e, file=sys.stderr)
        return 65
    finally:
        del held        # the claim, held by this connection until the command is done


def run(a, seg):
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
