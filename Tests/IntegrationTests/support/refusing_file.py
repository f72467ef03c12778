"""A file that answers as a busy kernel device does: mounted (FUSE) over one file of a
umockdev testbed, it serves the text of CONTROL, and while CONTROL holds the word EBUSY it
fails with EBUSY, in read(2) (`--in read`: an I2C accelerometer's in_accel_*_raw while its
IIO buffer is enabled, bmc150-accel-core.c) or in open(2) (`--in open`: /dev/iio:deviceN
while another program has it open, the IIO character device being exclusive). Every
open(2) appends a line to COUNT (`--count`), so a test can count the attempts.

umockdev itself cannot fail a sysfs read (its preload library hands /sys paths to plain
files; its ioctl and read scripts serve /dev nodes that opened), so the test mounts this
over the testbed's file; the daemon under test reads it through umockdev as before.

Usage: refusing_file.py [--in read|open] [--count FILE] MOUNTPOINT CONTROL
Runs in the foreground until MOUNTPOINT is unmounted."""
import argparse
import errno
import stat

import fusepy


class RefusingFileSystem(fusepy.Operations):
    def __init__(self, control, where, count):
        self.control, self.where, self.count = control, where, count

    def _busy_or_text(self):
        with open(self.control, "rb") as f:
            data = f.read()
        return None if data.strip() == b"EBUSY" else data

    def getattr(self, path, fh=None):
        if path != "/":
            raise fusepy.FuseOSError(errno.ENOENT)
        # 4096 bytes, as sysfs says of every attribute; reads end where the text does.
        return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=4096)

    def open(self, path, flags):
        if self.count:
            with open(self.count, "a") as f:
                f.write("open\n")
        if self.where == "open" and self._busy_or_text() is None:
            raise fusepy.FuseOSError(errno.EBUSY)
        return 0

    def read(self, path, size, offset, fh):
        data = self._busy_or_text()
        if data is None:
            raise fusepy.FuseOSError(errno.EBUSY)
        return data[offset:offset + size]

    def write(self, path, data, offset, fh):
        raise fusepy.FuseOSError(errno.EACCES)

    def truncate(self, path, length, fh=None):
        raise fusepy.FuseOSError(errno.EACCES)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="where", choices=["read", "open"], default="read")
    ap.add_argument("--count")
    ap.add_argument("mountpoint")
    ap.add_argument("control")
    a = ap.parse_args()
    # direct_io and no attribute cache: every read reaches this process, as every read of
    # a sysfs attribute reaches the driver.
    fusepy.FUSE(RefusingFileSystem(a.control, a.where, a.count), a.mountpoint, foreground=True, nonempty=True,
                direct_io=True, attr_timeout=0, entry_timeout=0, allow_other=True)


if __name__ == "__main__":
    main()
