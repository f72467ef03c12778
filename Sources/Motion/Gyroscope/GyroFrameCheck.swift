/// Whether the gyroscope's rates are in the accelerometer's frame (the self-check of
/// docs/TILT.md, "With a gyroscope"), decided by evidence that a specific other frame explains the motion
/// better, weighed over seconds of motion and never final; and, until that frame is
/// trusted, whether it fits the motion as well as any (`fits`), which decides whether the
/// gyroscope keeps its whole weight (`AttitudeEstimator.gyroscopeWeight`).
///
/// The test: over groups of `FrameGroup.windows` consecutive windows of `window` seconds,
/// each accelerometer reading's specific force is turned, by the gyroscope's rates
/// integrated from the group's start, into that start's frame, and averaged per window. In
/// the right frame the means differ only by the change of the hand's velocity over a
/// window, divided by its length (a bounded velocity: a shaking hand, a tap or a step
/// hardly moves the means), since gravity is fixed in that frame. In a wrong frame (a
/// mirrored axis, swapped axes, a sign) the turn is integrated about the wrong axes,
/// gravity seems to move and the means part by the angle the device turned. (More than two
/// windows, so that a motion that returns symmetrically cannot make "no turn at all" fit.)
/// The same is computed for every one of the 48 frames a wrong matrix can give, the signed
/// permutations `P` (the rates in the device frame would be `P w`), from one pair of
/// integrals (a proper `P = Q` is `Q R(t) Q^T`, an improper `P = -Q` the same of the
/// reversed rates), so that each group in which the device turned at least `minimumTurn`
/// from where it started scores every frame by the RMS spread of its window means (a
/// fraction of g: radians). A group starts at every window (they overlap), so evidence
/// comes every `window` seconds, each piece of it `FrameGroup.windows` windows long.
///
/// The scores decay with `halfLife` (seconds of groups weighed). The frame in use is
/// doubted when, after `secondsToDoubt` of informative groups, another frame's score is
/// below `doubtRatio` times its own and its own says the means spread by more than
/// `doubtResidual`; it is trusted again when its score is within `trustRatio` of the best.
/// A frame that explains the motion no worse than the one in use (a turn about an axis the
/// two share) never wins: the verdict needs a frame that fits better. It is `trusted`
/// once, after `secondsToTrust`, it fits within `trustRatio` of the best and every other
/// frame leaves `distinct` times as much spread: the motion has told the frames apart.
///
/// `fits`: true while no informative group has come, and while the frame in use explains
/// the motion within `fitRatio` of the best frame. Where it does not, the estimator weighs
/// the gyroscope by the two estimates' errors: the readings' scatter about gravity in the
/// best frame (`evidence.disturbance`: what the hand's acceleration does to the
/// accelerometer alone) against how far the fused and the accelerometer's directions part.
/// Pure; time is a parameter, seconds; rates rad/s, accelerations m/s^2, device frame.
package struct GyroFrameCheck: Sendable {
    package static let doubtRatio = 0.3
    package static let doubtResidual = 0.05
    package static let trustRatio = 0.5
    package static let secondsToDoubt = 5.0
    package static let secondsToTrust = 6.0
    package static let distinct = 4.0
    package static let fitRatio = 1 / trustRatio
    /// A squared fraction of g: (2.6 degrees)^2 of spread.
    package static let fitExcess = 2e-3
    /// Seconds of informative groups over which the evidence the weight needs falls to
    /// `fitRatio`.
    package static let secondsToWeigh = 2.0
    /// A group's turn, squared, over the least spread of its means (see `weigh`).
    package static let signalRatio = 4.0
    /// A squared fraction of g: the readings' mean square scatter about gravity beyond
    /// which the device is taken to be carried, not turned in a hand ((0.12 g)^2: a hand
    /// that shakes hard, 1 m/s^2 RMS as a vector, scatters them by 0.11 g).
    package static let translationLimit = 0.015
    /// A group votes for a frame where the frame in use leaves this many times its spread,
    /// and where the two frames' predictions part by `separationShare` of what the frame
    /// in use leaves (see `vote`).
    package static let voteRatio = 2.5
    package static let separationShare = 0.4
    /// Radians (a chord: 5.7 degrees): how far gravity must move in a group for it to vote.
    package static let minimumTilt = 0.1
    /// Independent votes the verdict needs: three recent ones (the count decays with the
    /// scores), a decisive margin repeated, not one group.
    package static let votesToDoubt = 2.5
    /// One recent vote: evidence enough to weigh the gyroscope by it (`contested`).
    package static let votesToWeigh = 0.9

    /// The number of frames weighed: the 48 signed permutation matrices.
    package static let frameCount = 48

    /// Seconds per window, radians a group must turn to count, seconds for its evidence to
    /// halve.
    package let window: Double
    package let minimumTurn: Double
    package let halfLife: Double
    /// The factor the scores decay by per group weighed: half over `halfLife` seconds.
    private let memory: Double

    /// The check that gives the verdict: 3 s groups, a quarter turn in each.
    package static let verdict = GyroFrameCheck(window: 0.5, minimumTurn: 0.1, halfLife: 20)

    /// Frame `i` of `frameCount`, the identity first: the permutation `i / 8` of the axes
    /// with the signs of the bits of `i % 8` (computed, not stored: nothing is allocated).
    package static func frame(_ i: Int) -> Matrix3 {
        let orders = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
        let o: (Int, Int, Int)
        switch i / 8 {
        case 0: o = orders.0
        case 1: o = orders.1
        case 2: o = orders.2
        case 3: o = orders.3
        case 4: o = orders.4
        default: o = orders.5
        }
        func axis(_ k: Int, _ negative: Bool) -> Vector3 {
            let v = k == 0 ? Vector3(1, 0, 0) : (k == 1 ? Vector3(0, 1, 0) : Vector3(0, 0, 1))
            return negative ? -v : v
        }
        let signs = i % 8
        return Matrix3(rows: axis(o.0, signs & 1 != 0), axis(o.1, signs & 2 != 0), axis(o.2, signs & 4 != 0))
    }

    /// Frame `i` as a rotation `q` and whether the rates are reversed (`proper` false): a
    /// proper `P = q`, an improper `P = -q`.
    private static func rotation(ofFrame i: Int) -> (q: Matrix3, proper: Bool) {
        let p = frame(i)
        return p.determinant > 0 ? (p, true) : (p * -1, false)
    }

    /// The verdict on the frame in use.
    package enum Verdict: Hashable, Sendable {
        case trusted
        /// `better` fits: the rates in the device frame look like `better * w`.
        case doubted(better: Matrix3, own: Double, best: Double, seconds: Double)
    }

    package private(set) var verdict = Verdict.trusted
    /// The motion has told the frames apart and the frame in use fits (see above); it stays
    /// so until a doubt.
    package private(set) var trusted = false
    /// Seconds of motion weighed so far (informative groups times `window`).
    package private(set) var secondsWeighed = 0.0

    /// Per frame, the decayed sum of squared spreads; the decayed sum of the readings'
    /// scatter about gravity; the decayed count. Fixed size, allocated once.
    private var scores = InlineArray<48, Double>(repeating: 0)  // frameCount
    /// Per frame, the decayed count of independent groups that told it from the frame in
    /// use decisively in its favour (`vote`), and the window its last vote began at; the
    /// same for the frame in use against its runner-up.
    private var votes = InlineArray<48, Double>(repeating: 0)  // frameCount
    private var lastVote = InlineArray<48, Int>(repeating: Int.min / 2)
    private var confirmations = 0.0
    private var lastConfirmation = Int.min / 2
    private var disturbance = 0.0
    private var weighed = 0.0
    private var groups = InlineArray<4, FrameGroup>(repeating: FrameGroup())  // FrameGroup.windows
    private var origin: Double?
    private var currentWindow = 0
    private var lastGyro: Double?

    package init(window: Double, minimumTurn: Double, halfLife: Double) {
        self.window = window
        self.minimumTurn = minimumTurn
        self.halfLife = halfLife
        memory = exp(-0.6931471805599453 * window / halfLife)
    }

    /// A gyroscope reading with the offset removed, rad/s in the frame in use.
    package mutating func gyroscope(_ w: Vector3, at t: Double) {
        defer { lastGyro = t }
        guard origin != nil, let last = lastGyro, t - last < GyroFusion.gap, t > last else { return }
        for g in 0..<FrameGroup.windows { groups[g].turn(w, dt: t - last) }
    }

    /// An accelerometer reading (m/s^2, device frame) at `t`: true when the verdict
    /// changed with it.
    package mutating func accelerometer(_ a: Vector3, at t: Double) -> Bool {
        guard lastGyro.map({ t - $0 < 4 * GyroFusion.gap }) ?? false else {
            origin = nil  // no rates: nothing to weigh
            return false
        }
        guard let o = origin, t >= o else {
            startOver(at: t)
            return accelerometer(a, at: t)
        }
        let n = Int((t - o) / window)
        var changed = false
        if n > currentWindow + 1 {
            startOver(at: t)  // a gap of a window or more: the groups' windows are broken
            return accelerometer(a, at: t)
        }
        if n == currentWindow + 1 {
            currentWindow = n
            let g = n % FrameGroup.windows
            if groups[g].isComplete(at: n), groups[g].turned >= minimumTurn { changed = weigh(groups[g]) }
            groups[g].start(at: n)
        }
        for g in 0..<FrameGroup.windows { groups[g].add(-a, window: currentWindow) }
        return changed
    }

    /// Forgets the evidence (a new sensor).
    package mutating func reset() {
        self = GyroFrameCheck(window: window, minimumTurn: minimumTurn, halfLife: halfLife)
    }

    /// True while the frame in use explains the motion within `fitRatio` of the best frame,
    /// or leaves at most `fitExcess` more spread than it (the best of 48 noisy scores is
    /// lower than the truth's by chance, and more so the less the device turned), or
    /// fewer than two groups have been weighed, or the device is carried rather than
    /// turned.
    package var fits: Bool {
        guard secondsWeighed >= 2 * window, !isTranslating else { return true }
        let own = scores[0], best = scores[bestFrame]
        // Young evidence must be the stronger: the ratio asked falls to `fitRatio` over
        // `secondsToWeigh` of informative groups.
        let ratio = Self.fitRatio * max(1, Self.secondsToWeigh / secondsWeighed)
        return own <= ratio * best || own - best <= Self.fitExcess * weighed
    }

    /// Some group told another frame from the frame in use decisively in its favour, more
    /// often than the frame in use was confirmed (`vote`): the evidence a weight below one
    /// needs.
    package var contested: Bool {
        var most = 0.0
        for i in 1..<Self.frameCount { most = max(most, votes[i]) }
        return most >= Self.votesToWeigh && most > confirmations
    }

    /// The evidence so far, as means over the groups weighed (squared fractions of g): the
    /// spread the frame in use leaves, the best frame's and its index, the readings'
    /// scatter about gravity.
    package var evidence: (own: Double, best: Double, frame: Int, disturbance: Double) {
        guard weighed > 0 else { return (0, 0, 0, 0) }
        return (scores[0] / weighed, scores[bestFrame] / weighed, bestFrame, disturbance / weighed)
    }

    /// The readings scatter about gravity by more than `translationLimit`: the device is
    /// carried or swung, not turned in a hand. A swing keeps the specific force nearly
    /// still in the device frame, and a frame integrated wrongly can seem to keep gravity
    /// stiller than the right one (BROAD's fast translation trial picks one of several
    /// permutations so, from group to group); while the accelerometer alone is worse than
    /// any gyroscope, the check neither doubts nor weighs down.
    private var isTranslating: Bool { disturbance > Self.translationLimit * weighed }

    private var bestFrame: Int {
        var best = 0
        for i in 1..<Self.frameCount where scores[i] < scores[best] { best = i }
        return best
    }

    private mutating func startOver(at t: Double) {
        origin = t
        currentWindow = 0
        // Window numbers start again: what comes is independent of the votes before.
        lastVote = InlineArray<48, Int>(repeating: Int.min / 2)
        lastConfirmation = Int.min / 2
        for g in 0..<FrameGroup.windows { groups[g] = FrameGroup() }
        groups[0].start(at: 0)
    }

    /// Scores every frame on a completed group; true when the verdict changed. A group
    /// counts only where no reading in it was a spike (`FrameGroup.spikeLimit`: taps,
    /// knocks, vibration), and only where its turn moves gravity, in a frame it is
    /// integrated wrongly in, `signalRatio` times as much as the hand's acceleration spreads
    /// the means in the frame that fits it best: fast translation with little turn (a
    /// device carried briskly) spreads every frame's means, and the least of 48 such
    /// spreads is lower than the right frame's by chance.
    ///
    /// A counted group is also a vote (`vote`) where it tells the frame in use and the
    /// one that fits it best apart decisively.
    private mutating func weigh(_ group: FrameGroup) -> Bool {
        guard !group.spiky else { return false }
        var spreads = InlineArray<48, Double>(repeating: 0)  // frameCount
        var groupBest = (spread: Double.infinity, centre: Vector3.zero)
        var bestIndex = 0
        for i in 0..<Self.frameCount {
            let s = spread(of: group, inFrame: i)
            spreads[i] = s.spread
            if s.spread < groupBest.spread {
                groupBest = s
                bestIndex = i
            }
        }
        guard group.turned * group.turned >= Self.signalRatio * groupBest.spread else { return false }
        for i in 0..<Self.frameCount {
            scores[i] = scores[i] * memory + spreads[i]
            votes[i] *= memory
        }
        confirmations *= memory
        var squares = 0.0, count = 0
        for k in 0..<FrameGroup.windows {
            squares += group.sums[k].squares
            count += group.sums[k].count
        }
        let g2 = max(groupBest.centre.dot(groupBest.centre), 1e-9)
        let scatter = max(0, squares / Double(count) - g2) / g2
        vote(group, spreads: spreads, best: bestIndex, centre: groupBest.centre, disturbance: scatter)
        disturbance = disturbance * memory + scatter
        weighed = weighed * memory + 1
        secondsWeighed += window
        return judge()
    }

    /// One group's vote. A group tells frames apart only where the device tilted (its
    /// gravity moved, as the frame in use integrates the turn, by `minimumTilt`: a turn
    /// about gravity moves nothing) and was not carried (the readings scatter about
    /// gravity by at most `translationLimit`). Then each frame gets a vote where the frame
    /// in use leaves `voteRatio` times its spread and the two frames' predicted readings
    /// part (`separation`) by at least `separationShare` of what the frame in use leaves,
    /// so that the difference is the turn's, not noise that happened to fit another frame
    /// better (many frames tie on a motion that leaves an axis still: each of them gets
    /// it). Where the frame in use fits best, the group confirms it the same way against
    /// the runner-up. Only groups that do not overlap a frame's last vote count
    /// (independent windows).
    private mutating func vote(
        _ group: FrameGroup, spreads: InlineArray<48, Double>, best: Int, centre: Vector3,
        disturbance: Double
    ) {
        guard disturbance <= Self.translationLimit, let up = centre.normalized,
            tilted(group, gravity: up) >= Self.minimumTilt
        else { return }
        if best != 0 {
            for i in 1..<Self.frameCount
            where group.startWindow >= lastVote[i] + FrameGroup.windows
                && spreads[0] >= Self.voteRatio * spreads[i]
                && separation(of: group, frame: i, gravity: centre) >= Self.separationShare * spreads[0]
            {
                votes[i] += 1
                lastVote[i] = group.startWindow
            }
        } else {
            var second = 1
            for i in 2..<Self.frameCount where spreads[i] < spreads[second] { second = i }
            guard group.startWindow >= lastConfirmation + FrameGroup.windows,
                spreads[second] >= Self.voteRatio * spreads[0],
                separation(of: group, frame: second, gravity: centre) >= Self.separationShare * spreads[second]
            else { return }
            confirmations += 1
            lastConfirmation = group.startWindow
        }
    }

    /// Radians (a chord): the farthest gravity `up` (unit, at the group's start) moved in a
    /// window's mean over the group, as the frame in use integrates the turn.
    private func tilted(_ group: FrameGroup, gravity up: Vector3) -> Double {
        var most = 0.0
        for k in 0..<FrameGroup.windows {
            most = max(most, (group.sums[k].predicted(up, turnedBy: .identity, proper: true) - up).length)
        }
        return most
    }

    /// How far the readings frame `i` predicts over a group part from those the frame in
    /// use predicts, for gravity `g0` at the group's start (a squared fraction of g, the
    /// part a common offset of the windows does not explain, as `spread` measures it): what
    /// the motion can tell the two frames apart by. A turn about an axis the two frames
    /// share, or no turn, parts them by nothing.
    private func separation(of group: FrameGroup, frame i: Int, gravity g0: Vector3) -> Double {
        let (q, proper) = Self.rotation(ofFrame: i)
        var d = InlineArray<4, Vector3>(repeating: .zero)
        var mean = Vector3.zero
        for k in 0..<FrameGroup.windows {
            d[k] =
                group.sums[k].predicted(g0, turnedBy: q, proper: proper)
                - group.sums[k].predicted(g0, turnedBy: .identity, proper: true)
            mean = mean + d[k] / Double(FrameGroup.windows)
        }
        var s = 0.0
        for k in 0..<FrameGroup.windows { s += (d[k] - mean).dot(d[k] - mean) }
        return s / Double(FrameGroup.windows) / max(g0.dot(g0), 1e-9)
    }

    /// The spread of a group's window means in frame `i` (a squared fraction of g), and
    /// their mean, weighted by the readings.
    private func spread(of group: FrameGroup, inFrame i: Int) -> (spread: Double, centre: Vector3) {
        let (q, proper) = Self.rotation(ofFrame: i)
        var means = InlineArray<4, Vector3>(repeating: .zero)
        var centre = Vector3.zero, weighted = Vector3.zero, count = 0
        for k in 0..<FrameGroup.windows {
            means[k] = group.sums[k].mean(turnedBy: q, proper: proper)
            centre = centre + means[k] / Double(FrameGroup.windows)
            weighted = weighted + means[k] * Double(group.sums[k].count)
            count += group.sums[k].count
        }
        let g = max(centre.length, 1e-9)
        var s = 0.0
        for k in 0..<FrameGroup.windows { s += (means[k] - centre).dot(means[k] - centre) }
        return (s / Double(FrameGroup.windows) / (g * g), weighted / Double(max(count, 1)))
    }

    /// The verdict and the trust after a group; true when the verdict changed.
    private mutating func judge() -> Bool {
        let before = verdict
        let own = scores[0]
        let best = bestFrame
        var second = Double.infinity  // the best of the other frames
        for i in 1..<Self.frameCount { second = min(second, scores[i]) }
        let n = weighed
        let rms = { (score: Double) in (score / n).squareRoot() }
        switch verdict {
        case .trusted:
            if best != 0, secondsWeighed >= Self.secondsToDoubt, scores[best] < Self.doubtRatio * own,
                rms(own) > Self.doubtResidual, !isTranslating, votes[best] >= Self.votesToDoubt,
                votes[best] > confirmations
            {
                verdict = .doubted(
                    better: Self.frame(best), own: rms(own), best: rms(scores[best]), seconds: secondsWeighed)
                trusted = false
            } else if secondsWeighed >= Self.secondsToTrust, own <= scores[best] / Self.trustRatio,
                second >= Self.distinct * own
            {
                trusted = true
            }
        case .doubted:
            if best == 0 || own <= scores[best] / Self.trustRatio {
                verdict = .trusted
            } else {
                verdict = .doubted(
                    better: Self.frame(best), own: rms(own), best: rms(scores[best]), seconds: secondsWeighed)
            }
        }
        switch (before, verdict) {
        case (.trusted, .doubted), (.doubted, .trusted): return true
        default: return false
        }
    }
}
