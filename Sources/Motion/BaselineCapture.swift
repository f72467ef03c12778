/// Collects the baseline's readings (attitude.md section 4) from a device at rest: after a
/// start, a recalibration, a sensor back, a tablet-mode switch. The switch fires while
/// the lid is still moving, and a person recalibrating may still be setting the device
/// down; readings of that motion in the baseline leave the card off its origin (0.2 rad
/// of fold still to come is the whole of the mapper's range), and the rest rule that
/// would fix it waits for 20 degrees.
///
/// The readings' up directions are summed in blocks of `blockTime`. A run of blocks is a
/// rest stretch while every reading stays within `noiseMultiple` times the noise of the
/// stretch's mean and every block's mean within that of the blocks before it (a slowing
/// lid drifts from block to block even where no single reading leaves the band). The
/// noise is the smaller of the sensor's (`NoiseEstimator`, whose quietest window may
/// still be a moving one, or its prior) and the stretch's own successive differences
/// (a slow motion hardly adds to those). The baseline is the
/// stretch's mean once it spans `settleTime` and holds `samples` readings. A device that
/// never rests within `restLimit` of the first reading gets the mean of its last
/// `settleTime` of readings (`rested` false: the caller says so).
///
/// A reading outside [0.5 g, 1.5 g] (shaking, a fall) ends a stretch and is never summed.
/// Without the rest rule (`Attitude.filter = none`, which the spec's test vectors use) the
/// first `samples` usable readings are the baseline, as the spec writes it.
/// Pure; time is a parameter, seconds; directions unit vectors, angles radians.
package struct BaselineCapture: Sendable {
    package static let blockTime = 0.1
    package static let settleTime = 0.4
    package static let restLimit = 3.0
    /// Noise multiples in the bands (as the rest gate's, `AttitudeEstimator`).
    package static let noiseMultiple = 4.5
    /// Radians: the least band for one reading, and for a block's mean (1 pt of pitch at
    /// the default mapper's 0.1 rad per 100 pt).
    package static let bandFloor = 3e-3
    package static let blockBandFloor = 1e-3
    /// Blocks of the recent past kept for a device that never rests (`settleTime`).
    static let kept = 4

    /// What one reading did.
    package enum Step: Sendable, Equatable {
        /// Still collecting: `have` readings at rest of the `need`; `used` false for a
        /// reading outside [0.5 g, 1.5 g].
        case collecting(have: Int, need: Int, used: Bool)
        /// The baseline's up direction (summed, not unit), and whether it came from rest.
        case done(upSum: Vector3, rested: Bool)
    }

    package let samples: Int
    package let requireRest: Bool
    private var startedAt: Double?
    /// Readings timed before this are from before the request (a batch read late).
    private var notBefore = -Double.infinity
    private var stretch = Sums()
    /// The stretch's first block.
    private var firstBlock = Sums()
    private var stretchStart = 0.0
    private var block = Sums()
    private var blockStart: Double?
    private var recent = InlineArray<4, Sums>(repeating: Sums())   // kept
    private var nextRecent = 0
    private var previous: Vector3?

    struct Sums: Sendable {
        var up = Vector3.zero
        var count = 0
        /// Half the squared successive differences, and how many.
        var variance = 0.0
        var differences = 0
        mutating func add(_ u: Vector3, after p: Vector3?) {
            up = up + u
            count += 1
            if let p {
                variance += (u - p).dot(u - p) / 2
                differences += 1
            }
        }
        static func + (a: Sums, b: Sums) -> Sums {
            Sums(up: a.up + b.up, count: a.count + b.count, variance: a.variance + b.variance,
                 differences: a.differences + b.differences)
        }
    }

    package init(samples: Int, requireRest: Bool) {
        self.samples = max(1, samples)
        self.requireRest = requireRest
    }

    /// Starts again; readings timed before `t` are not used.
    package mutating func restart(notBefore t: Double = -.infinity) {
        self = BaselineCapture(samples: samples, requireRest: requireRest)
        notBefore = t
    }

    /// One reading's up direction `u` (unit) at `t`; `usable`: its magnitude is within
    /// [0.5 g, 1.5 g]; `noise`: the readings' scatter (radians, `NoiseEstimator.angle`).
    package mutating func add(_ u: Vector3, usable: Bool, at t: Double, noise: Double) -> Step {
        guard t >= notBefore else { return .collecting(have: 0, need: samples, used: false) }
        guard requireRest else {
            if usable { stretch.add(u, after: nil) }
            return stretch.count >= samples ? .done(upSum: stretch.up, rested: true)
                                            : .collecting(have: stretch.count, need: samples, used: usable)
        }
        let started = startedAt ?? t
        startedAt = started
        closeBlockIfDue(at: t, noise: noise)
        if usable {
            let all = stretch + block
            if let mean = all.up.normalized,
               (u - mean).length > max(Self.bandFloor, Self.noiseMultiple * self.noise(all, noise)) {
                restartStretch(at: t)
            }
            if stretch.count == 0 && block.count == 0 { stretchStart = t }
            if blockStart == nil { blockStart = t }
            block.add(u, after: block.count > 0 || stretch.count > 0 ? previous : nil)
            previous = u
        } else {
            restartStretch(at: t)
        }
        let all = stretch + block
        if all.count >= samples, t - stretchStart >= Self.settleTime {
            // The stretch's first block may still hold the end of a motion that slowed into
            // the band: left out where enough readings remain without it.
            let later = all.count - firstBlock.count >= samples ? all.up - firstBlock.up : all.up
            return .done(upSum: later, rested: true)
        }
        if t - started >= Self.restLimit {
            var last = block
            for i in 0..<Self.kept { last = last + recent[i] }
            if last.count > 0 { return .done(upSum: last.up, rested: false) }
        }
        return .collecting(have: all.count, need: samples, used: usable)
    }

    /// A block of `blockTime` is complete: it joins the stretch, or starts a new one when
    /// its mean has drifted from the stretch's.
    private mutating func closeBlockIfDue(at t: Double, noise: Double) {
        guard let start = blockStart, t - start >= Self.blockTime, block.count > 0 else { return }
        recent[nextRecent] = block
        nextRecent = (nextRecent + 1) % Self.kept
        if stretch.count > 0, let a = stretch.up.normalized, let b = block.up.normalized {
            let spread = Self.noiseMultiple * self.noise(stretch + block, noise)
                * (1 / Double(block.count) + 1 / Double(stretch.count)).squareRoot()
            if (a - b).length > max(Self.blockBandFloor, spread) {
                stretch = Sums()
                stretchStart = start
            }
        }
        if stretch.count == 0 { firstBlock = block }
        stretch = stretch + block
        block = Sums()
        blockStart = nil
    }

    /// Radians: the sensor's noise, or the stretch's own where it has enough readings and
    /// is quieter.
    private func noise(_ sums: Sums, _ sensor: Double) -> Double {
        guard sums.differences >= 8 else { return sensor }
        return min(sensor, (sums.variance / Double(sums.differences)).squareRoot())
    }

    /// The stretch starts again with the next reading; the recent blocks stay (they are
    /// the fallback of a device that never rests).
    private mutating func restartStretch(at t: Double) {
        if block.count > 0 {
            recent[nextRecent] = block
            nextRecent = (nextRecent + 1) % Self.kept
        }
        stretch = Sums()
        firstBlock = Sums()
        block = Sums()
        blockStart = nil
        stretchStart = t
    }
}
