/// Moves the drawn focal point toward the mapper's target between sensor samples, so a
/// 10 Hz sensor still gives a fluid picture at the frame rate.
///
/// A critically damped spring per axis: x'' = -w^2 (x - target) - 2 w x', integrated
/// exactly for a constant target over each step (no overshoot, no oscillation, stable
/// for any step). `halfLife` is the time to close half the distance from rest; about
/// 1.68 / w. It is settled when the point is within `epsilon` points of the target and
/// slower than `epsilon` points per second: then the loop renders no more frames.
package struct FocalSmoother: Sendable {
    package private(set) var position: FocalPoint
    package private(set) var velocity: (x: Double, y: Double) = (0, 0)
    package var target: FocalPoint
    package let omega: Double
    package let epsilon: Double

    package init(at start: FocalPoint, halfLife: Double = 0.06, epsilon: Double = 0.01) {
        position = start
        target = start
        omega = 1.6783469900166612 / max(halfLife, 1e-4)   // half-life of a critically damped spring
        self.epsilon = epsilon
    }

    package var isSettled: Bool {
        abs(position.x - target.x) < epsilon && abs(position.y - target.y) < epsilon
            && abs(velocity.x) < epsilon && abs(velocity.y) < epsilon
    }

    /// Jumps to `point` (a new baseline, a reload).
    package mutating func reset(to point: FocalPoint) {
        position = point
        target = point
        velocity = (0, 0)
    }

    /// Advances by `dt` seconds toward `target`.
    package mutating func step(_ dt: Double) {
        guard dt > 0 else { return }
        let (x, vx) = Self.axis(position.x - target.x, velocity.x, omega, dt)
        let (y, vy) = Self.axis(position.y - target.y, velocity.y, omega, dt)
        position = FocalPoint(x: target.x + x, y: target.y + y)
        velocity = (vx, vy)
        if isSettled {
            position = target
            velocity = (0, 0)
        }
    }

    /// Exact solution of the critically damped oscillator from offset `x0`, speed `v0`.
    static func axis(_ x0: Double, _ v0: Double, _ w: Double, _ t: Double) -> (Double, Double) {
        let e = exp(-w * t)
        let c = v0 + w * x0
        return ((x0 + c * t) * e, (v0 - w * c * t) * e)
    }
}
