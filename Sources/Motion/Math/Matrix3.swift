/// A 3 x 3 matrix of Doubles, by rows. Pure.
package struct Matrix3: Hashable, Sendable {
    package var r0: Vector3
    package var r1: Vector3
    package var r2: Vector3

    package init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    package static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    package static let zero = Matrix3(rows: .zero, .zero, .zero)

    package static func diagonal(_ d: Vector3) -> Matrix3 {
        Matrix3(rows: Vector3(d.x, 0, 0), Vector3(0, d.y, 0), Vector3(0, 0, d.z))
    }

    package var transposed: Matrix3 {
        Matrix3(rows: Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y), Vector3(r0.z, r1.z, r2.z))
    }

    package var diagonal: Vector3 { Vector3(r0.x, r1.y, r2.z) }

    package var determinant: Double { r0.dot(r1.cross(r2)) }

    /// The inverse, or nil where the matrix is singular.
    package var inverse: Matrix3? {
        let d = determinant
        guard d != 0, d.isFinite else { return nil }
        // The adjugate's columns are the cross products of the rows.
        let c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1)
        return Matrix3(rows: c0, c1, c2).transposed * (1 / d)
    }

    package static func * (m: Matrix3, v: Vector3) -> Vector3 { Vector3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v)) }

    package static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let t = b.transposed
        return Matrix3(
            rows: Vector3(a.r0.dot(t.r0), a.r0.dot(t.r1), a.r0.dot(t.r2)),
            Vector3(a.r1.dot(t.r0), a.r1.dot(t.r1), a.r1.dot(t.r2)),
            Vector3(a.r2.dot(t.r0), a.r2.dot(t.r1), a.r2.dot(t.r2)))
    }

    package static func * (m: Matrix3, s: Double) -> Matrix3 { Matrix3(rows: m.r0 * s, m.r1 * s, m.r2 * s) }
    package static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    package static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }
}
