/// How `AttitudeEstimator` smooths the up direction (docs/TILT.md, "Smoothing and rest").
package enum AttitudeFilter: Hashable, Sendable {
    /// `Attitude.filter = none`: samples pass through (what the test vectors use).
    case none
    case oneEuro(OneEuroParameters)
}

package struct AttitudeConfiguration: Hashable, Sendable {
    /// `Attitude.baseline_samples`.
    package var baselineSamples: Int
    package var filter: AttitudeFilter

    /// Standard gravity, m/s^2; the baseline accepts [0.5 g, 1.5 g] (docs/TILT.md, "Baseline").
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
    /// Used at this weight, below one: the frame check doubts or contests its frame
    /// (`GyroFrameCheck`), and the attitude leans on the accelerometer as far as the two
    /// estimates' errors say (`AttitudeEstimator.gyroscopeWeight`).
    case weighed(Double)
    /// Not usable (see `SampleRejection`); nothing changed.
    case rejected(SampleRejection)
    /// The self-check's evidence says another frame fits the motion better: why. Reported
    /// once per change; the gyroscope goes on at its weight and the evidence is still
    /// weighed.
    case doubted(String)
    /// The evidence turned: the gyroscope's frame fits again.
    case trustedAgain(String)
}

/// Baseline capture, filtering and tilt (docs/TILT.md, "Baseline" on). Pure: feed it
/// accelerations in m/s^2 and, where there is a gyroscope, angular velocities in rad/s
/// (both in the device frame) and the time in seconds.
///
/// The up direction `u` comes from the accelerometer alone, smoothed by the One Euro
/// filter, or, while gyroscope readings arrive, from `GyroFusion`. Unless the filter is
/// `none`, a `RestGate` then holds it still while the device lies still. It watches the
/// smoothed direction (computed with or without a gyroscope), in a band of
/// `restBandNoiseMultiple` times the noise it still has (the sensor's noise, estimated
/// from its readings by `NoiseEstimator`, times what the filter lets through), at least
/// `restBandFloor`; and the fused direction against its own recent mean, in the band of
/// the noise the fusion lets through, at least `restBandFloorFused`: still means no
/// frames, gyroscope or not.
package struct AttitudeEstimator: Sendable {
    package let configuration: AttitudeConfiguration
    package private(set) var frame: TiltFrame?
    private var capture: BaselineCapture
    /// False when the last baseline was taken from a device that did not come to rest
    /// within `BaselineCapture.restLimit`.
    package private(set) var baselineRested = true
    private var filters: [OneEuroFilter]
    /// How much of one conversion's noise is left in the smoothed direction, followed reading
    /// by reading (`SmoothedNoise`): readings far apart (a still device read once a second)
    /// are smoothed by little, a sensor read faster than it converts repeats its readings,
    /// and the rest band is as wide as what is left.
    private var smoothedNoise = SmoothedNoise()
    private var lastUp: Vector3?
    private var previousT: Double?
    package private(set) var noise = NoiseEstimator()
    /// The gyroscope's rate noise (rad/s, summed over the three axes), from its readings.
    package private(set) var rateNoise = NoiseEstimator()
    package private(set) var gate = RestGate()
    package private(set) var fusion: GyroFusion?
    /// Whether the gyroscope's frame fits the motion, weighed on every reading.
    package private(set) var frameCheck = GyroFrameCheck.verdict
    /// rad^2: the mean square angle between the fused direction and the accelerometer's
    /// own smoothed one, over `divergenceTime`.
    private var divergence = 0.0
    /// rad/s: the fusion's newest offset estimate, kept for the self-check while the
    /// fusion is stopped (the gyroscope went quiet).
    private var offset = Vector3.zero
    private var pendingGyro: (w: Vector3, t: Double)?
    private var restartFusion = false
    /// A change of the self-check's verdict not reported yet.
    private var verdictToReport: GyroFrameCheck.Verdict?

    /// Noise multiples in the rest band: noise alone leaves it with a probability of
    /// exp(-k^2) per independent look (k = 4.5: 2e-9; the noise estimate itself is
    /// off by some 10 %, and the held mean by a little).
    package static let restBandNoiseMultiple = 4.5
    /// Radians (0.06 degrees, 1 point of pitch): the least rest band, for a sensor too
    /// quiet to estimate and for the fusion, whose offset estimate still wanders a little.
    package static let restBandFloor = 1e-3
    /// Radians (0.11 degrees): the least rest band while fused. The gyroscope's rate noise
    /// walks the fused direction between the accelerometer's slow corrections (0.1 deg/s
    /// of noise at 100 Hz: some 0.03 degrees over the low-pass's seconds); a half-degree
    /// tilt is still four times beyond it.
    package static let restBandFloorFused = 2e-3
    /// Seconds without a gyroscope reading after which the accelerometer is used alone.
    package static let gyroStale = 0.25

    package init(_ configuration: AttitudeConfiguration) {
        self.configuration = configuration
        self.filters = Self.makeFilters(configuration.filter)
        capture = BaselineCapture(samples: configuration.baselineSamples)
    }

    /// True while gyroscope readings are being fused.
    package var isFusing: Bool { fusion != nil }

    private static func makeFilters(_ f: AttitudeFilter) -> [OneEuroFilter] {
        switch f {
        case .none: []
        case .oneEuro(let p): [OneEuroFilter(p), OneEuroFilter(p), OneEuroFilter(p)]
        }
    }

    /// Starts a new baseline: after the sensor reappears, on SIGUSR1 or Recalibrate(), at
    /// once; on the tablet-mode switch (`untilRest`), once the device rests
    /// (`BaselineCapture`); from readings at `t` or later (a batch read late may still
    /// hold readings from before the request). With the filter off (the spec's
    /// pass-through, its test vectors) the first samples are always the baseline.
    package mutating func recapture(at t: Double = -.infinity, untilRest: Bool = false) {
        frame = nil
        let filtered = if case .oneEuro = configuration.filter { true } else { false }
        capture.restart(notBefore: t, untilRest: untilRest && filtered)
        filters = Self.makeFilters(configuration.filter)
        smoothedNoise = SmoothedNoise()
        lastUp = nil
        gate.reset()
        noise.restart()
        previousT = nil
        // The fusion keeps its offset; its direction restarts from the next reading.
        restartFusion = true
    }

    /// A new sensor: the self-check's evidence and the fusion's offset start over.
    package mutating func forgetGyroscope() {
        fusion = nil
        frameCheck.reset()
        rateNoise = NoiseEstimator()
        divergence = 0
        offset = .zero
        verdictToReport = nil
        pendingGyro = nil
    }

    /// True while the self-check's evidence says the gyroscope's frame is wrong.
    package var gyroscopeDoubted: Bool {
        if case .doubted = frameCheck.verdict { return true }
        return false
    }

    /// The gyroscope went away (its device was removed): the accelerometer alone from
    /// the next reading, at once rather than `gyroStale` later (a device turning
    /// meanwhile would be followed only by the correction's slow pull). A gyroscope
    /// that comes back starts the fusion again with its first reading.
    package mutating func gyroscopeGone() {
        pendingGyro = nil
        fusion = nil
    }

    /// A gyroscope reading: rad/s, device frame (docs/TILT.md, "With a gyroscope").
    package mutating func update(angularVelocity w: Vector3, at t: Double) -> GyroStep {
        if let r = SampleRejection.checkRate(w) { return .rejected(r) }
        frameCheck.gyroscope(w - offset, at: t)
        rateNoise.add(w, at: t)
        if fusion != nil {
            fusion!.gyroscope(w, at: t)
        } else {
            pendingGyro = (w, t)  // the fusion starts at the next accelerometer reading
        }
        guard let v = verdictToReport else {
            let weight = gyroscopeWeight
            return weight < 1 ? .weighed(weight) : .used
        }
        verdictToReport = nil
        switch v {
        case .doubted(let better, let own, let best, let seconds):
            return .doubted(Self.describe(better: better, own: own, best: best, seconds: seconds))
        case .trusted:
            return .trustedAgain(
                "over the last \(Int(frameCheck.secondsWeighed)) s of motion its own frame fits "
                    + "as well as any other")
        }
    }

    private static func describe(better p: Matrix3, own: Double, best: Double, seconds: Double) -> String {
        func row(_ v: Vector3) -> String { "\(Int(v.x)), \(Int(v.y)), \(Int(v.z))" }
        func degrees(_ r: Double) -> String {
            let d = (r * 180 / Double.pi * 10).rounded() / 10
            return "\(d)"
        }
        return "over \(Int(seconds)) s of motion its rates fit the device's turns better in another frame: "
            + "turned by the matrix \"\(row(p.r0)); \(row(p.r1)); \(row(p.r2))\" they keep gravity still "
            + "within \(degrees(best)) degrees RMS over each 3 s, as given within \(degrees(own))"
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
            switch capture.add(rawUp, usable: usable, at: t, noise: noise.angle) {
            case .collecting(let have, let need, let used):
                return .collectingBaseline(have: have, need: need, usedForBaseline: used)
            case .done(let sum, let rested, _):
                guard let newFrame = TiltFrame(baselineUp: sum) else {
                    return .collectingBaseline(have: 0, need: configuration.baselineSamples, usedForBaseline: false)
                }
                self.frame = newFrame
                baselineRested = rested
                return .tilt(newFrame.tilt(up: up), newBaseline: newFrame)
            }
        }
        return .tilt(frame.tilt(up: up), newBaseline: nil)
    }

    /// `u` from one accelerometer reading: fused or filtered, then gated.
    private mutating func attitude(_ rawUp: Vector3, acceleration a: Vector3, at t: Double) -> Vector3 {
        let first = previousT == nil
        let dt = previousT.map { t - $0 } ?? 0
        previousT = t
        noise.add(rawUp, at: t)
        if frameCheck.accelerometer(a, at: t) { verdictToReport = frameCheck.verdict }
        if let p = pendingGyro {
            // The first gyroscope reading since the fusion stopped: start it here.
            var f = GyroFusion(up: rawUp, at: p.t)
            f.gyroscope(p.w, at: p.t)
            fusion = f
            pendingGyro = nil
        }
        if restartFusion, fusion != nil { fusion!.restart(up: rawUp, at: t) }
        restartFusion = false
        if let last = fusion?.lastGyro, t - last > Self.gyroStale {
            // The gyroscope went quiet (gone, or its readings rejected): accelerometer alone.
            fusion = nil
        }
        // The accelerometer's own smoothed direction, fused or not: the rest gate watches it.
        let smoothed = smooth(rawUp, at: t)
        if first {
            smoothedNoise = SmoothedNoise()  // the filter's first output is the reading itself
        } else if dt > 0 {
            smoothedNoise.add(alpha: oneEuroAlpha(dt), repeated: rawUp == lastUp)
        }
        lastUp = rawUp
        var fused: Vector3?
        var fusedBand = 0.0, fusedWalk = 0.0
        if fusion != nil {
            let f = fusion!.accelerometer(a, at: t)
            divergence += ((f - smoothed).dot(f - smoothed) - divergence) * min(1, max(0, dt) / Self.divergenceTime)
            fused = blend(f, smoothed)
            offset = fusion!.offset
            // The offset's estimate lets slow wander through besides the low-pass.
            fusedBand = max(Self.restBandFloorFused, Self.restBandNoiseMultiple * noise.angle * 2 * fusion!.noisePasses)
            fusedWalk = Self.restBandNoiseMultiple * rateWalk(dt)
        }
        guard case .oneEuro = configuration.filter else { return fused ?? smoothed }
        let band = max(Self.restBandFloor, Self.restBandNoiseMultiple * noise.angle * smoothedNoise.share.squareRoot())
        return gate.update(
            smoothed, reading: rawUp, band: band, at: t, fused: fused, fusedBand: fusedBand,
            fusedWalk: fusedWalk)
    }

    /// Seconds: the divergence's mean.
    package static let divergenceTime = 2.0
    /// The share of the independent estimates' weight given.
    package static let weightShare = 0.5

    /// The gyroscope's weight, 0...1: 1 once its frame is trusted, and while it explains
    /// the motion as well as any (`GyroFrameCheck.fits`). Else the two estimates are
    /// weighed by their errors: the accelerometer's is the hand's acceleration across the
    /// up direction (two thirds of the readings' scatter about gravity, in the frame that
    /// fits best), and the mean square divergence of the two directions is the sum of both
    /// errors (independent: one is the hand's, the other the wrong frame's turn).
    package var gyroscopeWeight: Double {
        guard !frameCheck.trusted, gyroscopeDoubted || frameCheck.contested, !frameCheck.fits, divergence > 0
        else { return 1 }
        let accelerometer = 2.0 / 3 * frameCheck.evidence.disturbance
        return min(1, Self.weightShare * accelerometer / divergence)
    }

    /// The fused direction and the accelerometer's, by the gyroscope's weight.
    private func blend(_ fused: Vector3, _ smoothed: Vector3) -> Vector3 {
        let w = gyroscopeWeight
        guard w < 1 else { return fused }
        return (fused * w + smoothed * (1 - w)).normalized ?? smoothed
    }

    /// Radians: how far the gyroscope's rate noise walks the fused direction from its own
    /// mean over `RestGate.fusedTime` (readings `dt` apart): a random walk of
    /// `sigma * dt` a step, over the mean's time, across the two directions of `u`:
    /// `sigma * sqrt(dt * fusedTime)`, `sigma` the noise of one axis. (0.6 deg/s of noise
    /// at 100 Hz: 0.06 degrees; the floor covers less.)
    private func rateWalk(_ dt: Double) -> Double {
        guard dt > 0 else { return 0 }
        let sigma = rateNoise.angle / 3.0.squareRoot()
        return sigma * (dt * RestGate.fusedTime).squareRoot()
    }

    /// The One Euro filter at rest is a one-pole low-pass at `minCutoff`: its gain for a
    /// reading `dt` after the last.
    private func oneEuroAlpha(_ dt: Double) -> Double {
        guard case .oneEuro(let p) = configuration.filter else { return 1 }
        let tau = 1 / (2 * Double.pi * p.minCutoff)
        return 1 / (1 + tau / dt)
    }

    private mutating func smooth(_ u: Vector3, at t: Double) -> Vector3 {
        guard filters.count == 3 else { return u }
        let f = Vector3(filters[0].filter(u.x, at: t), filters[1].filter(u.y, at: t), filters[2].filter(u.z, at: t))
        return f.normalized ?? u
    }
}
