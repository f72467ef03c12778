/// Why a sample never reaches the attitude (bad input from the device). The adapter logs the
/// cause once per second at most; the core only classifies.
package enum SampleRejection: Hashable, Sendable, CustomStringConvertible {
    /// A component is NaN or infinite after scaling.
    case notFinite
    /// |a| is (practically) zero: no direction.
    case zeroVector

    package var description: String {
        switch self {
        case .notFinite: "non-finite acceleration"
        case .zeroVector: "zero acceleration vector"
        }
    }

    /// Smallest magnitude with a direction worth using, m/s^2 (far below any sensor's
    /// quantum: the finest scale in the fixtures is 9.8e-6 m/s^2 per count).
    package static let zeroThreshold = 1e-9

    /// Nil when `a` is usable.
    package static func check(_ a: Vector3) -> SampleRejection? {
        guard a.isFinite else { return .notFinite }
        guard a.length > zeroThreshold else { return .zeroVector }
        return nil
    }
}
