import Evdev
import Motion

/// What discovery knows about one input device's event node before interpreting it: its
/// udev view (the node's properties, its input device's sysfs attributes, whether a
/// joystick sits beside it under the same parent) and, when the node opens, what evdev
/// says of it. Built by `InputDiscovery`; `AccelerometerDescription(input:...)` is pure over it.
package struct InputDeviceSnapshot: Sendable {
    /// `event21`.
    package var sysname: String
    /// 21.
    package var number: Int
    /// The event node's sysfs path (`/sys/devices/.../input/input21/event21`).
    package var syspath: String
    /// `/dev/input/event21`.
    package var devnode: String?
    /// Its input device (`.../input/input21`), whose attributes are `inputAttributes`.
    package var inputSyspath: String?
    /// The device the input device belongs to: a HID device (a game controller), a
    /// platform device (lis3lv02d).
    package var parentSyspath: String?
    /// The event node's udev properties (`ID_INPUT_ACCELEROMETER`, `ACCEL_MOUNT_MATRIX`, ...).
    package var udevProperties: [String: String]
    /// The input device's sysfs attributes by file name: `name`, `id/vendor`,
    /// `id/product`, `id/bustype`, and an input poller's `poll`, `min`, `max` (ms).
    package var inputAttributes: [String: String]
    /// A joystick under the same parent (`ID_INPUT_JOYSTICK=1`: a game controller's
    /// gamepad beside its motion sensors), by sysname, nil when there is none.
    package var joystickSibling: String?
    /// What the node says when opened (`EvdevFacts`), or why it would not open.
    package var evdev: Result<EvdevFacts, EvdevError>?

    package init(
        sysname: String, number: Int, syspath: String, devnode: String?, inputSyspath: String?,
        parentSyspath: String?, udevProperties: [String: String], inputAttributes: [String: String],
        joystickSibling: String? = nil, evdev: Result<EvdevFacts, EvdevError>? = nil
    ) {
        self.sysname = sysname
        self.number = number
        self.syspath = syspath
        self.devnode = devnode
        self.inputSyspath = inputSyspath
        self.parentSyspath = parentSyspath
        self.udevProperties = udevProperties
        self.inputAttributes = inputAttributes
        self.joystickSibling = joystickSibling
        self.evdev = evdev
    }

    /// The input device's attribute, trimmed; nil when absent or empty.
    package func attribute(_ name: String) -> String? {
        guard let v = inputAttributes[name] else { return nil }
        let t = String(v[...].trimmingASCIIWhitespace())
        return t.isEmpty ? nil : t
    }

    /// udev says it is an accelerometer: its `input_id` builtin sets
    /// `ID_INPUT_ACCELEROMETER` for `INPUT_PROP_ACCELEROMETER`, and for a device with
    /// ABS_X, ABS_Y and ABS_Z and no keys (older drivers such as lis3lv02d set no property).
    package var isAccelerometer: Bool { udevProperties["ID_INPUT_ACCELEROMETER"] == "1" }

    /// The vendor and product numbers: evdev's, else sysfs `id/vendor` and `id/product` (hex).
    package var vendorProduct: (vendor: UInt16, product: UInt16)? {
        if case .success(let f)? = evdev { return (f.id.vendor, f.id.product) }
        guard let v = attribute("id/vendor").flatMap({ UInt16($0, radix: 16) }),
            let p = attribute("id/product").flatMap({ UInt16($0, radix: 16) })
        else { return nil }
        return (v, p)
    }

    /// The bus type (`BUS_USB`, `BUS_HOST`, ...): evdev's, else sysfs `id/bustype` (hex).
    package var bus: UInt16? {
        if case .success(let f)? = evdev { return f.id.bustype }
        return attribute("id/bustype").flatMap { UInt16($0, radix: 16) }
    }

    /// The device's name: evdev's, else sysfs `name`.
    package var name: String? {
        if case .success(let f)? = evdev, !f.name.isEmpty { return f.name }
        return attribute("name")
    }
}

/// What an event node says of itself through evdev (EVIOCGNAME, EVIOCGID, EVIOCGPROP,
/// EVIOCGBIT, EVIOCGABS). Pure data.
package struct EvdevFacts: Sendable {
    package var name: String
    package var id: InputID
    /// `INPUT_PROP_ACCELEROMETER`: resolutions are per g and per degree per second.
    package var accelerometerProperty: Bool
    /// The motion axes it has (ABS_X ... ABS_RZ), with range, fuzz and resolution.
    package var axes: [AbsoluteAxis: AbsInfo]
    /// It reports `MSC_TIMESTAMP`.
    package var timestamps: Bool
    /// How many absolute and relative axes it has in all (the kernel sizes each reader's
    /// buffer from them).
    package var absoluteAxisCount: Int
    package var relativeAxisCount: Int

    package init(
        name: String, id: InputID, accelerometerProperty: Bool, axes: [AbsoluteAxis: AbsInfo],
        timestamps: Bool, absoluteAxisCount: Int, relativeAxisCount: Int
    ) {
        self.name = name
        self.id = id
        self.accelerometerProperty = accelerometerProperty
        self.axes = axes
        self.timestamps = timestamps
        self.absoluteAxisCount = absoluteAxisCount
        self.relativeAxisCount = relativeAxisCount
    }

    /// What an open node says.
    package init(_ d: EvdevDevice) {
        var axes: [AbsoluteAxis: AbsInfo] = [:]
        for a in [AbsoluteAxis.x, .y, .z, .rx, .ry, .rz] { axes[a] = d.absInfo(a) }
        self.init(
            name: d.name, id: d.id, accelerometerProperty: d.has(.accelerometer), axes: axes,
            timestamps: d.has(.miscellaneous, code: EventCode.timestamp),
            absoluteAxisCount: d.codeCount(.absolute), relativeAxisCount: d.codeCount(.relative))
    }
}
