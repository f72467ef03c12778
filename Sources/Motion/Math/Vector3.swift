/// A 3-vector of Doubles. Units are the caller's: m/s^2 for accelerations in the device
/// frame (docs/TILT.md, "Axes and signs"), unitless for directions.
package struct Vector3: Hashable, Sendable, CustomStringConvertible {
    package var x: Double
    package var y: Double
    package var z: Double

    package init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    package static let zero = Vector3(0, 0, 0)

    package var components: [Double] { [x, y, z] }

    package subscript(axis: Axis) -> Double {
        get {
            switch axis {
            case .x: x
            case .y: y
            case .z: z
            }
        }
        set {
            switch axis {
            case .x: x = newValue
            case .y: y = newValue
            case .z: z = newValue
            }
        }
    }

    package func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }

    package func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    package var length: Double { dot(self).squareRoot() }

    /// The unit vector in this direction, or nil for a zero or non-finite vector.
    package var normalized: Vector3? {
        let l = length
        guard l.isFinite, l > 0 else { return nil }
        return self / l
    }

    package var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    package static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    package static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    package static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    package static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    package static func * (s: Double, a: Vector3) -> Vector3 { a * s }
    package static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    /// Component-wise product (per-axis scale).
    package func scaled(by s: Vector3) -> Vector3 { Vector3(x * s.x, y * s.y, z * s.z) }

    package var description: String { "(\(x), \(y), \(z))" }
}

/// The three accelerometer axes, in the order of the IIO channels `accel_x/y/z`.
package enum Axis: String, CaseIterable, Sendable {
    case x, y, z
}
