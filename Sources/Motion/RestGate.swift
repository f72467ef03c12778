/// Holds the up direction still while the device lies still (attitude.md section 8: a
/// device lying still publishes no frames once settled, yet a half-degree tilt shows
/// within 150 ms).
///
/// Two states:
/// - moving: the input passes through unchanged (no lag is added). A quiet stretch
///   starts at each input; when every input for `settleTime` seconds stays within `band`
///   of the stretch's first one, the gate holds the mean of the stretch's readings and
///   is at rest. The mean is taken of the readings before smoothing: smoothed values are
///   correlated over the filter's time constant, so their mean over a short stretch is
///   off by nearly their whole noise, the readings' by a fraction of it.
/// - at rest: the held direction is output, exactly the same each time, so the focal
///   point does not move and no frame is drawn; the first input farther than `band` from
///   it ends the rest and passes through.
///
/// `band` (radians, a chord of the unit sphere, which is the angle for small angles) is
/// the caller's: a multiple of the noise it has estimated, so that noise alone almost never
/// leaves it. Pure; time is a parameter.
package struct RestGate: Sendable {
    /// Seconds of quiet before the gate holds.
    package let settleTime: Double
    package private(set) var held: Vector3?
    private var stretchStart = 0.0
    private var stretchReference: Vector3?
    private var stretchSum = Vector3.zero

    package init(settleTime: Double = 0.3) {
        self.settleTime = settleTime
    }

    package var isAtRest: Bool { held != nil }

    /// The direction to use for `u` (unit, smoothed or fused) observed at `t`; `reading`
    /// is the unsmoothed direction of the same instant.
    package mutating func update(_ u: Vector3, reading: Vector3, band: Double, at t: Double) -> Vector3 {
        if let h = held {
            if (u - h).length <= band { return h }
            held = nil
            startStretch(u, reading, at: t)
            return u
        }
        guard let r = stretchReference, (u - r).length <= band else {
            startStretch(u, reading, at: t)
            return u
        }
        stretchSum = stretchSum + reading
        if t - stretchStart >= settleTime, let mean = stretchSum.normalized {
            held = mean
            stretchReference = nil
            return mean
        }
        return u
    }

    /// Forgets everything (a new baseline).
    package mutating func reset() {
        held = nil
        stretchReference = nil
    }

    private mutating func startStretch(_ u: Vector3, _ reading: Vector3, at t: Double) {
        stretchReference = u
        stretchStart = t
        stretchSum = reading
    }
}
