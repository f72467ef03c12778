"""The daemon run by an unprivileged user: a testbed such a user may read."""
import os

from support.harness import Device, pose


def readable_testbed(bed):
    """What a udev rule gives an unprivileged user in poll mode: read access to sysfs,
    nothing writable (0644 files, directories enterable)."""
    for dirpath, _, filenames in os.walk(bed.root):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)
    os.chmod(bed.root, 0o755)
    parent = os.path.dirname(bed.root)
    os.chmod(parent, os.stat(parent).st_mode | 0o005)


def unprivileged_bed(bed_factory, fixture, open_dir):
    """A testbed of `fixture` lying flat that an unprivileged user may read, and an empty
    configuration file anyone may read: (device, bed, configuration path)."""
    dev = Device(fixture)
    bed = bed_factory(fixture)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    readable_testbed(bed)
    conf = os.path.join(open_dir, "shimmerd.conf")
    open(conf, "w").close()
    os.chmod(conf, 0o644)
    return dev, bed, conf
