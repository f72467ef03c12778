import Motion

/// What discovery knows about one IIO device before interpreting it: its sysfs
/// attribute texts by file name (relative to the device directory, e.g.
/// `in_accel_scale`, `scan_elements/in_accel_x_type`, `trigger/current_trigger`) and
/// its udev properties. Built from libudev for local devices and from libiio for a
/// remote context; `AccelerometerDescription.init(snapshot:...)` is pure over it.
package struct AttributeSnapshot: Sendable {
    /// `iio:deviceN`.
    package var id: String
    package var index: Int
    /// Absolute sysfs path (`/sys/devices/...`), nil for a remote device.
    package var syspath: String?
    /// `/dev/iio:deviceN`, nil when unknown or remote.
    package var devnode: String?
    package var attributes: [String: String]
    package var udevProperties: [String: String]
    /// Names of the triggers of the same context (`name` of each `triggerN`).
    package var triggerNames: [String]
    /// Files the device's directory lists that would not read: the kernel refused them
    /// (an I2C accelerometer's `in_accel_*_raw` is EBUSY while another program's buffer
    /// runs). Local devices only.
    package var unreadable: Set<String> = []

    package init(
        id: String, index: Int, syspath: String?, devnode: String?, attributes: [String: String],
        udevProperties: [String: String], triggerNames: [String]
    ) {
        self.id = id
        self.index = index
        self.syspath = syspath
        self.devnode = devnode
        self.attributes = attributes
        self.udevProperties = udevProperties
        self.triggerNames = triggerNames
    }

    /// The attribute text without the kernel's trailing newline.
    package func text(_ name: String) -> String? {
        attributes[name].map { String($0[...].trimmingASCIIWhitespace()) }
    }

    /// The attribute files discovery reads for an accelerometer and a gyroscope, besides
    /// the device's own list and every file of its `scan_elements` directory.
    package static let interestingAttributes: [String] = {
        var names = [
            "name", "label", "location", "mount_matrix", "in_accel_mount_matrix", "in_mount_matrix",
            "in_accel_scale", "in_accel_offset", "sampling_frequency", "sampling_frequency_available",
            "in_accel_sampling_frequency", "in_accel_sampling_frequency_available",
            "trigger/current_trigger", "buffer/enable", "buffer/length", "current_timestamp_clock",
            "in_accel_hysteresis",
        ]
        for a in ["x", "y", "z"] {
            names += ["in_accel_\(a)_raw", "in_accel_\(a)_scale", "in_accel_\(a)_offset"]
        }
        // The gyroscope of a combined IMU or a HID hub (docs/TILT.md, "With a gyroscope").
        names += [
            "in_anglvel_mount_matrix", "in_anglvel_scale", "in_anglvel_offset",
            "in_anglvel_sampling_frequency", "in_anglvel_sampling_frequency_available",
        ]
        for a in ["x", "y", "z"] {
            names += ["in_anglvel_\(a)_raw", "in_anglvel_\(a)_scale", "in_anglvel_\(a)_offset"]
        }
        for e in ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp"] {
            names += ["scan_elements/in_\(e)_en", "scan_elements/in_\(e)_index", "scan_elements/in_\(e)_type"]
        }
        return names
    }()
}
