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

    /// Drivers whose event attributes exist whether or not the chip's interrupt is wired,
    /// and which register a trigger of the device's name only when it is: that trigger
    /// proves the interrupt. `names`: what the device's `name` contains (its chip, or its
    /// ACPI id where the driver names it so), compared lowercased; `trigger`: the suffix
    /// before the device's index.
    /// - bmc150 (drivers/iio/accel/bmc150-accel-core.c; BOSC0200, the BMA2xx family):
    ///   `NAME-any-motion-devN`.
    /// - kxcjk-1013 (drivers/iio/accel/kxcjk-1013.c: KXCJ1013, KXTJ2, KXTF9, KX023,
    ///   KIOX000A/010A/020A, and SMO8500, whose interrupt the driver never takes):
    ///   `NAME-any-motion-devN`.
    /// - mma8452 (drivers/iio/accel/mma8452.c: MMA8451/2/3, MMA8652/3, FXLS8471):
    ///   `NAME-devN`.
    /// Others (fxls8962af, inv_mpu6050) have their events only with their interrupt.
    private static let interruptTriggers: [(names: [String], trigger: String)] = [
        (["bma2", "bmc15", "bmi055", "bma4"], "-any-motion-dev"),
        (["kxcj", "kxtj", "kxtf9", "kx023", "kiox", "smo8500", "kxj2109"], "-any-motion-dev"),
        (["mma8451", "mma8452", "mma8453", "mma8652", "mma8653", "fxls8471"], "-dev"),
    ]

    /// The `events/in_accel_*_en` attributes of a local device, where its motion interrupt
    /// is wired (`interruptTriggers`): without it the attributes exist but no event ever
    /// comes.
    private static func motionEvents(_ s: AttributeSnapshot, name: String?) -> ([String], String?) {
        guard s.syspath != nil, s.devnode != nil else { return ([], nil) }
        let enables = s.attributes.keys.filter { $0.hasPrefix("events/in_accel_") && $0.hasSuffix("_en") }.sorted()
        guard !enables.isEmpty else { return ([], nil) }
        let n = name ?? ""
        let lowered = n.lowercased()
        for family in interruptTriggers where family.names.contains(where: { lowered.contains($0) }) {
            let trigger = "\(n)\(family.trigger)\(s.index)"
            if !s.triggerNames.contains(trigger) {
                return ([], "no \(trigger) trigger: its motion interrupt is not wired")
            }
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
