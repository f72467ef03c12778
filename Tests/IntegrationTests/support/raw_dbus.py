"""A D-Bus client written on a bare Unix socket, for the tests that play a hostile
neighbour on the bus: it sends what it likes (method calls flagged "no reply expected",
names of megabytes) and reads only when told to, which no library client allows (they
all read their socket in the background). The wire format of the D-Bus specification,
little-endian, for the few types the tests send: s, o, g, u, y and variants of them.

Run as a script, it is the attacker process of a test (so that it can run as another
user under setpriv):

    raw_dbus.py ADDRESS huge-get COUNT CHARS        # COUNT Get calls with names of CHARS characters
    raw_dbus.py ADDRESS flood MEMBER SECONDS        # no-reply calls of MEMBER for SECONDS
    raw_dbus.py ADDRESS forge DEST COUNT KIND ARGS  # COUNT forged signals addressed to DEST (`forged`)
    raw_dbus.py ADDRESS claim-storm SECONDS [unanswered]   # Claim(), Release(), ... each answered (or
                                                    # none), for SECONDS; prints "calls N" and exits
    raw_dbus.py ADDRESS fill-claims COUNT           # COUNT connections, each holding a claim

Each prints "sent" once everything is written, then sleeps without reading until killed.
"""
import os
import socket
import struct
import sys
import time

NAME, PATH, IFACE = "org.shimmerd.Shimmerd1", "/org/shimmerd/Shimmerd1", "org.shimmerd.Shimmerd1"
PROPERTIES = "org.freedesktop.DBus.Properties"
METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL = 1, 2, 3, 4
NO_REPLY_EXPECTED = 0x1
FIELD = {"path": (1, "o"), "interface": (2, "s"), "member": (3, "s"), "error_name": (4, "s"),
         "reply_serial": (5, "u"), "destination": (6, "s"), "sender": (7, "s"), "signature": (8, "g")}


def _pad(buf, alignment):
    buf.extend(b"\0" * (-len(buf) % alignment))


def _put(buf, code, value):
    if code in "so":
        data = value.encode() if isinstance(value, str) else value
        _pad(buf, 4)
        buf.extend(struct.pack("<I", len(data)) + data + b"\0")
    elif code == "g":
        buf.extend(bytes([len(value)]) + value.encode() + b"\0")
    elif code == "u":
        _pad(buf, 4)
        buf.extend(struct.pack("<I", value))
    elif code == "y":
        buf.append(value)
    else:
        raise ValueError("raw_dbus cannot marshal %r" % code)


def properties_body(interface, properties):
    """The body of PropertiesChanged (signature sa{sv}as): `properties` a list of
    (name, one-character type among s, u, d, value); no invalidated names."""
    buf = bytearray()
    _put(buf, "s", interface)
    _pad(buf, 4)
    at = len(buf)
    buf.extend(b"\0\0\0\0")
    _pad(buf, 8)
    start = len(buf)
    for name, code, value in properties:
        _pad(buf, 8)
        _put(buf, "s", name)
        _put(buf, "g", code)
        if code == "d":
            _pad(buf, 8)
            buf.extend(struct.pack("<d", value))
        else:
            _put(buf, code, value)
    struct.pack_into("<I", buf, at, len(buf) - start)
    _pad(buf, 4)
    buf.extend(b"\0\0\0\0")     # as: empty
    return bytes(buf)


def message(kind, serial, body=(), signature="", flags=0, payload=None, **fields):
    """The bytes of one message: header fields by name (path=..., member=...), the body
    as values of the one-character types of `signature` (or `payload`, its bytes as made)."""
    if payload is None:
        payload = bytearray()
        for code, value in zip(signature, body):
            _put(payload, code, value)
    if signature:
        fields["signature"] = signature
    header_fields = bytearray()
    for name, value in fields.items():
        number, code = FIELD[name]
        _pad(header_fields, 8)
        header_fields.append(number)
        _put(header_fields, "g", code)
        _put(header_fields, code, value)
    head = bytearray(b"l" + bytes([kind, flags, 1]) + struct.pack("<III", len(payload), serial, len(header_fields)))
    head.extend(header_fields)
    _pad(head, 8)
    return bytes(head + payload)


class RawBus:
    """One connection: authenticated (EXTERNAL, as the process's uid) and registered
    (Hello), nothing read after that unless `read_message` is called."""

    def __init__(self, address):
        assert address.startswith("unix:path="), address
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(address[len("unix:path="):])
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        reply = self._line()
        assert reply.startswith(b"OK "), reply
        self.sock.sendall(b"BEGIN\r\n")
        self.serial = 0
        self.buffer = b""
        hello = self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        while True:
            m = self.read_message()
            if m["kind"] == METHOD_RETURN and m["reply_serial"] == hello:
                self.unique_name = m["body"][4:4 + struct.unpack_from("<I", m["body"])[0]].decode()
                break

    def _line(self):
        line = b""
        while not line.endswith(b"\r\n"):
            chunk = self.sock.recv(1)
            assert chunk, "the bus closed the connection during authentication"
            line += chunk
        return line

    def call(self, destination, path, interface, member, signature="", body=(), no_reply=False):
        """Sends a method call; returns its serial."""
        self.serial += 1
        self.sock.sendall(message(METHOD_CALL, self.serial, body, signature, NO_REPLY_EXPECTED if no_reply else 0,
                                  path=path, interface=interface, member=member, destination=destination))
        return self.serial

    def _take(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "the bus closed the connection"
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_message(self):
        """The next message: its kind, reply serial, error name and raw body bytes."""
        fixed = self._take(16)
        body_length, _, fields_length = struct.unpack_from("<III", fixed, 4)
        fields = self._take(fields_length + (-(16 + fields_length) % 8))
        body = self._take(body_length)
        out = {"kind": fixed[1], "reply_serial": None, "error_name": None, "body": body}
        i = 0
        while i < fields_length:
            i += -i % 8
            number, sig_len = fields[i], fields[i + 1]
            code = fields[i + 2:i + 2 + sig_len].decode()
            i += 3 + sig_len
            if code in "so":
                i += -(16 + i) % 4
                n = struct.unpack_from("<I", fields, i)[0]
                value = fields[i + 4:i + 4 + n].decode()
                i += 5 + n
            elif code == "g":
                n = fields[i]
                value = fields[i + 1:i + 1 + n].decode()
                i += 2 + n
            else:
                i += -(16 + i) % 4
                value = struct.unpack_from("<I", fields, i)[0]
                i += 4
            if number == 5:
                out["reply_serial"] = value
            elif number == 4:
                out["error_name"] = value
        return out

    def reply_to(self, serial, timeout):
        """The reply to call `serial` (other messages skipped), within `timeout` seconds."""
        self.sock.settimeout(timeout)
        try:
            while True:
                m = self.read_message()
                if m["kind"] in (METHOD_RETURN, ERROR) and m["reply_serial"] == serial:
                    return m
        finally:
            self.sock.settimeout(None)

    def close(self):
        self.sock.close()


def huge_get(address, count, chars):
    """`count` Properties.Get calls with an interface and a property name of `chars`
    characters each, on one connection that never reads."""
    bus = RawBus(address)
    name = "x" * chars
    for _ in range(count):
        bus.call(NAME, PATH, PROPERTIES, "Get", "ss", (name, name))
    return bus


def flood(address, member, seconds):
    """No-reply calls of `member` (GetAll of the interface, or a method of it) as fast as
    the bus takes them, for `seconds`."""
    bus = RawBus(address)
    if member == "GetAll":
        call = message(METHOD_CALL, 1, (IFACE,), "s", NO_REPLY_EXPECTED, path=PATH, interface=PROPERTIES,
                       member="GetAll", destination=NAME)
    else:
        call = message(METHOD_CALL, 1, (), "", NO_REPLY_EXPECTED, path=PATH, interface=IFACE, member=member,
                       destination=NAME)
    batch = call * 64       # one serial for all: the bus does not check, and nothing replies
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        bus.sock.sendall(batch)
    return bus


DRIVER = ("/org/freedesktop/DBus", "org.freedesktop.DBus")


def forged(kind, args):
    """The signals of one forgery (each a (member, path, interface, signature, body or payload)):
    - noc NAME OLD NEW: NameOwnerChanged(NAME, OLD, NEW) as if from the bus;
    - lost-acquired NAME: NameLost(NAME) then NameAcquired(NAME);
    - props JUNK: PropertiesChanged of the interface with forged values of State, Claims,
      DPitch (NaN) and JUNK more properties of 30-character names."""
    if kind == "noc":
        return [("NameOwnerChanged", *DRIVER, "sss", tuple(args[:3]), None)]
    if kind == "lost-acquired":
        return [(m, *DRIVER, "s", (args[0],), None) for m in ("NameLost", "NameAcquired")]
    if kind == "props":
        junk = [("Junk%026d" % i, "s", "FORGED junk value %d" % i) for i in range(int(args[0]))]
        props = [("State", "s", "FORGED" + "X" * 2000), ("Claims", "u", 4294967295), ("DPitch", "d", float("nan"))]
        return [("PropertiesChanged", PATH, PROPERTIES, "sa{sv}as", (), properties_body(IFACE, props + junk))]
    raise ValueError("unknown forgery " + kind)


def forge(address, destination, count, kind, args):
    """`count` times the signals of `forged(kind, args)`, addressed to `destination` (a
    unique name), sent as fast as the bus takes them."""
    bus = RawBus(address)
    batch = b"".join(message(SIGNAL, 1, body, signature, 0, payload, path=path, interface=interface, member=member,
                             destination=destination)
                     for member, path, interface, signature, body, payload in forged(kind, args))
    for _ in range(count):
        bus.sock.sendall(batch)
    # Delivered before these answers: the bus routes one connection's messages in order, and
    # the destination reads them in order (its Ping answer, where the policy allows one).
    bus.reply_to(bus.call("org.freedesktop.DBus", *DRIVER, "GetId"), 60)
    bus.reply_to(bus.call(destination, "/", "org.freedesktop.DBus.Peer", "Ping"), 60)
    return bus


def claim_storm(address, seconds, answered=True):
    """Claim() then Release() on one connection for `seconds`: each call's answer awaited
    (as a client library does), as fast as the daemon answers; or, not `answered`, flagged
    "no reply expected" and sent as fast as the bus takes them. Returns the connection and
    the number of calls."""
    bus = RawBus(address)
    calls = 0
    end = time.monotonic() + seconds
    if not answered:
        batch = b"".join(message(METHOD_CALL, 1, (), "", NO_REPLY_EXPECTED, path=PATH, interface=IFACE, member=m,
                                 destination=NAME) for m in ("Claim", "Release")) * 64
        while time.monotonic() < end:
            bus.sock.sendall(batch)
            calls += 128
        return bus, calls
    while time.monotonic() < end:
        for member in ("Claim", "Release"):
            bus.reply_to(bus.call(NAME, PATH, IFACE, member), 10)
            calls += 1
    return bus, calls


def fill_claims(address, count):
    """`count` connections, each holding a claim (the answers ignored: the last ones are
    refused once the daemon's table is full)."""
    held = []
    for _ in range(count):
        b = RawBus(address)
        b.reply_to(b.call(NAME, PATH, IFACE, "Claim"), 10)
        held.append(b)
    return held


if __name__ == "__main__":
    address, what = sys.argv[1], sys.argv[2]
    if what == "huge-get":
        held = huge_get(address, int(sys.argv[3]), int(sys.argv[4]))
    elif what == "flood":
        held = flood(address, sys.argv[3], float(sys.argv[4]))
    elif what == "forge":
        held = forge(address, sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:])
    elif what == "claim-storm":
        _, calls = claim_storm(address, float(sys.argv[3]), answered=sys.argv[4:5] != ["unanswered"])
        print("calls %d" % calls, flush=True)
        sys.exit(0)
    elif what == "fill-claims":
        held = fill_claims(address, int(sys.argv[3]))
    else:
        sys.exit("raw_dbus.py: unknown command " + what)
    print("sent", flush=True)
    while True:
        time.sleep(60)
