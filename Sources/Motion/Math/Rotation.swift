/// A rotation as a unit quaternion (w, x, y, z): `apply(v)` is `q v q*`. Pure.
package struct Rotation: Hashable, Sendable {
    package var w: Double
    package var x: Double
    package var y: Double
    package var z: Double

    package static let identity = Rotation(w: 1, x: 0, y: 0, z: 0)
}

extension Rotation {
    /// The rotation by `angle * axis` (a rotation vector, radians), exactly.
    package init(rotationVector r: Vector3) {
        let angle = r.length
        guard angle > 0 else {
            self = .identity
            return
        }
        let s = sin(angle / 2) / angle
        self.init(w: cos(angle / 2), x: r.x * s, y: r.y * s, z: r.z * s)
    }

    /// The shortest rotation that turns the unit vector `a` onto the unit vector `b`
    /// (half-angle form; a half turn about x where they are opposite).
    package init(from a: Vector3, to b: Vector3) {
        let c = a.cross(b)
        let d = a.dot(b)
        let w = 1 + d
        guard w > 1e-12 else {
            self.init(w: 0, x: 1, y: 0, z: 0)
            return
        }
        self.init(w: w, x: c.x, y: c.y, z: c.z)
        normalize()
    }

    /// The composition: `(a * b).apply(v) == a.apply(b.apply(v))`.
    package static func * (a: Rotation, b: Rotation) -> Rotation {
        Rotation(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    package var inverse: Rotation { Rotation(w: w, x: -x, y: -y, z: -z) }

    package mutating func normalize() {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        guard n > 0, n.isFinite else {
            self = .identity
            return
        }
        w /= n
        x /= n
        y /= n
        z /= n
    }

    /// The rotation matrix: `matrix * v == apply(v)`.
    package var matrix: Matrix3 {
        Matrix3(
            rows: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    package func apply(_ v: Vector3) -> Vector3 { matrix * v }

    package func applyInverse(_ v: Vector3) -> Vector3 { matrix.transposed * v }
}
