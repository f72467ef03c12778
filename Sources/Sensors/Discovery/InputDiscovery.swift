import Evdev
import Udev

/// Finds the accelerometers that the kernel exposes as input devices: the event nodes
/// udev marks `ID_INPUT_ACCELEROMETER` (lis3lv02d on HP laptops; the "Motion Sensors" node
/// of a DualSense, DualShock 4, Joy-Con or Pro Controller), each opened once to read what
/// evdev says of it, with the joystick beside it when it is part of a game controller.
package enum InputDiscovery {
    /// One udev device of the `input` subsystem, as the sibling rule needs it.
    struct Entry: Sendable {
        var sysname: String
        var syspath: String
        var parentSyspath: String?
        var joystick: Bool
    }

    /// Every input accelerometer of this machine, in event number order.
    package static func snapshots(udev: UdevContext) throws(SensorError) -> [InputDeviceSnapshot] {
        let all: [UdevDevice]
        do { all = try udev.devices(subsystem: "input") } catch { throw SensorError(device: "udev", "\(error)") }
        let entries = all.map {
            Entry(
                sysname: $0.sysname, syspath: $0.syspath, parentSyspath: $0.parentSyspath,
                joystick: $0.property("ID_INPUT_JOYSTICK") == "1")
        }
        return all.compactMap { d -> InputDeviceSnapshot? in
            guard d.sysname.hasPrefix("event"), let n = Int(d.sysname.dropFirst("event".count)),
                d.property("ID_INPUT_ACCELEROMETER") == "1"
            else { return nil }
            return snapshot(of: d, number: n, udev: udev, entries: entries)
        }.sorted { $0.number < $1.number }
    }

    /// The snapshot of one event node: its input device's attributes, the joystick beside
    /// it, and evdev's answers (or why the node would not open).
    static func snapshot(of d: UdevDevice, number: Int, udev: UdevContext, entries: [Entry]) -> InputDeviceSnapshot {
        let inputPath = d.parentSyspath
        let input = inputPath.flatMap { try? udev.device(syspath: $0) }
        var attributes: [String: String] = [:]
        for name in ["name", "phys", "id/bustype", "id/vendor", "id/product", "id/version", "poll", "min", "max"] {
            if let v = input?.sysattr(name) { attributes[name] = v }
        }
        let parent = input?.parentSyspath
        var s = InputDeviceSnapshot(
            sysname: d.sysname, number: number, syspath: d.syspath, devnode: d.devnode,
            inputSyspath: inputPath, parentSyspath: parent, udevProperties: d.properties,
            inputAttributes: attributes,
            joystickSibling: joystickSibling(of: inputPath, parent: parent, in: entries))
        if let node = d.devnode {
            do throws(EvdevError) {
                let dev = try EvdevDevice(path: node)
                s.evdev = .success(EvdevFacts(dev))
            } catch {
                s.evdev = .failure(error)
            }
        }
        return s
    }

    /// A joystick under the same parent as the input device `input` (iio-sensor-proxy's
    /// rule in drv-input-accel.c, is_part_of_joypad(): the gamepad of a DualSense, a
    /// DualShock 4 or a Joy-Con sits beside its motion sensors under one HID device, and
    /// a pad must never rotate anyone's screen): its sysname, or nil. Pure.
    static func joystickSibling(of input: String?, parent: String?, in entries: [Entry]) -> String? {
        guard let parent, !parent.isEmpty else { return nil }
        let siblings = entries.filter { $0.parentSyspath == parent && $0.syspath != input }
        // udev marks the joystick's input device and its nodes (js0, eventN) alike.
        return siblings.first { s in s.joystick || entries.contains { $0.parentSyspath == s.syspath && $0.joystick } }?
            .sysname
    }
}
