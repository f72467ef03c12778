/// Moves the drawn focal point toward the mapper's target between sensor samples, so a
/// 10 Hz sensor still gives a fluid picture at the frame rate.
///
/// A critically damped spring per axis: x'' = -w^2 (x - target) - 2 w x', integrated
/// exactly for a constant target over each step (no overshoot, no oscillation, stable
/// for any step). `halfLife` is the time to close half the distance from rest; about
/// 1.68 / w. It is settled when the point is within `epsilon` points of the target and
/// slower than `epsilon` points per second: then the loop renders no more frames.
///
/// The spring lags a steady motion by 2 / w (1.2 half-lives), so its half-life follows
/// the sensor: `halfLife(sampleInterval:)` is short for a fast sensor, whose samples are
/// already dense, and long for a slow one, whose steps it must smooth.
package struct FocalSmoother: Sendable {
    package private(set) var position: FocalPoint
    package private(set) var velocity: (x: Double, y: Double) = (0, 0)
    package var target: FocalPoint
    package private(set) var omega: Double
    package let epsilon: Double

    package init(at start: FocalPoint, halfLife: Double = 0.06, epsilon: Double = 0.01) {
        position = start
        target = start
        omega = Self.omega(halfLife: halfLife)
        self.epsilon = epsilon
    }

    /// w of a critically damped spring whose half-life is `halfLife` seconds.
    static func omega(halfLife: Double) -> Double { 1.6783469900166612 / max(halfLife, 1e-4) }

    /// Seconds: the half-life of a target that moves every `sampleInterval` seconds:
    /// 0.6 intervals, from 5 ms (a 100 Hz or faster sensor: the frame interval decides)
    /// to 60 ms (10 Hz or slower: a fluid picture between samples).
    package static func halfLife(sampleInterval: Double) -> Double {
        min(max(0.6 * sampleInterval, 0.005), 0.06)
    }

    /// Changes the half-life; the position and velocity stay.
    package mutating func setHalfLife(_ seconds: Double) {
        omega = Self.omega(halfLife: seconds)
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
