/// Parameters of the One Euro filter (Casiez, Roussel, Vogel, CHI 2012).
///
/// Defaults, chosen for the unit "up" vector (components in [-1, 1], so a derivative of
/// 1 per second is about 1 rad/s of tilt) at 10 to 100 Hz:
/// - `minCutoff` 4 Hz: a lag of 40 ms on slow motion, and a third of a 100 Hz sensor's
///   noise left. The filter need not make a resting device steady: the
///   estimator's rest gate holds the attitude still once the device lies still, with a
///   band derived from the noise it measures (`AttitudeEstimator`), so the filter is
///   tuned for motion.
/// - `beta` 5: each rad/s of tilt speed raises the cutoff by 5 Hz (a slow sweep of
///   0.2 rad/s: 5 Hz, 32 ms; a quick turn of 2 rad/s: 14 Hz).
/// - `dCutoff` 1.0 Hz: the paper's value for the derivative's low-pass.
package struct OneEuroParameters: Hashable, Sendable {
    package var minCutoff: Double
    package var beta: Double
    package var dCutoff: Double

    package static let defaults = OneEuroParameters(minCutoff: 4.0, beta: 5.0, dCutoff: 1.0)

    package init(minCutoff: Double, beta: Double, dCutoff: Double) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.dCutoff = dCutoff
    }
}

/// A scalar One Euro filter. Time is a parameter (seconds, any origin, increasing).
package struct OneEuroFilter: Sendable {
    package let parameters: OneEuroParameters
    private var previous: (t: Double, x: Double, dx: Double)?

    package init(_ parameters: OneEuroParameters) { self.parameters = parameters }

    private static func alpha(cutoff: Double, dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }

    /// The filtered value of `x` observed at `t`. The first value passes through; a time
    /// that does not advance returns the previous output unchanged.
    package mutating func filter(_ x: Double, at t: Double) -> Double {
        guard let p = previous else {
            previous = (t, x, 0)
            return x
        }
        let dt = t - p.t
        guard dt > 0 else { return p.x }
        let rawDx = (x - p.x) / dt
        let aD = Self.alpha(cutoff: parameters.dCutoff, dt: dt)
        let dx = p.dx + aD * (rawDx - p.dx)
        let cutoff = parameters.minCutoff + parameters.beta * abs(dx)
        let a = Self.alpha(cutoff: cutoff, dt: dt)
        let y = p.x + a * (x - p.x)
        previous = (t, y, dx)
        return y
    }

    package mutating func reset() { previous = nil }
}
