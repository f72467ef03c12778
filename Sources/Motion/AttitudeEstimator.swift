/// How `AttitudeEstimator` smooths the up direction (attitude.md section 8).
package enum AttitudeFilter: Hashable, Sendable {
    /// `Attitude.filter = none`: samples pass through (what the test vectors use).
    case none
    case oneEuro(OneEuroParameters)
}

package struct AttitudeConfiguration: Hashable, Sendable {
    /// `Attitude.baseline_samples`.
    package var baselineSamples: Int
    package var filter: AttitudeFilter

    /// Standard gravity, m/s^2; the baseline accepts [0.5 g, 1.5 g] (section 4).
    package static let standardGravity = 9.80665

    package static let defaults = AttitudeConfiguration(baselineSamples: 10, filter: .oneEuro(.defaults))

    package init(baselineSamples: Int, filter: AttitudeFilter) {
        self.baselineSamples = max(1, baselineSamples)
        self.filter = filter
    }
}

/// The result of one sample.
package enum AttitudeStep: Hashable, Sendable {
    /// Not usable at all (see `SampleRejection`); nothing changed.
    case rejected(SampleRejection)
    /// Still collecting the baseline: `have` of `need` samples. `usedForBaseline` is
    /// false for a sample outside [0.5 g, 1.5 g].
    case collectingBaseline(have: Int, need: Int, usedForBaseline: Bool)
    /// A tilt against the baseline; `newBaseline` is set on the sample that completed it.
    case tilt(Tilt, newBaseline: TiltFrame?)
}

/// What became of a gyroscope reading.
package enum GyroStep: Hashable, Sendable {
    /// Used for the fused attitude.
    case used
    /// Not usable (see `SampleRejection`); nothing changed.
    case rejected(SampleRejection)
    /// The self-check gave the gyroscope up on this reading: why. Reported once; the
    /// attitude goes on with the accelerometer alone.
    case disagreed(String)
    /// Given up earlier: ignored.
    case ignored
}

/// Baseline capture, filtering and tilt (attitude.md sections 4 to 9). Pure: feed it
/// accelerations in m/s^2 and, where there is a gyroscope, angular velocities in rad/s
/// (both in the device frame) and the time in seconds.
///
/// The up direction `u` comes from the accelerometer alone, smoothed by the One Euro
/// filter, or, while gyroscope readings arrive, from `GyroFusion`. Unless the filter is
/// `none`, a `RestGate` then holds it still while the device lies still: its band is
/// `restBandNoiseMultiple` times the noise `u` still has (the sensor's noise, estimated
/// from its readings by `NoiseEstimator`, times what the filter or the fusion lets
/// through), and at least `restBandFloor`.
package struct AttitudeEstimator: Sendable {
    package let configuration: AttitudeConfiguration
    package private(set) var frame: TiltFrame?
    private var baselineSum = Vector3.zero
    private var baselineCount = 0
    private var filters: [OneEuroFilter]
    private var previousT: Double?
    package private(set) var noise = NoiseEstimator()
    package private(set) var gate = RestGate()
    package private(set) var fusion: GyroFusion?
    /// Set once the self-check has given the gyroscope up: it stays given up until a
    /// new sensor (`forgetGyroscope`).
    package private(set) var gyroFailure: String?
    private var pendingGyro: (w: Vector3, t: Double)?
    private var restartFusion = false
    private var gyroFailureReported = false

    /// Noise multiples in the rest band: noise alone leaves it with a probability of
    /// exp(-k^2) per independent look (k = 4.5: 2e-9; the noise estimate itself is
    /// off by some 10 %, and the held mean by a little).
    package static let restBandNoiseMultiple = 4.5
    /// Radians (0.06 degrees, 1 point of pitch): the least rest band, for a sensor too
    /// quiet to estimate and for the fusion, whose offset estimate still wanders a little.
    package static let restBandFloor = 1e-3
    /// Seconds without a gyroscope reading after which the accelerometer is used alone.
    package static let gyroStale = 0.25

    package init(_ configuration: AttitudeConfiguration) {
        self.configuration = configuration
        self.filters = Self.makeFilters(configuration.filter)
    }

    /// True while gyroscope readings are being fused.
    package var isFusing: Bool { fusion != nil }

    private static func makeFilters(_ f: AttitudeFilter) -> [OneEuroFilter] {
        switch f {
        case .none: []
        case .oneEuro(let p): [OneEuroFilter(p), OneEuroFilter(p), OneEuroFilter(p)]
        }
    }

    /// Starts a new baseline: after start, after the sensor reappears, on SIGUSR1.
    package mutating func recapture() {
        frame = nil
        baselineSum = .zero
        baselineCount = 0
        filters = Self.makeFilters(configuration.filter)
        gate.reset()
        noise.restart()
        previousT = nil
        // The fusion keeps its offset; its direction restarts from the next reading.
        restartFusion = true
    }

    /// A new sensor: the self-check's verdict and the fusion's offset start over.
    package mutating func forgetGyroscope() {
        fusion = nil
        gyroFailure = nil
        gyroFailureReported = false
        pendingGyro = nil
    }

    /// The gyroscope went away (its device was removed): the accelerometer alone from
    /// the next reading, at once rather than `gyroStale` later (a device turning
    /// meanwhile would be followed only by the correction's slow pull). A gyroscope
    /// that comes back starts the fusion again with its first reading.
    package mutating func gyroscopeGone() {
        pendingGyro = nil
        guard fusion != nil else { return }
        fusion = nil
        resetFilters()
    }

    /// A gyroscope reading: rad/s, device frame (attitude.md section 9).
    package mutating func update(angularVelocity w: Vector3, at t: Double) -> GyroStep {
        if let why = gyroFailure {
            guard gyroFailureReported else {
                gyroFailureReported = true
                return .disagreed(why)
            }
            return .ignored
        }
        if let r = SampleRejection.checkRate(w) { return .rejected(r) }
        guard var f = fusion else {
            pendingGyro = (w, t)   // the fusion starts at the next accelerometer reading
            return .used
        }
        f.gyroscope(w, at: t)
        fusion = f
        return .used
    }

    package var isCapturingBaseline: Bool { frame == nil }

    package mutating func update(acceleration a: Vector3, at t: Double) -> AttitudeStep {
        if let r = SampleRejection.check(a) { return .rejected(r) }
        guard let rawUp = TiltFrame.upDirection(of: a) else { return .rejected(.zeroVector) }
        let up = attitude(rawUp, acceleration: a, at: t)

        guard let frame else {
            let g = AttitudeConfiguration.standardGravity
            let m = a.length
            let usable = m >= 0.5 * g && m <= 1.5 * g
            if usable {
                baselineSum = baselineSum + rawUp
                baselineCount += 1
            }
            guard baselineCount >= configuration.baselineSamples,
                  let newFrame = TiltFrame(baselineUp: baselineSum) else {
                return .collectingBaseline(have: baselineCount, need: configuration.baselineSamples,
                                           usedForBaseline: usable)
            }
            self.frame = newFrame
            return .tilt(newFrame.tilt(up: up), newBaseline: newFrame)
        }
        return .tilt(frame.tilt(up: up), newBaseline: nil)
    }

    /// `u` from one accelerometer reading: fused or filtered, then gated.
    private mutating func attitude(_ rawUp: Vector3, acceleration a: Vector3, at t: Double) -> Vector3 {
        let dt = previousT.map { t - $0 } ?? 0
        previousT = t
        noise.add(rawUp)
        if let p = pendingGyro {
            // The first gyroscope reading since the fusion stopped: start it here.
            var f = GyroFusion(up: fusion?.up ?? rawUp, at: p.t)
            f.gyroscope(p.w, at: p.t)
            fusion = f
            pendingGyro = nil
        }
        if restartFusion, var f = fusion {
            f.restart(up: rawUp, at: t)
            fusion = f
        }
        restartFusion = false
        if var f = fusion, let last = f.lastGyro, t - last > Self.gyroStale {
            // The gyroscope went quiet (gone, or its readings rejected): accelerometer alone.
            f.restart(up: rawUp, at: t)
            fusion = nil
            resetFilters()
        }
        var u: Vector3
        var passes: Double   // the fraction of the sensor's noise left in u
        if var f = fusion {
            u = f.accelerometer(a, at: t)
            if let why = f.failure {
                gyroFailure = why
                fusion = nil
                resetFilters()
                u = smooth(rawUp, at: t)
                passes = oneEuroPasses(dt)
            } else {
                fusion = f
                // The offset integral lets slow wander through besides the one-pole part.
                passes = 2 * Self.onePolePasses(f.lastPull)
            }
        } else {
            u = smooth(rawUp, at: t)
            passes = oneEuroPasses(dt)
        }
        guard case .oneEuro = configuration.filter else { return u }
        let band = max(Self.restBandFloor, Self.restBandNoiseMultiple * noise.angle * passes)
        return gate.update(u, reading: rawUp, band: band, at: t)
    }

    /// The part of white noise's amplitude a one-pole low-pass with gain `alpha` per
    /// sample lets through: sqrt(alpha / (2 - alpha)).
    static func onePolePasses(_ alpha: Double) -> Double {
        let a = min(max(alpha, 0), 1)
        return (a / (2 - a)).squareRoot()
    }

    /// The One Euro filter at rest is a one-pole low-pass at `minCutoff`.
    private func oneEuroPasses(_ dt: Double) -> Double {
        guard case .oneEuro(let p) = configuration.filter, dt > 0 else { return 1 }
        let tau = 1 / (2 * Double.pi * p.minCutoff)
        return Self.onePolePasses(1 / (1 + tau / dt))
    }

    private mutating func resetFilters() {
        for i in filters.indices { filters[i].reset() }
    }

    private mutating func smooth(_ u: Vector3, at t: Double) -> Vector3 {
        guard filters.count == 3 else { return u }
        let f = Vector3(filters[0].filter(u.x, at: t), filters[1].filter(u.y, at: t), filters[2].filter(u.z, at: t))
        return f.normalized ?? u
    }
}
