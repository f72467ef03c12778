import Motion

/// Where the accelerometer sits (udev `ACCEL_LOCATION`, sysfs `label`).
package enum AccelLocation: String, Hashable, Sendable {
    case display, base
}

/// Everything `shimmerd sensors` reports about one IIO device, and what the drivers
/// need to read it. Pure: built from an `AttributeSnapshot`.
package struct AccelerometerDescription: IIODeviceDescription {
    package var facts: IIODeviceFacts
    /// `accel_x`, `accel_y`, `accel_z`, their scale and offset.
    package var axes: AxisChannels
    package var location: AccelLocation
    /// `udev:ACCEL_LOCATION`, `sysfs:label`, `sysfs:location` or `default`.
    package var locationSource: String
    package var mountMatrix: MountMatrix
    /// `config:Sensor.mount_matrix`, `udev:ACCEL_MOUNT_MATRIX`, `sysfs:mount_matrix`,
    /// `sysfs:in_accel_mount_matrix`, `sysfs:in_mount_matrix` or `default:identity`.
    package var mountMatrixSource: String
    /// Sources that were present but malformed or no rotation, in the order tried.
    package var mountMatrixProblems: [MountMatrixProblem]
    package var samplingFrequency: SamplingFrequencyInfo?
    package var udevProperties: [String: String]
    /// Why the device cannot be used at all (nil when usable).
    package var skipReason: String?
    /// An input device's own facts (`AccelerometerDescription+Input.swift`); nil for IIO.
    package var input: InputDeviceFacts? = nil
    /// A local HID hub's `in_accel_hysteresis` as found (what `RestWatch.hysteresis` puts back).
    package var restHysteresis: String? = nil
    /// A local device's motion events it may be told to send (`events/in_accel_*_en`),
    /// where its interrupt is wired (`RestWatch.events`); empty otherwise.
    package var motionEventEnables: [String] = []
    /// Why it has no usable motion events, when it has the attributes (for the rest watch's why).
    package var motionEventsRefused: String? = nil

    package var isAccelerometer: Bool { !channels.isEmpty }
    package var isUsable: Bool { skipReason == nil }

    /// Sources in docs/TILT.md "Mount matrix" order, after the configuration override.
    package static let mountMatrixAttributes = ["mount_matrix", "in_accel_mount_matrix", "in_mount_matrix"]

    /// Interprets a snapshot.
    /// - Parameter configuredMatrix: `Sensor.mount_matrix` when not `auto`; it wins.
    package init(snapshot s: AttributeSnapshot, configuredMatrix: MountMatrix?) {
        facts = IIODeviceFacts(snapshot: s)
        axes = AxisChannels(snapshot: s, channel: "accel")
        udevProperties = s.udevProperties
        (location, locationSource) = Self.location(s, label: facts.label)
        samplingFrequency = SamplingFrequencyInfo(snapshot: s)
        restHysteresis = s.syspath == nil ? nil : s.text("in_accel_hysteresis")
        (motionEventEnables, motionEventsRefused) = Self.motionEvents(s, name: facts.name)
        (mountMatrix, mountMatrixSource, mountMatrixProblems) = Self.mountMatrix(s, configured: configuredMatrix)
        if axes.channels.isEmpty {
            skipReason = "no accelerometer channels (in_accel_[xyz]_raw or scan_elements/in_accel_[xyz]_en)"
        } else if !axes.pollCapable && !axes.bufferCapable {
            skipReason = "accelerometer channels incomplete: \(axes.channels.joined(separator: ", "))"
        } else {
            skipReason = axes.valueProblem
        }
    }

    /// udev `ACCEL_LOCATION`, then sysfs `label`, then sysfs `location`, else the display.
    private static func location(_ s: AttributeSnapshot, label: String?) -> (AccelLocation, String) {
        if let l = s.udevProperties["ACCEL_LOCATION"].flatMap({ AccelLocation(rawValue: $0) }) {
            return (l, "udev:ACCEL_LOCATION")
        } else if label == "accel-display" {
            return (.display, "sysfs:label")
        } else if label == "accel-base" {
            return (.base, "sysfs:label")
        } else if let l = s.text("location").flatMap({ AccelLocation(rawValue: $0) }) {
            return (l, "sysfs:location")
        }
        return (.display, "default")
    }

    /// The `events/in_accel_*_en` attributes of a local device, where its motion interrupt
    /// is wired: a bmc150 (BOSC0200, the BMA2xx family) creates its `NAME-any-motion-devN`
    /// trigger only with its interrupt (drivers/iio/accel/bmc150-accel-core.c), and without it
    /// the attributes exist but no event ever comes.
    private static func motionEvents(_ s: AttributeSnapshot, name: String?) -> ([String], String?) {
        guard s.syspath != nil, s.devnode != nil else { return ([], nil) }
        let enables = s.attributes.keys.filter { $0.hasPrefix("events/in_accel_") && $0.hasSuffix("_en") }.sorted()
        guard !enables.isEmpty else { return ([], nil) }
        let n = name ?? ""
        let trigger = "\(n)-any-motion-dev\(s.index)"
        if ["BMA2", "BMC15", "BMI055", "BMA4"].contains(where: { n.contains($0) }), !s.triggerNames.contains(trigger) {
            return ([], "no \(trigger) trigger: its motion interrupt is not wired")
        }
        return (enables, nil)
    }

    /// Config > udev > sysfs names > identity; malformed sources and matrices that are no
    /// rotation are reported and skipped.
    private static func mountMatrix(_ s: AttributeSnapshot, configured: MountMatrix?) -> (
        MountMatrix, String, [MountMatrixProblem]
    ) {
        if let configured { return (configured, "config:Sensor.mount_matrix", []) }
        return MountMatrixProblem.choose(
            [("udev:ACCEL_MOUNT_MATRIX", s.udevProperties["ACCEL_MOUNT_MATRIX"])]
                + mountMatrixAttributes.map { ("sysfs:\($0)", s.attributes[$0]) })
    }
}
