import Motion

/// One IIO gyroscope (channels `in_anglvel_{x,y,z}`, docs/TILT.md, "With a gyroscope"): what
/// `shimmerd sensors` reports and what the drivers need to read it. Pure: built from the
/// same `AttributeSnapshot` as an accelerometer (a combined IMU is both).
package struct GyroscopeDescription: IIODeviceDescription {
    package var facts: IIODeviceFacts
    /// `anglvel_x`, `anglvel_y`, `anglvel_z`, their scale (rad/s per count) and offset
    /// (counts). A gyroscope in a device of its own (a HID hub's `gyro_3d`) is read from
    /// its own buffer when the accelerometer is.
    package var axes: AxisChannels
    /// The gyroscope's own matrix (`in_anglvel_mount_matrix`, `mount_matrix`,
    /// `in_mount_matrix`) and its source, else identity (`default:identity`).
    package var ownMatrix: MountMatrix
    package var ownMatrixSource: String
    /// Its sysfs matrices that were malformed or no rotation, in the order tried.
    package var ownMatrixProblems: [MountMatrixProblem]
    /// Why it cannot be used (nil when usable).
    package var skipReason: String?
    /// `in_anglvel_sampling_frequency` or the device's shared `sampling_frequency`.
    package var samplingFrequency: SamplingFrequencyInfo?
    /// The gyroscope of an input device's node (`GyroscopeDescription(input:)`): IIO
    /// selectors (`iio:deviceN`, `label:`) never name it.
    package var fromInputDevice = false

    package var isUsable: Bool { skipReason == nil }

    /// Sysfs matrices of a gyroscope, first found wins (docs/TILT.md, "With a gyroscope").
    package static let mountMatrixAttributes = ["in_anglvel_mount_matrix", "mount_matrix", "in_mount_matrix"]

    /// Nil unless the device has angular velocity channels.
    package init?(snapshot s: AttributeSnapshot) {
        axes = AxisChannels(snapshot: s, channel: "anglvel")
        guard !axes.channels.isEmpty else { return nil }
        facts = IIODeviceFacts(snapshot: s)
        samplingFrequency = SamplingFrequencyInfo(snapshot: s, channel: "anglvel")
        (ownMatrix, ownMatrixSource, ownMatrixProblems) = MountMatrixProblem.choose(
            Self.mountMatrixAttributes.map {
                ("sysfs:\($0)", s.attributes[$0])
            })
        skipReason =
            axes.valueProblem
            ?? (!axes.pollCapable && !axes.bufferCapable
                ? "angular velocity channels incomplete: \(axes.channels.joined(separator: ", "))" : nil)
    }
}

/// `Sensor.gyro` (config/shimmerd.conf).
package enum GyroSelector: Hashable, Sendable, CustomStringConvertible {
    /// The accelerometer's own gyroscope, else one under the same parent (docs/TILT.md,
    /// "With a gyroscope").
    case auto
    case none
    case iioDevice(Int)
    case name(String)
    case label(String)

    package typealias ParseError = SelectorParseError

    package static func parse(_ text: String) -> Result<GyroSelector, ParseError> {
        let t = String(text[...].trimmingASCIIWhitespace())
        switch t {
        case "auto": return .success(.auto)
        case "none": return .success(.none)
        default: break
        }
        switch DeviceSelector.parse(t) {
        case .success(.iioDevice(let n)): return .success(.iioDevice(n))
        case .success(.name(let n)): return .success(.name(n))
        case .success(.label(let n)): return .success(.label(n))
        default:
            return .failure(
                ParseError(
                    key: "Sensor.gyro", value: text,
                    expected: "auto, none, iio:deviceN, name:NAME or label:LABEL"))
        }
    }

    package var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .iioDevice(let n): DeviceSelector.iioDevice(n).description
        case .name(let n): DeviceSelector.name(n).description
        case .label(let n): DeviceSelector.label(n).description
        }
    }
}

/// The gyroscope paired with an accelerometer, the frame it is read in, and why
/// (docs/TILT.md, "With a gyroscope"). Pure.
package struct GyroPairing: Sendable {
    package var gyro: GyroscopeDescription?
    /// Why this one, or why none.
    package var reason: String
    package var calibration: RateCalibration?
    /// `config:Sensor.gyro_mount_matrix`, `accelerometer:<its source>` (det(M) * M),
    /// the gyroscope's own `sysfs:...`, or `default:identity`.
    package var matrixSource: String?

    /// How the gyroscope relates to the accelerometer.
    package enum Relation: Equatable, Sendable {
        case sameDevice
        case sameParent(String)
        case unrelated
    }

    /// - Parameters:
    ///   - configuredMatrix: `Sensor.gyro_mount_matrix` when not `auto`.
    package static func pair(
        accelerometer a: AccelerometerDescription, gyroscopes: [GyroscopeDescription],
        selector: GyroSelector, configuredMatrix: MountMatrix?
    ) -> GyroPairing {
        // An input device's gyroscope is read with its own accelerometer only (one node).
        let usable = gyroscopes.filter { $0.isUsable && (!$0.fromInputDevice || $0.id == a.id) }
        let chosen: GyroscopeDescription?
        let reason: String
        switch selector {
        case .none:
            return GyroPairing(gyro: nil, reason: "Sensor.gyro = none", calibration: nil, matrixSource: nil)
        case .auto:
            if let g = usable.first(where: { relation(a, $0) == .sameDevice }) {
                (chosen, reason) = (
                    g,
                    g.fromInputDevice
                        ? "the accelerometer's own event node (ABS_RX, ABS_RY, ABS_RZ)"
                        : "the accelerometer's own IIO device"
                )
            } else if let g = usable.first(where: { if case .sameParent = relation(a, $0) { true } else { false } }),
                case .sameParent(let parent) = relation(a, g)
            {
                (chosen, reason) = (g, "same parent device as the accelerometer (\(parent))")
            } else {
                let others = usable.map(\.displayName)
                return GyroPairing(
                    gyro: nil,
                    reason: others.isEmpty
                        ? "no gyroscope found"
                        : "no gyroscope in the accelerometer's own device or under its parent (not paired: "
                            + others.joined(separator: ", ") + ")",
                    calibration: nil, matrixSource: nil)
            }
        case .iioDevice(let n):
            (chosen, reason) = (
                gyroscopes.first { !$0.fromInputDevice && $0.index == n }, "Sensor.gyro = iio:device\(n)"
            )
        case .name(let n):
            (chosen, reason) = (
                gyroscopes.first { $0.name == n && (!$0.fromInputDevice || $0.id == a.id) },
                "Sensor.gyro = name:\(n)"
            )
        case .label(let l):
            (chosen, reason) = (gyroscopes.first { !$0.fromInputDevice && $0.label == l }, "Sensor.gyro = label:\(l)")
        }
        guard let g = chosen else {
            return GyroPairing(gyro: nil, reason: "\(reason): no such gyroscope", calibration: nil, matrixSource: nil)
        }
        if let why = g.skipReason {
            return GyroPairing(
                gyro: nil, reason: "\(reason): \(g.displayName) unusable: \(why)", calibration: nil, matrixSource: nil)
        }
        let (matrix, sign, source) = frame(accelerometer: a, gyroscope: g, configured: configuredMatrix)
        return GyroPairing(
            gyro: g, reason: reason,
            calibration: RateCalibration(scale: g.scale, offset: g.offset, mountMatrix: matrix, sign: sign),
            matrixSource: source)
    }

    /// The matrix rule of docs/TILT.md, "With a gyroscope": the configuration; else, for one chip or one hub,
    /// the accelerometer's effective matrix as det(M) * M; else the gyroscope's own.
    static func frame(
        accelerometer a: AccelerometerDescription, gyroscope g: GyroscopeDescription,
        configured: MountMatrix?
    ) -> (MountMatrix, Double, String) {
        if let configured { return (configured, 1, "config:Sensor.gyro_mount_matrix") }
        if relation(a, g) != .unrelated {
            let det = a.mountMatrix.determinant
            return (a.mountMatrix, det < 0 ? -1 : 1, "accelerometer:\(a.mountMatrixSource)")
        }
        return (g.ownMatrix, 1, g.ownMatrixSource)
    }

    /// Same IIO device; or the same parent device (a chip with two IIO devices); or, for
    /// HID sensor hub children (`HID-SENSOR-200073.N.auto` for accel_3d,
    /// `HID-SENSOR-200076.N.auto` for gyro_3d), the same hub.
    package static func relation(_ a: AccelerometerDescription, _ g: GyroscopeDescription) -> Relation {
        if a.id == g.id && a.syspath == g.syspath { return .sameDevice }
        guard let pa = a.syspath.map(parent), let pg = g.syspath.map(parent), !pa.isEmpty else { return .unrelated }
        if pa == pg { return .sameParent(pa) }
        let hid = { (p: String) in last(p).hasPrefix("HID-SENSOR-") }
        if hid(pa), hid(pg), parent(pa) == parent(pg) { return .sameParent(parent(pa)) }
        return .unrelated
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private static func last(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
