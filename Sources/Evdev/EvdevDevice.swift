import CEvdev
import Glibc

/// An input device's event node, opened read-only without blocking, with its libevdev
/// context (`struct libevdev`): what the device is, its current state, and its events.
///
/// Reads drain what the kernel holds and stop when nothing is left: `next()` returns nil
/// then. libevdev's queue is filled by one read(2) when it is empty, not by one per event
/// (`LIBEVDEV_READ_FLAG_BLOCKING` on a descriptor that does not block: libevdev reads only
/// when its queue is empty, and the read still returns EAGAIN rather than waiting), and
/// whether the kernel holds more is asked with a poll(2) that does not wait
/// (`libevdev_has_event_pending`). A `SYN_DROPPED` switches to libevdev's sync mode until
/// its state is the kernel's again.
package final class EvdevDevice {
    /// The node, e.g. `/dev/input/event21`.
    package let path: String
    private let fd: Int32
    private let raw: OpaquePointer
    /// Between a `SYN_DROPPED` and the end of the sync.
    private var syncing = false
    /// What libevdev says of the device, kept for the caller (`takeMessages`).
    private let messages: EvdevMessages

    /// `open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)`, `libevdev_new()`,
    /// `libevdev_set_device_log_function()`, `libevdev_set_fd()`.
    ///
    /// libevdev's messages (such as "Unable to drain events, buffer size mismatch", once
    /// per resync while a device floods its node) would go to stderr by themselves, one
    /// line each, in no format of the caller's and without a limit: they are kept here
    /// instead, for the caller to say as it says the rest.
    package init(path: String) throws(EvdevError) {
        self.path = path
        let fd = try EvdevCall.value("open", path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard let dev = libevdev_new() else {
            close(fd)
            throw EvdevError(operation: "libevdev_new", device: path, code: ENOMEM)
        }
        let box = EvdevMessages()
        libevdev_set_device_log_function(
            dev,
            { _, _, data, _, _, _, format, args in
                guard let data, let format, let args else { return }
                var text = [CChar](repeating: 0, count: 512)
                _ = vsnprintf(&text, text.count, format, args)
                let line = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                Unmanaged<EvdevMessages>.fromOpaque(data).takeUnretainedValue().add(line)
            }, LIBEVDEV_LOG_INFO, Unmanaged.passUnretained(box).toOpaque())
        do {
            try EvdevCall.value("libevdev_set_fd", path) { libevdev_set_fd(dev, fd) }
        } catch {
            libevdev_free(dev)
            close(fd)
            throw error
        }
        self.fd = fd
        raw = dev
        messages = box
    }

    /// What libevdev said of the device since the last call, oldest first (at most
    /// `EvdevMessages.kept`), and how many more it said.
    package func takeMessages() -> (lines: [String], more: Int) { messages.take() }

    deinit {
        libevdev_free(raw)
        close(fd)
    }

    /// The descriptor, readable when events wait.
    package var fileDescriptor: Int32 { fd }

    /// `libevdev_get_name()`.
    package var name: String { EvdevCall.string(libevdev_get_name(raw)) ?? "" }
    /// `libevdev_get_phys()`, nil when the driver gives none.
    package var phys: String? { EvdevCall.string(libevdev_get_phys(raw)) }
    /// `libevdev_get_uniq()`, nil when the driver gives none.
    package var uniq: String? { EvdevCall.string(libevdev_get_uniq(raw)) }

    /// `libevdev_get_id_bustype()`, `_vendor()`, `_product()`, `_version()`.
    package var id: InputID {
        InputID(
            bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(raw)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(raw)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(raw)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(raw)))
    }

    /// `libevdev_has_property()`.
    package func has(_ p: InputProperty) -> Bool { libevdev_has_property(raw, p.rawValue) == 1 }

    /// `libevdev_has_event_type()`.
    package func has(_ type: EventType) -> Bool { libevdev_has_event_type(raw, UInt32(type.rawValue)) == 1 }

    /// `libevdev_has_event_code()`.
    package func has(_ type: EventType, code: UInt16) -> Bool {
        libevdev_has_event_code(raw, UInt32(type.rawValue), UInt32(code)) == 1
    }

    /// How many codes of `type` the device has (the kernel sizes its per-reader buffer
    /// from the counts of absolute and relative axes).
    package func codeCount(_ type: EventType) -> Int {
        let max = libevdev_event_type_get_max(UInt32(type.rawValue))
        guard max >= 0 else { return 0 }
        return (0...max).filter { libevdev_has_event_code(raw, UInt32(type.rawValue), UInt32($0)) == 1 }.count
    }

    /// `libevdev_get_abs_info()`: nil when the device has no such axis. `value` is
    /// libevdev's state of the device: the last value read (or re-read by a sync).
    package func absInfo(_ axis: AbsoluteAxis) -> AbsInfo? {
        guard let p = libevdev_get_abs_info(raw, UInt32(axis.rawValue)) else { return nil }
        let a = p.pointee
        return AbsInfo(
            value: a.value, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat,
            resolution: a.resolution)
    }

    /// `libevdev_get_event_value(EV_ABS, axis)`: the axis's value in libevdev's state.
    package func value(_ axis: AbsoluteAxis) -> Int32 {
        libevdev_get_event_value(raw, UInt32(EV_ABS), UInt32(axis.rawValue))
    }

    /// `libevdev_set_clock_id(CLOCK_MONOTONIC)`: the events' times on the monotonic clock
    /// (EVIOCSCLOCKID) rather than wall time, which can jump.
    package func useMonotonicClock() throws(EvdevError) {
        try EvdevCall.value("libevdev_set_clock_id(CLOCK_MONOTONIC)", path) {
            libevdev_set_clock_id(raw, CLOCK_MONOTONIC)
        }
    }

    /// The next event the kernel holds, nil when it holds none now. Throws when the read
    /// fails (ENODEV: the device went away).
    package func next() throws(EvdevError) -> EvdevRead? {
        var ev = input_event()
        if syncing {
            let rc = try EvdevCall.value("libevdev_next_event(SYNC)", path, allowing: EAGAIN) {
                libevdev_next_event(raw, LIBEVDEV_READ_FLAG_SYNC.rawValue, &ev)
            }
            if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) { return .event(Self.event(ev)) }
            syncing = false
            return .synchronized
        }
        let pending = try EvdevCall.value("libevdev_has_event_pending", path) { libevdev_has_event_pending(raw) }
        guard pending > 0 else { return nil }
        let flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue | LIBEVDEV_READ_FLAG_BLOCKING.rawValue
        let rc = try EvdevCall.value("libevdev_next_event", path, allowing: EAGAIN) {
            libevdev_next_event(raw, flags, &ev)
        }
        if rc == -EAGAIN { return nil }
        if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
            syncing = true
            return .dropped
        }
        return .event(Self.event(ev))
    }

    private static func event(_ ev: input_event) -> InputEvent { InputEvent(ev) }
}

/// libevdev's messages about one device, between two `EvdevDevice.takeMessages`: the
/// first `kept`, and a count of the rest (a flood makes one per resync).
final class EvdevMessages {
    static let kept = 4
    private var lines: [String] = []
    private var more = 0

    func add(_ line: String) {
        var text = line
        while text.last == "\n" || text.last == " " { text.removeLast() }
        if lines.count < Self.kept { lines.append(text) } else { more += 1 }
    }

    func take() -> (lines: [String], more: Int) {
        defer {
            lines.removeAll()
            more = 0
        }
        return (lines, more)
    }
}
