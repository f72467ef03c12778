"""The kernel side of a DRM/KMS card, emulated for the end-to-end tests: these machines'
kernel has no DRM and no modules (no vkms), so the card node is a umockdev device whose
ioctls and reads are served here, by a UMockdev.IoctlBase handler, following the
kernel's documented semantics (include/uapi/drm/drm.h and drm_mode.h, and
Documentation/gpu/drm-kms.rst and drm-uapi.rst):

- GET_CAP; GETRESOURCES, GETCONNECTOR, OBJ_GETPROPERTIES and GETPROPERTY with the
  two-call protocol (counts first, arrays when the caller's counts are large enough);
  GETENCODER; GETCRTC;
- CREATE_DUMB (pitch aligned to 64 bytes, size a whole number of pages), MAP_DUMB
  returning an offset inside the node's file (the node is a regular file, so the
  client's mmap(2) of the card maps that file and what it writes lands there), ADDFB2
  (XRGB8888 only, checked against the buffer), RMFB (a framebuffer on screen turns its
  CRTC off, as drm_mode_rmfb does), DESTROY_DUMB;
- SETCRTC and PAGE_FLIP only for the DRM master (EACCES otherwise); a PAGE_FLIP while
  one is pending is EBUSY (and counted: a correct client never gets one); the flip
  completes at the next emulated vblank, when its DRM_EVENT_FLIP_COMPLETE event becomes
  readable; read(2) returns whole events, EAGAIN when none is due;
- SET_MASTER / DROP_MASTER: the first opener becomes master when nobody is; a
  "compositor" holding master makes SET_MASTER fail with EBUSY or EACCES; on close the
  client's master is dropped and its framebuffers removed, a CRTC showing one of them
  is turned off (drm_fb_release), so only an explicit restore brings the console back.

The console the sink puts in KD_GRAPHICS (/dev/tty0) is emulated too (`Console`):
KDGETMODE and KDSETMODE (console_ioctl(4)) on a VT that starts in KD_TEXT.

What the emulation cannot show: a real driver's vblank timing and scanout (the "screen"
is the emulated CRTC's framebuffer id, its pixels the bytes in the node's file),
write-combined memory, a real compositor's master handover, poll(2) readiness (a
regular file is always readable, so a client that polls the card sees it readable while
nothing is due and gets EAGAIN). A run on real hardware or on a kernel with vkms
would add those."""
import hashlib
import mmap
import os
import struct
import threading
import time

from gi.repository import UMockdev

EAGAIN, EACCES, EBUSY, EINVAL, ENOENT, ENOTTY, ENOSPC = 11, 13, 16, 22, 2, 25, 28
XR24 = 0x34325258
PAGE = 4096
OBJECT_CONNECTOR = 0xC0C0C0C0
PROP_ENUM, PROP_IMMUTABLE = 1 << 3, 1 << 2
MODE_TYPE_PREFERRED, MODE_TYPE_DRIVER = 1 << 3, 1 << 6
PAGE_FLIP_EVENT = 0x01
EVENT_FLIP_COMPLETE = 0x02
# linux/kd.h
KDSETMODE, KDGETMODE, KD_TEXT, KD_GRAPHICS = 0x4B3A, 0x4B3B, 0, 1
# linux/vt.h
VT_SETMODE, VT_GETSTATE, VT_RELDISP, VT_AUTO, VT_PROCESS, VT_ACKACQ = 0x5602, 0x5603, 0x5605, 0, 1, 2
# Connector types (drm_mode.h DRM_MODE_CONNECTOR_*) and their kernel names.
CONNECTOR_TYPES = {"VGA": 1, "DVI-I": 2, "LVDS": 7, "DP": 10, "HDMI-A": 11, "eDP": 14, "Virtual": 15, "DSI": 16}
ORIENTATIONS = ["Normal", "Upside Down", "Left Side Up", "Right Side Up"]


def iowr(nr, size):
    return (3 << 30) | (size << 16) | (ord("d") << 8) | nr


def io(nr):
    return (ord("d") << 8) | nr


GET_CAP = iowr(0x0C, 16)
SET_MASTER = io(0x1E)
DROP_MASTER = io(0x1F)
GETRESOURCES = iowr(0xA0, 64)
GETCRTC = iowr(0xA1, 104)
SETCRTC = iowr(0xA2, 104)
GETENCODER = iowr(0xA6, 20)
GETCONNECTOR = iowr(0xA7, 80)
GETPROPERTY = iowr(0xAA, 64)
RMFB = iowr(0xAF, 4)
PAGE_FLIP = iowr(0xB0, 24)
CREATE_DUMB = iowr(0xB2, 32)
MAP_DUMB = iowr(0xB3, 16)
DESTROY_DUMB = iowr(0xB4, 4)
ADDFB2 = iowr(0xB8, 104)
OBJ_GETPROPERTIES = iowr(0xB9, 32)
NAMES = {v: k for k, v in dict(GET_CAP=GET_CAP, SET_MASTER=SET_MASTER, DROP_MASTER=DROP_MASTER,
                               GETRESOURCES=GETRESOURCES, GETCRTC=GETCRTC, SETCRTC=SETCRTC, GETENCODER=GETENCODER,
                               GETCONNECTOR=GETCONNECTOR, GETPROPERTY=GETPROPERTY, RMFB=RMFB, PAGE_FLIP=PAGE_FLIP,
                               CREATE_DUMB=CREATE_DUMB, MAP_DUMB=MAP_DUMB, DESTROY_DUMB=DESTROY_DUMB, ADDFB2=ADDFB2,
                               OBJ_GETPROPERTIES=OBJ_GETPROPERTIES).items()}

# struct drm_mode_modeinfo: clock; hdisplay, hsync_start, hsync_end, htotal, hskew;
# vdisplay, vsync_start, vsync_end, vtotal, vscan; vrefresh; flags; type; name[32]
MODEINFO = struct.Struct("<I5H5HIII32s")


class Mode:
    def __init__(self, width, height, refresh=60, preferred=False):
        self.width, self.height, self.refresh, self.preferred = width, height, refresh, preferred

    def pack(self):
        htotal, vtotal = self.width + 160, self.height + 30
        clock = htotal * vtotal * self.refresh // 1000
        kind = MODE_TYPE_DRIVER | (MODE_TYPE_PREFERRED if self.preferred else 0)
        return MODEINFO.pack(clock, self.width, self.width + 48, self.width + 80, htotal, 0,
                             self.height, self.height + 3, self.height + 9, vtotal, 0, self.refresh, 0xA, kind,
                             ("%dx%d" % (self.width, self.height)).encode())

    @staticmethod
    def unpack(data):
        f = MODEINFO.unpack(data)
        return (f[1], f[6], f[11])   # width, height, refresh

    def key(self):
        return (self.width, self.height, self.refresh)


class Connector:
    def __init__(self, kind, index, modes, connected=True, orientation=None):
        self.kind, self.index, self.modes = kind, index, modes
        self.connected, self.orientation = connected, orientation
        self.dpms = 0               # the DPMS property's value: 0 On, 1 Standby, 2 Suspend, 3 Off
        self.id = self.encoder_id = None

    @property
    def name(self):
        return "%s-%d" % (self.kind, self.index)


class Framebuffer:
    def __init__(self, fb_id, width, height, offset, pitch, owner):
        self.id, self.width, self.height = fb_id, width, height
        self.offset, self.pitch, self.owner = offset, pitch, owner


class Crtc:
    def __init__(self, crtc_id):
        self.id = crtc_id
        self.fb = 0
        self.mode = None          # packed modeinfo bytes, or None (off)
        self.connectors = []
        self.x = self.y = 0
        self.pending = None       # (fb id, user data, due time)


class Snapshot:
    """What a flip (or the SETCRTC) put on screen: the framebuffer id and the bytes of
    the rectangle the test asked for, read from the node's file when it went on screen."""

    def __init__(self, kind, fb, pixels, digest):
        self.kind, self.fb, self.pixels, self.digest = kind, fb, pixels, digest


class DrmCard:
    """One emulated card in a testbed: /dev/dri/cardN with its connectors in sysfs."""

    def __init__(self, bed, connectors, number=0, crtcs=2, console_mode=True, vblank=0.0, pci="0000:00:02.0"):
        self.bed = bed
        self.number = number
        self.node = os.path.join(bed.root, "dev", "dri", "card%d" % number)
        self.lock = threading.RLock()
        self.vblank = vblank        # seconds from a PAGE_FLIP to its completion
        self.hold = False           # while True no flip completes
        self.foreign_master = None  # None, or the errno SET_MASTER fails with ("a compositor")
        self.master = None
        self.connectors = connectors
        self.unknown = []           # ioctl numbers not emulated, as hex strings
        self.busy_flips = 0         # PAGE_FLIPs refused with EBUSY (one already pending)
        self.flips = []             # completed flips, in order: Snapshot
        self.setcrtcs = []          # SETCRTC calls: (crtc id, fb id, mode key or None)
        self.written_on_screen = []  # framebuffers whose bytes changed while on screen
        self.capture = None         # (x, y, w, h) to keep the pixels of, or None
        self.master_requests = []   # SET_MASTER results: 0 or errno
        self.flip_requests = 0
        self.clients = set()
        self.dumbs = {}             # handle -> (offset, size, pitch, width, height, owner)
        self.fbs = {}
        self.next_id = 30
        self.next_offset = 1 << 20
        self.crtcs = [Crtc(self._new_id()) for _ in range(crtcs)]
        for c in connectors:
            c.id, c.encoder_id = self._new_id(), self._new_id()
        self.orientation_prop = self._new_id()
        self.dpms_prop = self._new_id()
        self.on_screen_digest = {}  # crtc id -> digest of its framebuffer when it went on screen
        lines = ["P: /devices/pci0000:00/%s/drm/card%d" % (pci, number), "N: dri/card%d=00" % number,
                 "E: SUBSYSTEM=drm", "E: DEVNAME=/dev/dri/card%d" % number, "E: DEVTYPE=drm_minor",
                 "A: dev=226:%d" % number]
        text = "\n".join(lines) + "\n"
        for c in connectors:
            text += ("\nP: /devices/pci0000:00/%s/drm/card%d/card%d-%s\nE: SUBSYSTEM=drm\n"
                     "A: status=%s\nA: enabled=%s\n") % (
                pci, number, number, c.name, "connected" if c.connected else "disconnected",
                "enabled" if console_mode else "disabled")
        bed.add(text)
        # The console's framebuffer (fbcon's or a boot splash's), owned by nobody here.
        self.console_fb = None
        if console_mode:
            c = connectors[0]
            mode = next((m for m in c.modes if not m.preferred), c.modes[0])
            self.console_fb = self._new_id()
            handle = 0x7FFF           # not in this client's handle space
            offset, size, pitch = self._allocate(mode.width, mode.height)
            self.dumbs[handle] = (offset, size, pitch, mode.width, mode.height, "console")
            self.fbs[self.console_fb] = Framebuffer(self.console_fb, mode.width, mode.height, offset, pitch, "console")
            crtc = self.crtcs[0]
            crtc.fb, crtc.mode, crtc.connectors = self.console_fb, mode.pack(), [c.id]
        self.saved = self.crtc_state()
        self.syspath = "/sys/devices/pci0000:00/%s/drm/card%d" % (pci, number)
        self.handler = UMockdev.IoctlBase()
        self.handler.connect("client-connected", self._connected)
        self.handler.connect("handle-ioctl", self._ioctl)
        self.handler.connect("handle-read", self._read)
        bed.tb.attach_ioctl("/dev/dri/card%d" % number, self.handler)

    # --- what the tests look at ---

    def crtc_state(self):
        """Per CRTC: (framebuffer id, mode key or None, connector ids)."""
        with self.lock:
            self._reap()
            return [(c.fb, Mode.unpack(c.mode) if c.mode else None, list(c.connectors)) for c in self.crtcs]

    def active(self):
        with self.lock:
            return next((c for c in self.crtcs if c.fb and c.fb != self.console_fb), None)

    def pixels(self, fb_id, x, y, w, h):
        """Rows y..y+h, columns x..x+w of a framebuffer, as XRGB8888 bytes (w * 4 a row)."""
        fb = self.fbs[fb_id]
        with open(self.node, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                return b"".join(m[fb.offset + r * fb.pitch + x * 4:fb.offset + r * fb.pitch + (x + w) * 4]
                                for r in range(y, y + h))
            finally:
                m.close()

    def take_master(self, errno_value=EBUSY):
        """Another program (a compositor after a VT switch) becomes master and shows its
        own picture (the console's framebuffer stands in for it): the client's
        master-only ioctls now fail with EACCES, SET_MASTER with `errno_value`."""
        with self.lock:
            self.master = None
            self.foreign_master = errno_value
            for c in self.crtcs:
                if c.fb and self.console_fb and c.fb != self.console_fb:
                    c.fb, c.pending = self.console_fb, None

    def hotplug(self, connector, connected):
        """The connector's link changes, and the kernel's `drm` change uevent."""
        with self.lock:
            connector.connected = connected
        self.bed.set_attr(self.syspath + "/card%d-%s" % (self.number, connector.name), "status",
                          "connected" if connected else "disconnected")
        self.bed.tb.uevent(self.syspath, "change")

    def set_dpms(self, connector, value):
        """Another DRM master sets the connector's DPMS property (3: Off, 0: On), then a
        `drm` change uevent comes. The kernel itself sends no event for a DPMS change: a
        client learns it at the next drm event, which here follows at once."""
        with self.lock:
            connector.dpms = value
        self.bed.tb.uevent(self.syspath, "change")

    # --- the kernel side ---

    def _new_id(self):
        self.next_id += 1
        return self.next_id

    def _allocate(self, width, height):
        pitch = (width * 4 + 63) // 64 * 64
        size = (pitch * height + PAGE - 1) // PAGE * PAGE
        offset = self.next_offset
        self.next_offset += size
        with open(self.node, "r+b") as f:
            f.truncate(self.next_offset)
        return offset, size, pitch

    def _digest(self, fb_id):
        fb = self.fbs.get(fb_id)
        if fb is None:
            return None
        with open(self.node, "rb") as f:
            f.seek(fb.offset)
            return hashlib.blake2b(f.read(fb.pitch * fb.height), digest_size=16).digest()

    def _show(self, crtc, fb_id, kind):
        """fb_id goes on screen on crtc: the one leaving must not have changed meanwhile."""
        old = self.on_screen_digest.get(crtc.id)
        if old is not None and crtc.fb and crtc.fb != self.console_fb and self._digest(crtc.fb) != old:
            self.written_on_screen.append(crtc.fb)
        crtc.fb = fb_id
        digest = self._digest(fb_id)
        self.on_screen_digest[crtc.id] = digest
        pixels = None
        if self.capture and fb_id in self.fbs:
            pixels = self.pixels(fb_id, *self.capture)
        self.flips.append(Snapshot(kind, fb_id, pixels, digest))

    def _connected(self, handler, client):
        with self.lock:
            self._reap()
            self.clients.add(client)
            if self.master is None and self.foreign_master is None:
                self.master = client

    def _reap(self):
        """Forgets the clients whose descriptor was closed (umockdev closes the socket
        with it; this version sends no notification, so it is looked at on each call)."""
        for client in [c for c in self.clients if not c.get_connected()]:
            self._closed(client)

    def _closed(self, client):
        with self.lock:
            self.clients.discard(client)
            if self.master is client:
                self.master = None
            for fb_id in [i for i, fb in self.fbs.items() if fb.owner is client]:
                self._remove_fb(fb_id)
            for h in [h for h, d in self.dumbs.items() if d[5] is client]:
                del self.dumbs[h]

    def _remove_fb(self, fb_id):
        for c in self.crtcs:
            if c.fb == fb_id:        # drm_framebuffer_remove: a CRTC scanning it out is turned off
                c.fb, c.mode, c.connectors, c.pending = 0, None, [], None
        del self.fbs[fb_id]

    def _read(self, handler, client):
        arg = client.get_arg()
        count = len(arg.retrieve())
        with self.lock:
            self._reap()
            events = b""
            now = time.monotonic()
            for c in self.crtcs:
                if c.pending and not self.hold and now >= c.pending[2] and len(events) + 32 <= count:
                    fb_id, user_data, _ = c.pending
                    c.pending = None
                    self._show(c, fb_id, "flip")
                    t = time.time()
                    events += struct.pack("<IIQIIII", EVENT_FLIP_COMPLETE, 32, user_data, int(t), int(t % 1 * 1e6),
                                          len(self.flips), c.id)
            if not events:
                client.complete(-1, EAGAIN)
                return True
            arg.update(0, events)
            client.complete(len(events), 0)
            return True

    def _ioctl(self, handler, client):
        req = client.get_request()
        with self.lock:
            self._reap()
            try:
                fn = self.HANDLERS.get(req)
                if fn is None:
                    self.unknown.append(hex(req))
                    client.complete(-1, ENOTTY)
                    return True
                err = fn(self, client, client.get_arg())
            except Exception as e:       # a bug here must show in the test, not hang the client
                self.unknown.append("%s raised %r" % (NAMES.get(req, hex(req)), e))
                err = EINVAL
            client.complete(-1 if err else 0, err or 0)
            return True

    @staticmethod
    def _struct(arg, size):
        data = arg.resolve(0, size)
        return data, bytearray(data.retrieve())

    @staticmethod
    def _put_array(data, offset, fmt, values):
        """Writes values at the user pointer stored at `offset` of the struct."""
        if not values:
            return
        child = data.resolve(offset, struct.calcsize(fmt) * len(values))
        if child is not None:
            child.update(0, b"".join(struct.pack(fmt, *(v if isinstance(v, tuple) else (v,))) for v in values))

    def _get_cap(self, client, arg):
        data, b = self._struct(arg, 16)
        cap, = struct.unpack_from("<Q", b)
        caps = {0x1: 1, 0x3: 24, 0x4: 0, 0x6: 1, 0x8: 64, 0x9: 64}   # DUMB_BUFFER, PREFERRED_DEPTH, ..., CURSOR_W/H
        if cap not in caps:
            return EINVAL
        data.update(8, struct.pack("<Q", caps[cap]))
        return 0

    def _set_master(self, client, arg):
        if self.master is client:
            self.master_requests.append(0)
            return 0
        if self.foreign_master is not None:
            self.master_requests.append(self.foreign_master)
            return self.foreign_master
        if self.master is not None:
            self.master_requests.append(EBUSY)
            return EBUSY
        self.master = client
        self.master_requests.append(0)
        return 0

    def _drop_master(self, client, arg):
        if self.master is not client:
            return EINVAL
        self.master = None
        return 0

    def _getresources(self, client, arg):
        data, b = self._struct(arg, 64)
        counts = struct.unpack_from("<4I", b, 32)
        lists = [[i for i, fb in self.fbs.items() if fb.owner is client], [c.id for c in self.crtcs],
                 [c.id for c in self.connectors],
                 [c.encoder_id for c in self.connectors]]
        for i, values in enumerate(lists):
            if counts[i] >= len(values):
                self._put_array(data, i * 8, "<I", values)
        data.update(32, struct.pack("<4I4I", *(len(v) for v in lists), 1, 8192, 1, 8192))
        return 0

    def _connector(self, cid):
        return next((c for c in self.connectors if c.id == cid), None)

    def _crtc(self, cid):
        return next((c for c in self.crtcs if c.id == cid), None)

    def _props_of(self, c):
        props = [(self.dpms_prop, c.dpms)]
        if c.orientation is not None:
            props.append((self.orientation_prop, ORIENTATIONS.index(c.orientation)))
        return props

    def _getconnector(self, client, arg):
        data, b = self._struct(arg, 80)
        count_modes, count_props, count_encoders, _, cid = struct.unpack_from("<5I", b, 32)
        c = self._connector(cid)
        if c is None:
            return ENOENT
        modes = c.modes if c.connected else []
        props = self._props_of(c)
        if modes and count_modes >= len(modes):
            child = data.resolve(8, MODEINFO.size * len(modes))
            child.update(0, b"".join(m.pack() for m in modes))
        if count_props >= len(props):
            self._put_array(data, 16, "<I", [p[0] for p in props])
            self._put_array(data, 24, "<Q", [p[1] for p in props])
        if count_encoders >= 1:
            self._put_array(data, 0, "<I", [c.encoder_id])
        crtc = next((k for k in self.crtcs if c.id in k.connectors), None)
        data.update(32, struct.pack("<12I", len(modes), len(props), 1, c.encoder_id if crtc else 0, c.id,
                                    CONNECTOR_TYPES[c.kind], c.index, 1 if c.connected else 2, 300, 200, 1, 0))
        return 0

    def _getencoder(self, client, arg):
        data, b = self._struct(arg, 20)
        eid, = struct.unpack_from("<I", b)
        c = next((c for c in self.connectors if c.encoder_id == eid), None)
        if c is None:
            return ENOENT
        crtc = next((k for k in self.crtcs if c.id in k.connectors), None)
        data.update(4, struct.pack("<4I", 2, crtc.id if crtc else 0, (1 << len(self.crtcs)) - 1, 0))
        return 0

    def _getcrtc(self, client, arg):
        data, b = self._struct(arg, 104)
        cid, = struct.unpack_from("<I", b, 12)
        c = self._crtc(cid)
        if c is None:
            return ENOENT
        mode = c.mode or bytes(MODEINFO.size)
        data.update(8, struct.pack("<7I", 0, c.id, c.fb, c.x, c.y, 256, 1 if c.mode else 0) + mode)
        return 0

    def _setcrtc(self, client, arg):
        if self.master is not client:
            return EACCES
        data, b = self._struct(arg, 104)
        count, cid, fb_id, x, y, _, mode_valid = struct.unpack_from("<7I", b, 8)
        c = self._crtc(cid)
        if c is None:
            return ENOENT
        if not mode_valid:
            c.fb, c.mode, c.connectors, c.pending = 0, None, [], None
            self.setcrtcs.append((cid, 0, None))
            return 0
        fb = self.fbs.get(fb_id)
        mode = bytes(b[36:36 + MODEINFO.size])
        w, h, _ = Mode.unpack(mode)
        if fb is None:
            return ENOENT
        if x + w > fb.width or y + h > fb.height or count == 0:
            return EINVAL      # drm_crtc_check_viewport; a mode needs a connector
        ids = []
        if count:
            child = data.resolve(0, 4 * count)
            ids = list(struct.unpack("<%dI" % count, bytes(child.retrieve())))
        if any(self._connector(i) is None for i in ids):
            return ENOENT
        for other in self.crtcs:
            if other is not c:
                other.connectors = [i for i in other.connectors if i not in ids]
        # A mode set supersedes a pending flip (its event goes to whoever queued it; a
        # client that set the CRTC while its flip was pending no longer waits for it).
        c.mode, c.connectors, c.x, c.y, c.pending = mode, ids, x, y, None
        self.setcrtcs.append((cid, fb_id, (w, h, Mode.unpack(mode)[2])))
        self._show(c, fb_id, "setcrtc")
        return 0

    def _page_flip(self, client, arg):
        self.flip_requests += 1
        if self.master is not client:
            return EACCES
        data, b = self._struct(arg, 24)
        cid, fb_id, flags, _, user_data = struct.unpack_from("<4IQ", b)
        c = self._crtc(cid)
        if c is None or fb_id not in self.fbs:
            return ENOENT
        if not c.mode or not c.fb:
            return EINVAL
        if c.pending:
            self.busy_flips += 1
            return EBUSY
        fb = self.fbs[fb_id]
        w, h, _ = Mode.unpack(c.mode)
        if c.x + w > fb.width or c.y + h > fb.height:
            return EINVAL
        c.pending = (fb_id, user_data, time.monotonic() + self.vblank)
        return 0

    def _create_dumb(self, client, arg):
        data, b = self._struct(arg, 32)
        height, width, bpp, flags = struct.unpack_from("<4I", b)
        if bpp != 32 or flags or not (0 < width <= 8192 and 0 < height <= 8192):
            return EINVAL
        offset, size, pitch = self._allocate(width, height)
        handle = max([h for h in self.dumbs if h != 0x7FFF] + [0]) + 1
        self.dumbs[handle] = (offset, size, pitch, width, height, client)
        data.update(16, struct.pack("<IIQ", handle, pitch, size))
        return 0

    def _own_dumb(self, client, b):
        """The client's dumb buffer whose handle starts the struct: (handle, buffer or None)."""
        handle, = struct.unpack_from("<I", b)
        d = self.dumbs.get(handle)
        return handle, (d if d is not None and d[5] is client else None)

    def _map_dumb(self, client, arg):
        data, b = self._struct(arg, 16)
        _, d = self._own_dumb(client, b)
        if d is None:
            return ENOENT
        data.update(8, struct.pack("<Q", d[0]))
        return 0

    def _destroy_dumb(self, client, arg):
        _, b = self._struct(arg, 4)
        handle, d = self._own_dumb(client, b)
        if d is None:
            return ENOENT
        del self.dumbs[handle]
        return 0

    def _addfb2(self, client, arg):
        data, b = self._struct(arg, 104)
        _, width, height, fmt, flags = struct.unpack_from("<5I", b)
        handles = struct.unpack_from("<4I", b, 20)
        pitches = struct.unpack_from("<4I", b, 36)
        offsets = struct.unpack_from("<4I", b, 52)
        d = self.dumbs.get(handles[0])
        if fmt != XR24 or flags or d is None or d[5] is not client or any(handles[1:]):
            return EINVAL
        if pitches[0] < width * 4 or offsets[0] + pitches[0] * height > d[1]:
            return EINVAL
        fb_id = self._new_id()
        self.fbs[fb_id] = Framebuffer(fb_id, width, height, d[0] + offsets[0], pitches[0], client)
        data.update(0, struct.pack("<I", fb_id))
        return 0

    def _rmfb(self, client, arg):
        data, b = self._struct(arg, 4)
        fb_id, = struct.unpack_from("<I", b)
        fb = self.fbs.get(fb_id)
        if fb is None or fb.owner is not client:
            return ENOENT
        self._remove_fb(fb_id)
        return 0

    def _obj_getproperties(self, client, arg):
        data, b = self._struct(arg, 32)
        count, obj_id, obj_type = struct.unpack_from("<3I", b, 16)
        c = self._connector(obj_id)
        if obj_type != OBJECT_CONNECTOR or c is None:
            return ENOENT if c is None else EINVAL
        props = self._props_of(c)
        if count >= len(props):
            self._put_array(data, 0, "<I", [p[0] for p in props])
            self._put_array(data, 8, "<Q", [p[1] for p in props])
        data.update(16, struct.pack("<I", len(props)))
        return 0

    def _getproperty(self, client, arg):
        data, b = self._struct(arg, 64)
        prop_id, = struct.unpack_from("<I", b, 16)
        count_values, count_enums = struct.unpack_from("<2I", b, 56)
        if prop_id == self.orientation_prop:
            name, enums = b"panel orientation", ORIENTATIONS
        elif prop_id == self.dpms_prop:
            name, enums = b"DPMS", ["On", "Standby", "Suspend", "Off"]
        else:
            return ENOENT
        if count_values >= len(enums):
            self._put_array(data, 0, "<Q", list(range(len(enums))))
        if count_enums >= len(enums):
            self._put_array(data, 8, "<Q32s", [(i, e.encode()) for i, e in enumerate(enums)])
        flags = PROP_ENUM | (PROP_IMMUTABLE if prop_id == self.orientation_prop else 0)
        data.update(20, struct.pack("<I32sII", flags, name, len(enums), len(enums)))
        return 0

    HANDLERS = {GET_CAP: _get_cap, SET_MASTER: _set_master, DROP_MASTER: _drop_master,
                GETRESOURCES: _getresources, GETCONNECTOR: _getconnector, GETENCODER: _getencoder,
                GETCRTC: _getcrtc, SETCRTC: _setcrtc, PAGE_FLIP: _page_flip, CREATE_DUMB: _create_dumb,
                MAP_DUMB: _map_dumb, DESTROY_DUMB: _destroy_dumb, ADDFB2: _addfb2, RMFB: _rmfb,
                OBJ_GETPROPERTIES: _obj_getproperties, GETPROPERTY: _getproperty}


class Console:
    """The foreground VT, /dev/tty0, in a testbed: KDGETMODE answers its mode, KDSETMODE
    sets it (and is recorded in `modes`, in order). Console switching as vt_ioctl.c does
    it: VT_GETSTATE answers the VT in front (`active`; the card's VT is 1), VT_SETMODE
    records the mode and signals a client asks for (`vt_modes`), VT_RELDISP answers a
    switch (`reldisps`): 1 lets a pending switch away happen, VT_ACKACQ takes a switch
    back, anything else is EINVAL, as is any answer outside VT_PROCESS. `switch_away` and
    `switch_back` do what the kernel does on Ctrl+Alt+Fn for a VT in VT_PROCESS mode:
    signal the client and wait for its answer. Any other ioctl is ENOTTY. It starts in
    KD_TEXT and VT_AUTO, as a console does."""

    def __init__(self, bed):
        bed.add("P: /devices/virtual/tty/tty0\nN: tty0=00\nE: SUBSYSTEM=tty\nE: DEVNAME=/dev/tty0\nA: dev=4:0\n")
        self.lock = threading.Condition()
        self.mode = KD_TEXT
        self.modes = []
        self.active = 1
        self.vt_mode = (VT_AUTO, 0, 0)    # (mode, relsig, acqsig)
        self.vt_modes = []
        self.reldisps = []
        self.new_vt = None                # a switch away waiting for VT_RELDISP 1
        self.handler = UMockdev.IoctlBase()
        self.handler.connect("handle-ioctl", self._ioctl)
        bed.tb.attach_ioctl("/dev/tty0", self.handler)

    def switch_away(self, vt, pid, timeout=10):
        """Ctrl+Alt+F`vt`: in VT_PROCESS mode the client (`pid`) gets its release signal
        and the switch waits for VT_RELDISP 1; in VT_AUTO it happens at once."""
        with self.lock:
            mode, relsig, _ = self.vt_mode
            if mode != VT_PROCESS:
                self.active = vt
                return
            self.new_vt = vt
        os.kill(pid, relsig)
        with self.lock:
            assert self.lock.wait_for(lambda: self.active == vt, timeout), "the client did not release the VT"

    def switch_back(self, pid, timeout=10):
        """Back to VT 1: the switch happens, then the client gets its acquire signal and
        answers VT_ACKACQ."""
        with self.lock:
            self.active = 1
            mode, _, acqsig = self.vt_mode
            answered = len(self.reldisps)
        if mode == VT_PROCESS:
            os.kill(pid, acqsig)
            with self.lock:
                assert self.lock.wait_for(lambda: VT_ACKACQ in self.reldisps[answered:], timeout), \
                    "the client did not acknowledge the switch back"

    def _ioctl(self, handler, client):
        req, arg = client.get_request(), client.get_arg()
        with self.lock:
            errno_value = self._answer(req, arg)
            self.lock.notify_all()
        client.complete(-1 if errno_value else 0, errno_value)
        return True

    def _answer(self, req, arg):
        if req == KDGETMODE:
            arg.resolve(0, 4).update(0, struct.pack("<i", self.mode))
        elif req == KDSETMODE:
            mode, = struct.unpack_from("<Q", bytes(arg.retrieve()))
            if mode not in (KD_TEXT, KD_GRAPHICS):
                return EINVAL
            self.mode = mode
            self.modes.append(mode)
        elif req == VT_GETSTATE:
            arg.resolve(0, 6).update(0, struct.pack("<3H", self.active, 0, 0))
        elif req == VT_SETMODE:
            mode, _, relsig, acqsig, _ = struct.unpack("<bbhhh", bytes(arg.resolve(0, 8).retrieve()))
            self.vt_mode = (mode, relsig, acqsig)
            self.vt_modes.append(self.vt_mode)
        elif req == VT_RELDISP:
            answer, = struct.unpack_from("<Q", bytes(arg.retrieve()))
            if self.vt_mode[0] != VT_PROCESS:
                return EINVAL
            if self.new_vt is not None:
                if answer == 1:
                    self.active, self.new_vt = self.new_vt, None
                elif answer == 0:
                    self.new_vt = None
                else:
                    return EINVAL
            elif answer != VT_ACKACQ:
                return EINVAL
            self.reldisps.append(answer)
        else:
            return ENOTTY
        return 0
