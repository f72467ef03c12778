/// Why a sample never reaches the attitude (issue 3, "bad input"). The adapter logs the
/// cause once per second at most; the core only classifies.
package enum SampleRejection: Hashable, Sendable, CustomStringConvertible {
    /// A component is NaN or infinite after scaling.
    case notFinite
    /// |a| is (practically) zero: no direction.
    case zeroVector
    /// |a| beyond any range a device's accelerometer is set to: a corrupt value that
    /// still parsed (a raw attribute of 2147483647 on a 12-bit sensor), not a reading.
    case implausible

    package var description: String {
        switch self {
        case .notFinite: "non-finite acceleration"
        case .zeroVector: "zero acceleration vector"
        case .implausible: "implausible acceleration (over 32 g)"
        }
    }

    /// Smallest magnitude with a direction worth using, m/s^2 (far below any sensor's
    /// quantum: the finest scale in the fixtures is 9.8e-6 m/s^2 per count).
    package static let zeroThreshold = 1e-9

    /// Largest magnitude taken as a reading, m/s^2: 32 g. Accelerometers in laptops and
    /// tablets are set to at most +-16 g per axis (27.7 g as a vector), so anything
    /// larger did not come from the sensor's range.
    package static let implausibleThreshold = 32 * 9.80665

    /// Nil when `a` is usable.
    package static func check(_ a: Vector3) -> SampleRejection? {
        guard a.isFinite else { return .notFinite }
        guard a.length > zeroThreshold else { return .zeroVector }
        guard a.length <= implausibleThreshold else { return .implausible }
        return nil
    }
}
