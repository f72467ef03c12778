/// Whether the gyroscope's rates are in the accelerometer's frame (attitude.md section 9's
/// self-check), decided by evidence that a specific other frame explains the motion
/// better, weighed over many seconds of motion and never final.
///
/// The test: over `windows` consecutive windows of `window` seconds (a group), each
/// accelerometer reading's specific force is turned, by the gyroscope's rates integrated
/// from the group's start, into that start's frame, and averaged per window. In the right
/// frame the means differ only by the change of the hand's velocity over a window, divided
/// by its length
/// (a bounded velocity: a shaking hand, a tap or a step hardly moves the means), since
/// gravity is fixed in that frame. In a wrong frame (a mirrored axis, swapped axes, a
/// sign) the turn is integrated about the wrong axes, gravity seems to move and the means
/// part by the angle the device turned. (More than two windows, so that a motion that
/// returns symmetrically cannot make "no turn at all" fit.) The same is computed for every one of the 48
/// frames a wrong matrix can give, the signed permutations `P` (the rates in the device
/// frame would be `P w`), from one pair of integrals (a proper `P = Q` is `Q R(t) Q^T`,
/// an improper `P = -Q` the same of the reversed rates), so that each group in which the
/// device turned at least `minimumTurn` from where it started scores every frame by the
/// RMS spread of its window means (a fraction of g: radians).
///
/// The scores decay by `memory` per informative group. The frame in use is doubted when,
/// after at least `groupsToDoubt` informative groups, another frame's score is below
/// `doubtRatio` times its own and its own says the means spread by more than
/// `doubtResidual`; it is trusted again when its score is within `trustRatio` of the best.
/// A frame that explains the motion no worse than the one in use (a turn about an axis
/// the two share) never wins: the verdict needs a frame that fits better.
/// Pure; time is a parameter, seconds; rates rad/s, accelerations m/s^2, device frame.
package struct GyroFrameCheck: Sendable {
    package static let window = 0.75
    package static let windows = 4
    package static let minimumTurn = 0.25
    package static let memory = 0.9
    package static let groupsToDoubt = 5
    package static let doubtRatio = 0.1
    package static let doubtResidual = 0.05
    package static let trustRatio = 0.5

    /// The number of frames weighed: the 48 signed permutation matrices.
    package static let frameCount = 48

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

    /// The verdict on the frame in use.
    package enum Verdict: Hashable, Sendable {
        case trusted
        /// `better` fits: the rates in the device frame look like `better * w`.
        case doubted(better: Matrix3, own: Double, best: Double, seconds: Double)
    }

    package private(set) var verdict = Verdict.trusted
    /// Seconds of motion weighed so far (informative groups times their length).
    package private(set) var secondsWeighed = 0.0

    /// Per frame, the decayed sum of squared residuals; fixed size, allocated once.
    private var scores = InlineArray<48, Double>(repeating: 0)   // frameCount
    private var informativeGroups = 0
    private var turns = (plus: Rotation.identity, minus: Rotation.identity)
    private var sums = InlineArray<4, WindowSums>(repeating: WindowSums())
    private var groupStart: Double?
    private var current = 0
    /// Radians: the farthest the device turned from where the group started.
    private var turned = 0.0
    private var lastGyro: Double?

    package init() {}

    /// A gyroscope reading with the offset removed, rad/s in the frame in use.
    package mutating func gyroscope(_ w: Vector3, at t: Double) {
        defer { lastGyro = t }
        guard groupStart != nil, let last = lastGyro, t - last < GyroFusion.gap, t > last else { return }
        turns.plus = turns.plus * Rotation(rotationVector: w * (t - last))
        turns.minus = turns.minus * Rotation(rotationVector: w * (last - t))
        turns.plus.normalize()
        turns.minus.normalize()
    }

    /// An accelerometer reading (m/s^2, device frame) at `t`: true when the verdict
    /// changed with it.
    package mutating func accelerometer(_ a: Vector3, at t: Double) -> Bool {
        guard lastGyro.map({ t - $0 < 4 * GyroFusion.gap }) ?? false else {
            groupStart = nil   // no rates: nothing to weigh
            return false
        }
        var changed = false
        if let start = groupStart {
            let index = Int((t - start) / Self.window)
            if index >= Self.windows {
                changed = turned >= Self.minimumTurn ? weigh() : false
                startGroup(at: t)
            } else {
                current = index
            }
        } else {
            startGroup(at: t)
        }
        sums[current].add(-a, plus: turns.plus.matrix, minus: turns.minus.matrix)
        turned = max(turned, 2 * halfAngle(turns.plus))
        return changed
    }

    /// Forgets the evidence (a new sensor).
    package mutating func reset() { self = GyroFrameCheck() }

    private mutating func startGroup(at t: Double) {
        groupStart = t
        current = 0
        turns = (.identity, .identity)
        turned = 0
        for i in 0..<Self.windows { sums[i] = WindowSums() }
    }

    /// Half the angle of a rotation.
    private func halfAngle(_ r: Rotation) -> Double {
        let s = (r.x * r.x + r.y * r.y + r.z * r.z).squareRoot()
        return atan2(s, abs(r.w))
    }

    /// Scores every frame on the group just completed; true when the verdict changed.
    private mutating func weigh() -> Bool {
        for i in 0..<Self.windows where sums[i].count == 0 { return false }
        for i in 0..<Self.frameCount {
            let p = Self.frame(i)
            let proper = p.determinant > 0
            let q = proper ? p : p * -1
            var means = InlineArray<4, Vector3>(repeating: .zero)
            var centre = Vector3.zero
            for k in 0..<Self.windows {
                means[k] = sums[k].mean(turnedBy: q, proper: proper)
                centre = centre + means[k] / Double(Self.windows)
            }
            let g = max(centre.length, 1e-9)
            var spread = 0.0
            for k in 0..<Self.windows { spread += (means[k] - centre).dot(means[k] - centre) }
            scores[i] = scores[i] * Self.memory + spread / Double(Self.windows) / (g * g)
        }
        informativeGroups += 1
        secondsWeighed += Double(Self.windows) * Self.window
        let before = verdict
        let own = scores[0]
        var best = 0
        for i in 1..<Self.frameCount where scores[i] < scores[best] { best = i }
        let norm = (1 - Self.memory) / (1 - pow(Self.memory, Double(min(informativeGroups, 200))))
        switch verdict {
        case .trusted:
            if best != 0, informativeGroups >= Self.groupsToDoubt, scores[best] < Self.doubtRatio * own,
               (own * norm).squareRoot() > Self.doubtResidual {
                verdict = .doubted(better: Self.frame(best), own: (own * norm).squareRoot(),
                                   best: (scores[best] * norm).squareRoot(), seconds: secondsWeighed)
            }
        case .doubted:
            if best == 0 || own <= scores[best] / Self.trustRatio {
                verdict = .trusted
            } else {
                verdict = .doubted(better: Self.frame(best), own: (own * norm).squareRoot(),
                                   best: (scores[best] * norm).squareRoot(), seconds: secondsWeighed)
            }
        }
        switch (before, verdict) {
        case (.trusted, .doubted), (.doubted, .trusted): return true
        default: return false
        }
    }

    private func pow(_ x: Double, _ n: Double) -> Double {
        var r = 1.0
        for _ in 0..<Int(n) { r *= x }
        return r
    }
}

/// One window's sums: for each component k of the specific force, `sum R(t) f_k(t)`, for
/// the rates as given (`plus`) and reversed (`minus`), and the number of readings.
struct WindowSums: Sendable {
    var plus = (Matrix3.zero, Matrix3.zero, Matrix3.zero)
    var minus = (Matrix3.zero, Matrix3.zero, Matrix3.zero)
    var count = 0

    mutating func add(_ f: Vector3, plus p: Matrix3, minus m: Matrix3) {
        plus = (plus.0 + p * f.x, plus.1 + p * f.y, plus.2 + p * f.z)
        minus = (minus.0 + m * f.x, minus.1 + m * f.y, minus.2 + m * f.z)
        count += 1
    }

    /// The window's mean specific force in the pair's starting frame, for the frame whose
    /// rates are `q w` (`proper`) or `-q w`: `q * sum R(t) q^T f(t) / n`, where
    /// `(q^T f)_j = sum_k q_kj f_k`, so the sum is `sum_j sum_k q_kj column_j(T_k)`.
    func mean(turnedBy q: Matrix3, proper: Bool) -> Vector3 {
        let t = proper ? plus : minus
        var s = Vector3.zero
        for j in 0..<3 {
            s = s + Self.column(t.0, j) * Self.entry(q, 0, j) + Self.column(t.1, j) * Self.entry(q, 1, j)
                + Self.column(t.2, j) * Self.entry(q, 2, j)
        }
        return (q * s) / Double(count)
    }

    private static func entry(_ m: Matrix3, _ row: Int, _ column: Int) -> Double {
        let r = row == 0 ? m.r0 : (row == 1 ? m.r1 : m.r2)
        return column == 0 ? r.x : (column == 1 ? r.y : r.z)
    }

    private static func column(_ m: Matrix3, _ j: Int) -> Vector3 {
        Vector3(entry(m, 0, j), entry(m, 1, j), entry(m, 2, j))
    }
}
