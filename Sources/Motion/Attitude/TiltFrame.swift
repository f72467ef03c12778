/// Tilt against a baseline, in radians (docs/TILT.md, "The two angles"): `dPitch > 0` when the
/// top edge comes toward the viewer, `dRoll > 0` when the right edge goes down.
package struct Tilt: Hashable, Sendable {
    package var dPitchRadians: Double
    package var dRollRadians: Double

    package static let zero = Tilt(dPitchRadians: 0, dRollRadians: 0)
}

/// The baseline up direction and the two tilt axes of docs/TILT.md, "The two angles".
package struct TiltFrame: Hashable, Sendable {
    /// `u0`, unit.
    package let up: Vector3
    /// `e1`, the pitch axis (unit, horizontal).
    package let pitchAxis: Vector3
    /// `e2 = u0 x e1`, the roll axis.
    package let rollAxis: Vector3
    /// True when the portrait fallback chose a Y-based pitch axis.
    package let portrait: Bool

    /// cos 45 degrees: beyond it the device x axis is closer to vertical than horizontal.
    package static let portraitThreshold = 0.5.squareRoot()

    /// - Parameter up: the baseline up direction (need not be unit; nil if zero).
    package init?(baselineUp up: Vector3) {
        guard let u0 = up.normalized else { return nil }
        let xDotU = u0.x
        let reference: Vector3
        if abs(xDotU) > Self.portraitThreshold {
            // Portrait: x is nearly vertical. -Y when x points up, +Y when it points down
            // (docs/TILT.md, "The two angles"), so e1 keeps pointing to the viewer's right.
            reference = xDotU > 0 ? Vector3(0, -1, 0) : Vector3(0, 1, 0)
            portrait = true
        } else {
            reference = Vector3(1, 0, 0)
            portrait = false
        }
        // |reference . u0| <= cos 45 in both branches, so the horizontal part is non-zero.
        guard let e1 = (reference - reference.dot(u0) * u0).normalized else { return nil }
        self.up = u0
        self.pitchAxis = e1
        self.rollAxis = u0.cross(e1)
    }

    /// Section 6: `v = u x u0`, `angle = atan2(|v|, u . u0)`, `w = angle * v / |v|`.
    /// - Parameter up: the current up direction; any positive length.
    package func tilt(up u: Vector3) -> Tilt {
        guard let un = u.normalized else { return .zero }
        let v = un.cross(up)
        let s = v.length
        guard s > 0 else { return .zero }
        let angle = atan2(s, un.dot(up))
        let w = v * (angle / s)
        return Tilt(dPitchRadians: w.dot(pitchAxis), dRollRadians: w.dot(rollAxis))
    }

    /// The up direction of a reading: `u = -a / |a|` (docs/TILT.md, "Axes and signs").
    package static func upDirection(of acceleration: Vector3) -> Vector3? {
        (-acceleration).normalized
    }
}
