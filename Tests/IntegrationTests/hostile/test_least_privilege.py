"""Least privilege, shown on the real binary: it works as an unprivileged user
with nothing but read access to the accelerometer (poll mode, shm sink), opens no
network socket unless `Sensor.device = uri:ip:...`, creates nothing through a symbolic
link, and as root refuses configuration files that others may write.

Shown elsewhere, not repeated here: the unit's `systemd-analyze security` exposure
(test_daemon.py::test_systemd_unit_verifies_and_is_hardened, at most 1.2); a shm
segment through a symlink or owned by another user refused
(test_sinks.py::test_shm_refuses_a_symlink_and_another_users_object); buffer mode
falling back to poll for a user who may not write buffer/enable
(test_monitor.py::test_auto_mode_falls_back_to_poll_when_buffer_is_not_writable)."""
import os
import re
import stat
import subprocess
import sys

import pytest

from support.harness import BMC150 as FIXTURE
from support.harness import NOBODY_UID as NOBODY
from support.harness import Device, free_port, pose, shm_header, wait_until
from support.privileges import unprivileged_bed

AT_30_HZ = ["--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3", "--set", "Sensor.rate=30"]
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (to drop to nobody, or to be refused as root)")


def run_as_nobody(bed_factory, open_dir, shm_name, *args, prefix=None):
    """The daemon as user nobody (no other group, unless `prefix` says otherwise) in
    Sensor.mode = auto with the shm sink, on a testbed nobody may read and not write:
    (device, bed, daemon)."""
    dev, bed, conf = unprivileged_bed(bed_factory, FIXTURE, open_dir)
    d = bed.spawn("run", "--config", conf, *AT_30_HZ, "--set", "Sensor.mode=auto", "--set", "Sink.type=shm",
                  "--set", "Sink.name=" + shm_name, *args,
                  prefix=prefix or ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "--"])
    return dev, bed, d


@needs_root
def test_runs_as_nobody_in_poll_mode_with_the_shm_sink(bed_factory, shm_name, open_dir):
    trace = os.path.join(open_dir, "trace.jsonl")
    dev, bed, d = run_as_nobody(bed_factory, open_dir, shm_name, "--set", "Trace.path=" + trace)
    _, line = d.wait_log(r"using iio:device0 .* in poll mode: auto: .*not writable", "poll mode, told why")
    # Who it runs as: nobody, no capabilities, no supplementary groups.
    with open("/proc/%d/status" % d.p.pid) as f:
        status = dict(l.split(":", 1) for l in f.read().splitlines())
    assert status["Uid"].split() == [str(NOBODY)] * 4 and status["Gid"].split() == [str(NOBODY)] * 4
    assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
    assert status["Groups"].strip() == ""
    # Frames flow: a tilt moves the frame counter of a segment nobody owns, mode 0640.
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and shm_header(shm_name)[1] > 0, "the first frame", d)
    st = os.stat("/dev/shm/" + shm_name)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (NOBODY, NOBODY, 0o640)
    _, first, pid = shm_header(shm_name)
    assert pid == d.p.pid
    # Two tilts, each drawn (the drawn point follows a 30 Hz sensor in a couple of frames).
    for roll, lean in ((0.15, 0.05), (-0.1, 0.02)):
        shown = shm_header(shm_name)[1]
        bed.set_raw(dev, dev.raw_for(pose(roll, lean)))
        wait_until(lambda: shm_header(shm_name)[1] > shown, "frames after a tilt", d)
    # sampling_frequency was not writable: left as it was.
    assert "not writable" in line
    assert os.stat(trace).st_uid == NOBODY
    assert d.stop() == 0


@needs_root
@pytest.mark.xdist_group("machine")     # adds a group, as test_package.py's install test watches
def test_the_segment_goes_to_the_viewers_group_which_may_read_it_and_nothing_more(bed_factory, shm_name, open_dir,
                                                                                  viewer_group):
    """The daemon as the unit runs it, in group shimmerd-view besides its own: the segment
    is group shimmerd-view, mode 0640. A member of that group reads the frames and may not
    write them; a user in neither group may not read them. (Without the group the segment
    keeps the daemon's own: test_runs_as_nobody_in_poll_mode_with_the_shm_sink.)"""
    dev, bed, d = run_as_nobody(bed_factory, open_dir, shm_name, prefix=[
        "setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--groups=%d" % viewer_group, "--"])
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and shm_header(shm_name)[1] > 0, "the first frame", d)
    st = os.stat("/dev/shm/" + shm_name)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (NOBODY, viewer_group, 0o640)
    probe = ("import sys\ntry:\n    open(sys.argv[1], sys.argv[2]).close(); print('yes')\n"
             "except PermissionError:\n    print('no')\n")

    def may(mode, *groups):
        as_other = ["setpriv", "--reuid=65533", "--regid=65533"] + (["--groups=" + ",".join(map(str, groups))]
                                                                    if groups else ["--clear-groups"])
        r = subprocess.run([*as_other, sys.executable, "-c", probe, "/dev/shm/" + shm_name, mode],
                           capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
        assert r.returncode == 0, r.stderr
        return r.stdout.strip() == "yes"
    assert may("rb", viewer_group) and not may("r+b", viewer_group)
    assert not may("rb")
    assert d.stop() == 0


def socket_inodes(pid):
    out = set()
    for n in os.listdir("/proc/%d/fd" % pid):
        try:
            m = re.match(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%s" % (pid, n)))
        except OSError:
            continue
        if m:
            out.add(int(m.group(1)))
    return out


def inodes_in(pid, table):
    """Socket inodes of /proc/PID/net/TABLE (the process's own network namespace)."""
    try:
        with open("/proc/%d/net/%s" % (pid, table)) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return set()
    header = lines[0].split()
    col = header.index("inode") if "inode" in header else header.index("Inode")
    out = set()
    for l in lines[1:]:
        fields = l.split()
        # tcp/udp rows have one field more than their header (tx_queue:rx_queue counts as one).
        if table.startswith(("tcp", "udp", "raw")):
            out.add(int(fields[9]))
        elif len(fields) > col:
            out.add(int(fields[col]))
    return out


INET = ["tcp", "tcp6", "udp", "udp6", "raw", "raw6", "udplite", "udplite6"]


def socket_families(pid):
    mine = socket_inodes(pid)
    fam = {}
    for table in INET + ["unix", "netlink", "packet"]:
        for ino in inodes_in(pid, table) & mine:
            fam[ino] = table
    return mine, fam


def test_no_network_sockets_with_a_local_sensor(bed_factory, tmp_path, shm_name):
    dev = Device(FIXTURE)
    bed = bed_factory(FIXTURE)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    trace = str(tmp_path / "trace.jsonl")
    d = bed.spawn("run", *AT_30_HZ, "--set", "Sensor.mode=poll", "--set", "Sink.type=shm",
                  "--set", "Sink.name=" + shm_name, "--set", "Trace.path=" + trace)
    wait_until(lambda: os.path.exists("/dev/shm/" + shm_name) and shm_header(shm_name)[1] > 0, "the first frame", d)
    mine, fam = socket_families(d.p.pid)
    assert mine, "the udev monitor's socket should be there"
    assert set(fam) == mine, "sockets of unknown kind: %s" % (mine - set(fam))
    assert set(fam.values()) <= {"unix", "netlink"}, fam
    assert d.stop() == 0


def test_a_remote_sensor_is_the_only_way_to_an_ip_socket(bed_factory):
    """The check above can see an IP socket: with `uri:ip:` one is there."""
    dev = Device("kxtf9_acer_iconia_a500")
    bed = bed_factory(dev.fixture)
    port = free_port()
    bed.start_iiod(port)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.device=uri:ip:127.0.0.1:%d" % port, "--set", "Sensor.mode=poll",
                  *AT_30_HZ)
    d.wait_for(lambda r: r["type"] == "sample", "a remote sample")
    _, fam = socket_families(d.p.pid)
    assert "tcp" in fam.values() or "tcp6" in fam.values(), fam
    assert d.stop() == 0


def configuration_layout(tmp_path):
    """A root-owned configuration file with one drop-in, in directories of their own, all
    as an administrator makes them (0644 files, 0755 directories): (file, drop-in
    directory, drop-in)."""
    top = tmp_path / "etc"
    top.mkdir(mode=0o755)
    conf = top / "shimmerd.conf"
    conf.write_text("[Sink]\ntype = null\n")
    conf.chmod(0o644)
    (top / "shimmerd.conf.d").mkdir(mode=0o755)
    dropin = top / "shimmerd.conf.d" / "10-local.conf"
    dropin.write_text("[Sink]\nfps = 30\n")
    dropin.chmod(0o644)
    return conf, top / "shimmerd.conf.d", dropin


def refused_alike(bed, conf, expected):
    """check-config and run exit 78 with the same one line, which holds `expected`."""
    said = []
    for args in (["check-config", "--config", str(conf)], ["run", "--config", str(conf), "--duration", "1"]):
        r = bed.run(*args)
        assert r.returncode == 78, (args, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and expected in lines[0], (expected, r.stderr)
        said.append(lines[0])
    assert said[0] == said[1], said


@needs_root
@pytest.mark.parametrize("where", ["main", "drop-in", "drop-in directory"])
def test_configuration_writable_by_others_is_refused_as_root(bed_factory, tmp_path, where):
    conf, dropins, dropin = configuration_layout(tmp_path)
    bad = {"main": conf, "drop-in": dropin, "drop-in directory": dropins}[where]
    bad.chmod(0o777 if bad.is_dir() else 0o666)
    mode = "777" if bad.is_dir() else "666"
    bed = bed_factory(FIXTURE)
    refused_alike(bed, conf, "%s: writable by others (mode %s); refusing it as root" % (bad, mode))
    # Group-writable, it is refused as well: the group's members are other users.
    bad.chmod(0o775 if bad.is_dir() else 0o664)
    refused_alike(bed, conf,
                  "%s: writable by its group (mode %s); refusing it as root" % (bad, "775" if bad.is_dir() else "664"))
    bad.chmod(0o755 if bad.is_dir() else 0o644)
    assert bed.run("check-config", "--config", str(conf)).returncode == 0


@needs_root
@pytest.mark.parametrize("where", ["main", "drop-in", "drop-in directory", "the file's directory"])
def test_configuration_another_user_owns_is_refused_as_root(bed_factory, tmp_path, where):
    """Owned by user nobody, even mode 0644: nobody may rewrite it (or replace the files in
    it), and root would open, create and truncate what nobody chose (Trace.path)."""
    conf, dropins, dropin = configuration_layout(tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("root's")
    conf.write_text("[Sink]\ntype = null\n[Trace]\npath = %s\n" % victim)
    bad = {"main": conf, "drop-in": dropin, "drop-in directory": dropins, "the file's directory": conf.parent}[where]
    os.chown(bad, NOBODY, NOBODY)
    expected = "%s: owned by nobody (uid 65534), not by root; refusing it as root" % bad
    if where == "the file's directory":
        expected = "%s (on the way to %s): owned by nobody (uid 65534), not by root; refusing it as root" % (bad, conf)
    bed = bed_factory(FIXTURE)
    refused_alike(bed, conf, expected)
    assert victim.read_text() == "root's"


@needs_root
def test_a_directory_on_the_way_others_may_write_is_refused_unless_sticky(bed_factory, tmp_path):
    """A root-owned file in a directory anyone may write: anyone may replace the file. A
    sticky directory (as /tmp) lets only an entry's owner replace it: accepted."""
    conf, dropins, _ = configuration_layout(tmp_path)
    open_dir = conf.parent
    open_dir.chmod(0o777)
    bed = bed_factory(FIXTURE)
    refused_alike(bed, conf,
                  "%s (on the way to %s): writable by others (mode 777); refusing it as root" % (open_dir, conf))
    open_dir.chmod(0o1777)
    r = bed.run("check-config", "--config", str(conf))
    assert r.returncode == 0 and "fps = 30" in r.stdout, r.stderr
    # A directory above, group-writable, is refused as well.
    open_dir.chmod(0o755)
    tmp_path.chmod(0o775)
    refused_alike(bed, conf,
                  "%s (on the way to %s): writable by its group (mode 775); refusing it as root" % (tmp_path, conf))


@needs_root
def test_a_link_to_the_configuration_is_followed_to_what_it_names_and_that_is_checked(bed_factory, tmp_path):
    """A symbolic link to the configuration (as /etc/alternatives uses) is resolved when the
    walk begins; the directories it leads through are checked like any others."""
    conf, _, _ = configuration_layout(tmp_path)
    link_dir = tmp_path / "links"
    link_dir.mkdir(mode=0o755)
    (link_dir / "shimmerd.conf").symlink_to(conf)
    bed = bed_factory(FIXTURE)
    r = bed.run("check-config", "--config", str(link_dir / "shimmerd.conf"))
    assert r.returncode == 0, r.stderr
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    (theirs / "shimmerd.conf").write_text("[Sink]\ntype = null\n")
    os.chown(theirs, NOBODY, NOBODY)
    (link_dir / "elsewhere.conf").symlink_to(theirs / "shimmerd.conf")
    refused_alike(bed, link_dir / "elsewhere.conf", "%s (on the way to %s): owned by nobody (uid 65534), not by root"
                  % (theirs, link_dir / "elsewhere.conf"))


SECRET = "root:$6$SECRETHASHxyz:19000:0:99999:7:::\n"


@needs_root
@pytest.mark.parametrize("how", ["their link to the file", "a path through their link to a directory",
                                 "their link in a sticky drop-in directory", "root's link to a root-only file"])
def test_links_in_configuration_paths_are_judged_as_given_and_a_root_only_file_is_never_quoted(bed_factory, tmp_path,
                                                                                               how):
    """A root-only file (0600, like /etc/shadow) reached through symbolic links: a link that
    user nobody owns, or one in a directory nobody owns, is refused as a file of theirs would
    be, naming it; a link root made to it is followed, and the error about its text names
    the file and the line but quotes nothing of it. Nothing of the file is ever printed."""
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    conf, dropins, _ = configuration_layout(tmp_path)
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)

    def their_link(path, target):
        path.symlink_to(target)
        os.lchown(path, NOBODY, NOBODY)
    if how == "their link to the file":
        their_link(theirs / "shimmerd.conf", secret)
        given = theirs / "shimmerd.conf"
        expected = "%s (on the way to %s): owned by nobody (uid 65534), not by root" % (theirs, given)
    elif how == "a path through their link to a directory":
        their_link(sticky / "etc", tmp_path)
        given = sticky / "etc" / "shadow"
        expected = "%s (on the way to %s): owned by nobody (uid 65534), not by root" % (sticky / "etc", given)
    elif how == "their link in a sticky drop-in directory":
        dropins.chmod(0o1777)
        their_link(dropins / "50-theirs.conf", secret)
        given = conf
        expected = "%s: owned by nobody (uid 65534), not by root" % (dropins / "50-theirs.conf")
    else:
        (tmp_path / "etc" / "root-link.conf").symlink_to(secret)
        given = tmp_path / "etc" / "root-link.conf"
        expected = ('%s:1: expected "key = value", got (not shown: others may not read %s)' % (given, given))
    bed = bed_factory(FIXTURE)
    said = []
    for args in (["check-config", "--config", str(given)], ["run", "--config", str(given), "--duration", "1"]):
        r = bed.run(*args)
        print("%s, %s: exit %d, %r" % (how, args[0], r.returncode, r.stderr.strip()))
        assert "SECRETHASH" not in r.stdout + r.stderr and "$6$" not in r.stdout + r.stderr, r.stderr
        assert r.returncode == 78, r.stderr
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and expected in lines[0], (expected, r.stderr)
        said.append(lines[0])
    assert said[0] == said[1], said
    assert secret.read_text() == SECRET


def test_trace_and_raw_output_are_never_created_through_a_symlink(bed_factory, tmp_path):
    bed = bed_factory(FIXTURE)
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    link = tmp_path / "out"
    link.symlink_to(victim)
    r = bed.run("run", "--set", "Sink.type=null", "--set", "Trace.path=%s" % link, "--duration", "1")
    assert r.returncode == 73 and str(link) in r.stderr, r.stderr
    r = bed.run("run", "--set", "Sink.type=raw", "--set", "Sink.path=%s" % link, "--duration", "1")
    assert r.returncode == 73 and "symbolic link" in r.stderr, r.stderr
    assert victim.read_bytes() == b"keep"


@needs_root
def test_buffer_attributes_handed_over_after_start_switch_it_to_buffer_mode(bed_factory, shm_name, open_dir):
    """Started before udev ran 60-shimmerd.rules (the unit does not wait for udev-settle):
    polled; once the rule has made the buffer attributes writable (udev's change event
    follows), the device is attached again in buffer mode."""
    dev, bed, d = run_as_nobody(bed_factory, open_dir, shm_name)
    d.wait_log(r"using iio:device0 .* in poll mode: auto: .*not writable", "poll mode first")
    # What the rule does: the buffer attributes become writable for the service's group.
    device_dir = bed.root + dev.syspath
    buffer = ["buffer/" + f for f in os.listdir(device_dir + "/buffer")]
    enables = ["scan_elements/" + f for f in os.listdir(device_dir + "/scan_elements") if f.endswith("_en")]
    for name in ["trigger/current_trigger", "sampling_frequency"] + buffer + enables:
        if os.path.exists(os.path.join(device_dir, name)):
            os.chmod(os.path.join(device_dir, name), 0o666)
    os.chmod(os.path.join(bed.root, "dev", "iio:device0"), 0o666)
    # umockdev emulates the node's ioctls through a socket in the testbed: the service
    # user may connect to it as it may open the node.
    for dirpath, _, filenames in os.walk(bed.root):
        for f in filenames:
            if stat.S_ISSOCK(os.lstat(os.path.join(dirpath, f)).st_mode):
                os.chmod(os.path.join(dirpath, f), 0o666)
    bed.tb.uevent(dev.syspath, "change")
    d.wait_log(r"iio:device0 .*: its buffer attributes are writable now \(udev handed them over\); attaching it again "
               r"for buffer mode", "the re-attach")
    d.wait_log(r"using iio:device0 .* in buffer mode", "buffer mode after the rule")
    assert d.stop() == 0
