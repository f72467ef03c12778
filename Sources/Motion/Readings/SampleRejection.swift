/// Why a sample never reaches the attitude (bad input from the device). The adapter logs the
/// cause once per second at most; the core only classifies.
package enum SampleRejection: Hashable, Sendable, CustomStringConvertible {
    /// A component is NaN or infinite after scaling.
    case notFinite
    /// |a| is (practically) zero: no direction.
    case zeroVector
    /// |a| overflows a Double (components near 1e308): no direction can be computed.
    case overflow
    /// An angular velocity beyond any real gyroscope's range.
    case outOfRange

    package var description: String {
        switch self {
        case .notFinite: "non-finite acceleration"
        case .zeroVector: "zero acceleration vector"
        case .overflow: "acceleration too large to compute (|a| overflows a double)"
        case .outOfRange: "angular velocity beyond \(Int(Self.largestRate)) rad/s"
        }
    }

    /// Smallest magnitude with a direction worth using, m/s^2 (far below any sensor's
    /// quantum: the finest scale in the fixtures is 9.8e-6 m/s^2 per count).
    package static let zeroThreshold = 1e-9

    /// rad/s: no gyroscope in a handheld measures more (the largest IIO full scales
    /// are 2000-4000 deg/s, about 35-70 rad/s); beyond it a reading is garbage.
    package static let largestRate = 100.0

    /// Nil when the angular velocity `w` (rad/s) is usable: finite and within
    /// `largestRate`. A zero rate is a good reading (a device lying still).
    package static func checkRate(_ w: Vector3) -> SampleRejection? {
        guard w.isFinite else { return .notFinite }
        guard w.length <= largestRate else { return .outOfRange }
        return nil
    }

    /// Nil when `a` is usable.
    package static func check(_ a: Vector3) -> SampleRejection? {
        guard a.isFinite else { return .notFinite }
        // Checked before the zero test: components near 1e308 make |a| infinite, and
        // normalising by it gives a zero direction. Any finite |a| is kept: the attitude
        // is scale invariant (docs/TILT.md); the device's 32 g check is in Sensors.
        let length = a.length
        guard length.isFinite else { return .overflow }
        guard length > zeroThreshold else { return .zeroVector }
        return nil
    }
}
