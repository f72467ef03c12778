/// A second-order Butterworth low-pass of a vector, per component (the filter VQF low-passes
/// the accelerometer with, Laidig and Seel 2023): the time constant `tau` is that of the
/// step response's non-oscillating part, the cutoff `sqrt(2) / (2 pi tau)`. Until
/// `startTime` seconds of input have come (`tau` unless said), the output is their mean,
/// and the filter then starts from that mean as its steady state, so that one early
/// reading does not set it.
///
/// The coefficients follow the input's interval: `interval` is smoothed from the times
/// given, and the coefficients are computed again when it has moved by a tenth (the state,
/// the filter's last output held steady, is carried over). Pure.
package struct GravityLowPass: Sendable {
    package let tau: Double
    package let startTime: Double
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var coefficientsInterval = 0.0
    private var s0 = Vector3.zero, s1 = Vector3.zero
    private var sum = Vector3.zero
    private var elapsed = 0.0
    private var started = false
    package private(set) var output = Vector3.zero
    package private(set) var hasOutput = false

    package init(tau: Double, startTime: Double? = nil) {
        self.tau = tau
        self.startTime = startTime ?? tau
    }

    /// Filters `x`, which came `dt` seconds after the previous input (0 for the first).
    package mutating func update(_ x: Vector3, dt: Double) -> Vector3 {
        hasOutput = true
        guard started else {
            sum = sum + x
            count += 1
            elapsed += max(0, dt)
            output = sum / Double(count)
            if elapsed >= startTime, count > 1 {
                interval = elapsed / Double(count - 1)
                setCoefficients(interval: interval)
                steady(output)
                started = true
            }
            return output
        }
        if dt > 0 {
            interval += (min(dt, 10 * interval) - interval) * 0.02
            if abs(interval - coefficientsInterval) > 0.1 * coefficientsInterval {
                setCoefficients(interval: interval)
                steady(output)
            }
        }
        let y = x * b0 + s0
        s0 = x * b1 - y * a1 + s1
        s1 = x * b2 - y * a2
        output = y
        return y
    }

    private var count = 0
    /// Seconds: the input's interval, smoothed.
    package private(set) var interval = 0.0

    /// Rotates the state and output (a change of the frame the vectors are in).
    package mutating func rotate(by m: Matrix3) {
        s0 = m * s0
        s1 = m * s1
        sum = m * sum
        output = m * output
    }

    private mutating func setCoefficients(interval ts: Double) {
        coefficientsInterval = ts
        let fc = 2.0.squareRoot() / (2 * Double.pi * tau)
        let c = tan(Double.pi * fc * ts)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
    }

    /// The state of a filter whose input and output have both been `y` for ever.
    private mutating func steady(_ y: Vector3) {
        s0 = y * (1 - b0)
        s1 = y * (b2 - a2)
    }
}
