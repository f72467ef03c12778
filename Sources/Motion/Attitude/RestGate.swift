/// Holds the up direction still while the device lies still (docs/TILT.md, "Smoothing and
/// rest": a device lying still publishes no frames once settled, yet a half-degree tilt shows
/// within 150 ms).
///
/// Two states:
/// - moving: the input passes through unchanged (no lag is added). A quiet stretch
///   starts at each input; when every input for `settleTime` seconds stays within `band`
///   of the stretch's first one, the gate holds the mean of the stretch's readings and
///   is at rest. The mean is taken of the readings before smoothing: smoothed values are
///   correlated over the filter's time constant, so their mean over a short stretch is
///   off by nearly their whole noise, the readings' by a fraction of it. A second of
///   readings (100 at 100 Hz): the held point is where the device lies to within a tenth
///   of its noise, and it stays there for the whole rest; 0.3 s left it twice as far off
///   (`benchmarks/motion.py --peers`, the still paths over ten draws, docs/MOTION.md). The
///   rest is dated from the stretch's start (`restingSince`).
/// - at rest: the held direction is output, exactly the same each time, so the focal
///   point does not move and no frame is drawn; the first input farther than `band` from
///   it ends the rest and passes through.
///
/// `band` (radians, a chord of the unit sphere, which is the angle for small angles) is
/// the caller's: a multiple of the noise it has estimated, so that noise alone almost never
/// leaves it.
///
/// With a gyroscope the input is the accelerometer's smoothed direction, and the fused one
/// (`fused`) is what passes while moving and a second watch while at rest: it answers a
/// turn at once, where the smoothed direction lags, but the gyroscope's rate noise walks
/// it slowly (0.12 degrees RMS at 0.3 deg/s of noise: against the held direction it would
/// leave a band of noise multiples every few seconds, and draw a frame). So it is held to
/// within `fusedBand` (or `fusedWalk`, how far the rate noise walks it from that mean,
/// where more) of its own recent mean (`fusedTime`), not of the held direction; a
/// slow drift of the device is the smoothed direction's to see. Pure; time is a parameter.
package struct RestGate: Sendable {
    /// Seconds of quiet before the gate holds (the mean it holds is of that many seconds).
    package let settleTime: Double
    /// Seconds: the fused direction's recent mean, a one-pole low-pass.
    package static let fusedTime = 1.0
    package private(set) var held: Vector3?
    /// At rest, the last input stayed within the band but beyond `doubtShare` of it: noise
    /// alone does that about once in 170 looks (a normal scatter's 3.2 sigma, where the
    /// band is 6.4), a slow creep sooner. A caller that reads the device seldom at rest
    /// reads it again at once to settle the doubt (`ReadSchedule.lookCloser`).
    package private(set) var doubted = false
    /// The share of the band beyond which an input at rest is doubted.
    package static let doubtShare = 0.5
    /// When the quiet stretch that led to `held` began: the device has rested since then.
    package private(set) var restingSince: Double?
    private var stretchStart = 0.0
    private var stretchReference: Vector3?
    private var stretchSum = Vector3.zero
    private var fusedMean: Vector3?
    private var stretchFused: Vector3?
    private var lastT: Double?

    package init(settleTime: Double = 1.0) {
        self.settleTime = settleTime
    }

    package var isAtRest: Bool { held != nil }

    /// The direction to use for `u` (unit, smoothed) observed at `t`; `reading` is the
    /// unsmoothed direction of the same instant; `fused`, the fused direction, which is
    /// returned instead of `u` while the device moves.
    package mutating func update(
        _ u: Vector3, reading: Vector3, band: Double, at t: Double,
        fused: Vector3? = nil, fusedBand: Double = 0, fusedWalk: Double = 0
    ) -> Vector3 {
        let dt = lastT.map { max(0, t - $0) } ?? 0
        lastT = t
        let moving = fused ?? u
        doubted = false
        if let h = held {
            let off = (u - h).length
            if off <= band, fusedIsQuiet(fused, band: max(fusedBand, fusedWalk), dt: dt) {
                doubted = off > Self.doubtShare * band
                return h
            }
            held = nil
            restingSince = nil
            startStretch(u, reading, at: t)
            stretchFused = fused
            return moving
        }
        // A quiet stretch: both directions stay near where it began (the fused one answers
        // the end of a turn sooner than the smoothed one, so the mean held is the pose's).
        guard let r = stretchReference, (u - r).length <= band,
            fused.map({ f in stretchFused.map { (f - $0).length <= fusedBand } ?? false }) ?? true
        else {
            startStretch(u, reading, at: t)
            stretchFused = fused
            return moving
        }
        stretchSum = stretchSum + reading
        if t - stretchStart >= settleTime, let mean = stretchSum.normalized {
            held = mean
            restingSince = stretchStart
            fusedMean = fused
            stretchReference = nil
            return mean
        }
        return moving
    }

    /// The fused direction stays within `band` of its recent mean (true without one).
    private mutating func fusedIsQuiet(_ f: Vector3?, band: Double, dt: Double) -> Bool {
        guard let f else { return true }
        guard let m = fusedMean else {
            fusedMean = f
            return true
        }
        guard (f - m).length <= band else { return false }
        fusedMean = m + (f - m) * min(1, dt / Self.fusedTime)
        return true
    }

    /// Forgets everything (a new baseline).
    package mutating func reset() {
        held = nil
        doubted = false
        restingSince = nil
        stretchReference = nil
        fusedMean = nil
        stretchFused = nil
    }

    private mutating func startStretch(_ u: Vector3, _ reading: Vector3, at t: Double) {
        stretchReference = u
        stretchStart = t
        stretchSum = reading
    }
}
