/// Collects the baseline's readings (docs/TILT.md, "Baseline"). At start, after a claim, a
/// sensor back or a recalibration the baseline is taken at once, from the first `samples`
/// usable readings, so the card follows a device that is already moving from its first
/// frame. After a fold (the tablet-mode switch, which fires while the lid is still
/// moving: `restart(untilRest: true)`) it is taken from the device at rest: readings of
/// the fold in the baseline would leave the card off its origin (0.2 rad of fold still to
/// come is the whole of the mapper's range).
///
/// At rest, the readings' up directions are summed in blocks of `blockTime`. A run of
/// blocks is a rest stretch while every reading stays within `noiseMultiple` times the
/// noise of the stretch's mean and every block's mean within that of the blocks before it
/// (a slowing lid drifts from block to block even where no single reading leaves the
/// band). The noise is the smaller of the sensor's (`NoiseEstimator`, whose quietest
/// window may still be a moving one, or its prior) and the stretch's own successive
/// differences (a slow motion hardly adds to those). The end of a motion that slowed into
/// the band is still in a stretch's first readings, so the baseline leaves out its first
/// `tailTime`: it is the mean of the readings after that, once they span `restMeanTime`
/// and number `samples`. A device that never rests within `restLimit` of the first reading
/// gets the mean of its last `settleTime` of readings (`rested` false: the caller says
/// so).
///
/// A reading outside [0.5 g, 1.5 g] (shaking, a fall) ends a stretch and is never summed;
/// taken at once, such a reading is skipped. Pure; time is a parameter, seconds;
/// directions unit vectors, angles radians.
package struct BaselineCapture: Sendable {
    package static let blockTime = 0.1
    package static let settleTime = 0.4
    /// Seconds at the start of a rest stretch left out of the baseline (the end of the
    /// motion that slowed into the band: at 100 Hz with 0.1 degrees of noise, a lid
    /// folded within 1.5 s is inside the band for its last 0.1-0.2 s).
    package static let tailTime = 0.2
    /// Seconds of readings after `tailTime` averaged into a baseline at rest.
    package static let restMeanTime = 0.5
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
        /// The baseline's up direction (summed, not unit), whether it came from rest, and
        /// the time of the first reading in it.
        case done(upSum: Vector3, rested: Bool, from: Double)
    }

    package let samples: Int
    /// The baseline waits for the device to rest (after a fold).
    package private(set) var untilRest = false
    private var startedAt: Double?
    /// Readings timed before this are from before the request (a batch read late).
    private var notBefore = -Double.infinity
    /// The readings summed at once, or the rest stretch's (and the first one's time).
    private var stretch = Sums()
    private var stretchStart = 0.0
    /// The stretch's readings from `tailTime` after its start on.
    private var settled = Sums()
    private var block = Sums()
    private var blockStart: Double?
    private var recent = InlineArray<4, Sums>(repeating: Sums())  // kept
    private var nextRecent = 0
    private var previous: Vector3?

    struct Sums: Sendable {
        var up = Vector3.zero
        var count = 0
        /// Half the squared successive differences, and how many.
        var variance = 0.0
        var differences = 0
        /// The first reading's time.
        var first = Double.infinity
        mutating func add(_ u: Vector3, after p: Vector3?, at t: Double) {
            up = up + u
            count += 1
            first = min(first, t)
            if let p {
                variance += (u - p).dot(u - p) / 2
                differences += 1
            }
        }
        static func + (a: Sums, b: Sums) -> Sums {
            Sums(
                up: a.up + b.up, count: a.count + b.count, variance: a.variance + b.variance,
                differences: a.differences + b.differences, first: min(a.first, b.first))
        }
    }

    package init(samples: Int) {
        self.samples = max(1, samples)
    }

    /// Starts again; readings timed before `t` are not used; `untilRest`: the baseline
    /// waits for the device to rest.
    package mutating func restart(notBefore t: Double = -.infinity, untilRest: Bool = false) {
        self = BaselineCapture(samples: samples)
        notBefore = t
        self.untilRest = untilRest
    }

    /// One reading's up direction `u` (unit) at `t`; `usable`: its magnitude is within
    /// [0.5 g, 1.5 g]; `noise`: the readings' scatter (radians, `NoiseEstimator.angle`).
    package mutating func add(_ u: Vector3, usable: Bool, at t: Double, noise: Double) -> Step {
        guard t >= notBefore else { return .collecting(have: 0, need: samples, used: false) }
        guard untilRest else {
            if usable { stretch.add(u, after: nil, at: t) }
            return stretch.count >= samples
                ? .done(upSum: stretch.up, rested: true, from: stretch.first)
                : .collecting(have: stretch.count, need: samples, used: usable)
        }
        let started = startedAt ?? t
        startedAt = started
        closeBlockIfDue(at: t, noise: noise)
        if usable {
            let all = stretch + block
            if let mean = all.up.normalized,
                (u - mean).length > max(Self.bandFloor, Self.noiseMultiple * self.noise(all, noise))
            {
                restartStretch(at: t)
            }
            if stretch.count == 0 && block.count == 0 { stretchStart = t }
            if blockStart == nil { blockStart = t }
            block.add(u, after: block.count > 0 || stretch.count > 0 ? previous : nil, at: t)
            if t - stretchStart >= Self.tailTime { settled.add(u, after: nil, at: t) }
            previous = u
        } else {
            restartStretch(at: t)
        }
        if settled.count >= samples, t - settled.first >= Self.restMeanTime {
            return .done(upSum: settled.up, rested: true, from: settled.first)
        }
        if t - started >= Self.restLimit {
            var last = block
            for i in 0..<Self.kept { last = last + recent[i] }
            if last.count > 0 { return .done(upSum: last.up, rested: false, from: last.first) }
        }
        return .collecting(have: settled.count, need: samples, used: usable)
    }

    /// A block of `blockTime` is complete: it joins the stretch, or starts a new one when
    /// its mean has drifted from the stretch's.
    private mutating func closeBlockIfDue(at t: Double, noise: Double) {
        guard let start = blockStart, t - start >= Self.blockTime, block.count > 0 else { return }
        recent[nextRecent] = block
        nextRecent = (nextRecent + 1) % Self.kept
        if stretch.count > 0, let a = stretch.up.normalized, let b = block.up.normalized {
            let spread =
                Self.noiseMultiple * self.noise(stretch + block, noise)
                * (1 / Double(block.count) + 1 / Double(stretch.count)).squareRoot()
            if (a - b).length > max(Self.blockBandFloor, spread) {
                // Drifted: a new stretch from this block, whose readings are all within
                // `tailTime` of its start.
                stretch = Sums()
                settled = Sums()
                stretchStart = start
            }
        }
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
        settled = Sums()
        block = Sums()
        blockStart = nil
        stretchStart = t
    }
}
