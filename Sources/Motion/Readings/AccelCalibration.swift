/// Turns raw IIO counts into m/s^2 in the device frame (docs/TILT.md, "Readings in
/// m/s^2" to "Axes and signs"): `sensor = (raw + offset) * scale` per axis in the sensor frame, then
/// `device = M * sensor`, then the sign flip of `Sensor.invert`.
package struct AccelCalibration: Hashable, Sendable {
    /// Per-axis scale, m/s^2 per count.
    package var scale: Vector3
    /// Per-axis offset, counts.
    package var offset: Vector3
    package var mountMatrix: MountMatrix
    /// `Sensor.invert`: hardware that reports the opposite sign convention.
    package var invert: Bool

    package init(scale: Vector3, offset: Vector3 = .zero, mountMatrix: MountMatrix = .identity, invert: Bool = false) {
        self.scale = scale
        self.offset = offset
        self.mountMatrix = mountMatrix
        self.invert = invert
    }

    /// m/s^2 in the device frame.
    package func acceleration(raw: Vector3) -> Vector3 {
        let sensor = (raw + offset).scaled(by: scale)
        let device = mountMatrix.apply(sensor)
        return invert ? -device : device
    }
}

/// Where a per-axis value (scale or offset) came from.
package enum AxisValueSource: Hashable, Sendable {
    /// `in_accel_x_scale` and friends.
    case perAxis(String)
    /// `in_accel_scale`.
    case shared(String)
    /// Neither attribute exists: the documented default (offset 0).
    case defaulted
}

/// Chooses per-axis over shared (docs/TILT.md, "Readings in m/s^2":
/// `in_accel_x_scale` wins over `in_accel_scale`), parsing with `SysfsNumber`. Pure: `lookup` answers an attribute
/// name with its text, or nil when absent.
package enum AxisValueResolver {
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let attribute: String
        package let value: String
        package let reason: SysfsNumber.Failure
        package var description: String { "\(attribute) = \"\(value)\": \(reason)" }
    }

    /// - Parameters:
    ///   - channel: the IIO channel type: `accel` (m/s^2) or `anglvel` (rad/s).
    ///   - kind: `scale` or `offset`.
    ///   - defaultValue: used when no attribute exists; nil means the value is required.
    /// - Returns: the per-axis values and, per axis, where each came from; nil if the
    ///   value is required and missing on some axis.
    package static func resolve(
        channel: String = "accel", kind: String, defaultValue: Double?,
        lookup: (String) -> String?
    )
        -> Result<(Vector3, [Axis: AxisValueSource])?, Failure>
    {
        var v = Vector3.zero
        var sources: [Axis: AxisValueSource] = [:]
        let shared = "in_\(channel)_\(kind)"
        for axis in Axis.allCases {
            let perAxis = "in_\(channel)_\(axis.rawValue)_\(kind)"
            let (name, text, source): (String, String?, AxisValueSource) =
                if let t = lookup(perAxis) { (perAxis, t, .perAxis(perAxis)) } else if let t = lookup(shared) {
                    (shared, t, .shared(shared))
                } else { ("", nil, .defaulted) }
            if let text {
                switch SysfsNumber.parse(text) {
                case .success(let x): v[axis] = x
                case .failure(let f): return .failure(Failure(attribute: name, value: text, reason: f))
                }
            } else if let d = defaultValue {
                v[axis] = d
            } else {
                return .success(nil)
            }
            sources[axis] = source
        }
        return .success((v, sources))
    }
}

/// Turns raw IIO gyroscope counts into rad/s in the device frame (docs/TILT.md, "With a
/// gyroscope"):
/// `sensor = (raw + offset) * scale` per axis, then `device = k * M * sensor`, where
/// `k` is `det(M)` when `M` is the accelerometer's matrix borrowed for a gyroscope of
/// the same chip or hub (a rotation rate is an axial vector: a mirroring matrix, which
/// also carries the gravity-direction convention, flips it once more) and 1 when `M` is
/// the gyroscope's own.
package struct RateCalibration: Hashable, Sendable {
    /// rad/s per count.
    package var scale: Vector3
    /// Counts.
    package var offset: Vector3
    package var mountMatrix: MountMatrix
    /// `det(M)` or 1, see above.
    package var sign: Double

    package init(scale: Vector3, offset: Vector3 = .zero, mountMatrix: MountMatrix = .identity, sign: Double = 1) {
        self.scale = scale
        self.offset = offset
        self.mountMatrix = mountMatrix
        self.sign = sign
    }

    /// rad/s in the device frame.
    package func angularVelocity(raw: Vector3) -> Vector3 {
        mountMatrix.apply((raw + offset).scaled(by: scale)) * sign
    }
}
