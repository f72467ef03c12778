import CEvdev

/// An event type of linux/input-event-codes.h (`EV_*`).
package struct EventType: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    init(_ c: Int32) { rawValue = UInt16(c) }

    package static let synchronization = EventType(EV_SYN)
    package static let key = EventType(EV_KEY)
    package static let relative = EventType(EV_REL)
    package static let absolute = EventType(EV_ABS)
    package static let miscellaneous = EventType(EV_MSC)
    /// `EV_SW`: a switch (a lid, a convertible's tablet mode).
    package static let switchState = EventType(EV_SW)
}

/// An absolute axis (`ABS_*`). With `INPUT_PROP_ACCELEROMETER` set, `x`, `y`, `z` are an
/// accelerometer's axes and `rx`, `ry`, `rz` a gyroscope's rates about them (kernel
/// Documentation/input/event-codes.rst).
package struct AbsoluteAxis: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    init(_ c: Int32) { rawValue = UInt16(c) }

    package static let x = AbsoluteAxis(ABS_X)
    package static let y = AbsoluteAxis(ABS_Y)
    package static let z = AbsoluteAxis(ABS_Z)
    package static let rx = AbsoluteAxis(ABS_RX)
    package static let ry = AbsoluteAxis(ABS_RY)
    package static let rz = AbsoluteAxis(ABS_RZ)
    /// `ABS_CNT`: codes are below it.
    package static let count = Int(ABS_CNT)

    /// `ABS_X` ... `ABS_RZ`, else `ABS_0xNN`.
    package var description: String {
        let names = ["ABS_X", "ABS_Y", "ABS_Z", "ABS_RX", "ABS_RY", "ABS_RZ"]
        return Int(rawValue) < names.count ? names[Int(rawValue)] : "ABS_0x" + String(rawValue, radix: 16)
    }
}

/// A device property (`INPUT_PROP_*`).
package struct InputProperty: RawRepresentable, Hashable, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `INPUT_PROP_ACCELEROMETER`: the device reports motion (accelerometer and gyroscope
    /// axes), with resolutions in units per g and per degree per second.
    package static let accelerometer = InputProperty(rawValue: UInt32(INPUT_PROP_ACCELEROMETER))
}

/// Codes of `EV_SYN` and `EV_MSC` that the readers of motion devices look at.
package enum EventCode {
    /// `SYN_REPORT`: the end of one report (a sample of every axis that changed).
    package static let report = UInt16(SYN_REPORT)
    /// `SYN_DROPPED`: the kernel's buffer for this reader overflowed; events were lost.
    package static let dropped = UInt16(SYN_DROPPED)
    /// `MSC_TIMESTAMP`: the device's own time of the report, microseconds, 32 bits, wraps.
    package static let timestamp = UInt16(MSC_TIMESTAMP)
    /// `SW_TABLET_MODE`: 1 while a convertible is folded into tablet mode.
    package static let tabletMode = UInt16(SW_TABLET_MODE)
}

/// `struct input_id`: the bus and the vendor, product and version numbers.
package struct InputID: Hashable, Sendable {
    package var bustype: UInt16
    package var vendor: UInt16
    package var product: UInt16
    package var version: UInt16

    package init(bustype: UInt16, vendor: UInt16, product: UInt16, version: UInt16) {
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
    }
}

/// `struct input_absinfo`: an absolute axis's current value, range, noise filter and
/// resolution (units per mm, per radian, or with `INPUT_PROP_ACCELEROMETER` per g and per
/// degree per second; 0 when the driver does not say).
package struct AbsInfo: Hashable, Sendable {
    package var value: Int32
    package var minimum: Int32
    package var maximum: Int32
    package var fuzz: Int32
    package var flat: Int32
    package var resolution: Int32

    package init(value: Int32, minimum: Int32, maximum: Int32, fuzz: Int32, flat: Int32, resolution: Int32) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// One `struct input_event`.
package struct InputEvent: Hashable, Sendable {
    package var type: EventType
    package var code: UInt16
    package var value: Int32
    /// The kernel's time of the event, ns, on the clock `EvdevDevice.useMonotonicClock`
    /// chose (CLOCK_REALTIME until then).
    package var timeNanoseconds: Int64

    package init(type: EventType, code: UInt16, value: Int32, timeNanoseconds: Int64) {
        self.type = type
        self.code = code
        self.value = value
        self.timeNanoseconds = timeNanoseconds
    }

    /// `EV_SYN` / `SYN_REPORT`.
    package var isReport: Bool { type == .synchronization && code == EventCode.report }

    init(_ ev: input_event) {
        self.init(
            type: EventType(rawValue: ev.type), code: ev.code, value: ev.value,
            timeNanoseconds: Int64(ev.time.tv_sec) * 1_000_000_000 + Int64(ev.time.tv_usec) * 1000)
    }

    /// Bytes of one `struct input_event`, as read(2) of an event node gives them.
    package static let byteCount = MemoryLayout<input_event>.size

    /// Calls `body` with each whole `struct input_event` in `bytes`, in order: what read(2)
    /// of an event node gave, decoded without libevdev (for a node read directly, such as
    /// a switch's, which need not be an input device libevdev can open). A partial event
    /// at the end is not decoded.
    package static func forEach(in bytes: UnsafeRawBufferPointer, _ body: (InputEvent) -> Void) {
        var at = 0
        while at + byteCount <= bytes.count {
            body(InputEvent(bytes.loadUnaligned(fromByteOffset: at, as: input_event.self)))
            at += byteCount
        }
    }
}

/// What one `EvdevDevice.next()` gave.
package enum EvdevRead: Hashable, Sendable {
    /// An event; libevdev's state of the device has taken it.
    case event(InputEvent)
    /// `SYN_DROPPED`: the kernel dropped events. The events since the last `SYN_REPORT`
    /// are incomplete; the sync follows: its events (`.event`), then `.synchronized`.
    case dropped
    /// libevdev's state is the device's again (re-read from the kernel after a drop).
    case synchronized
}
