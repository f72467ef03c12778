/// One group of `GyroFrameCheck`: `windows` consecutive windows from `startWindow`, the
/// gyroscope's rates integrated from the group's start (as given and reversed), and per
/// window the specific force turned into the start's frame (`WindowSums`). Pure.
struct FrameGroup: Sendable {
    static let windows = 4
    /// m/s^2: a reading whose length is farther than this from standard gravity (0.3 g) is
    /// a spike (a tap, a knock, a vibration's peak, a jolt), and a group that holds one
    /// is not evidence: its window means carry what the spike and its rebound did, not
    /// where gravity was.
    static let spikeLimit = 0.3 * AttitudeConfiguration.standardGravity
    var startWindow = 0
    var active = false
    /// A reading of the group was a spike (`spikeLimit`).
    var spiky = false
    var turns = (plus: Rotation.identity, minus: Rotation.identity)
    var sums = InlineArray<4, WindowSums>(repeating: WindowSums())  // windows
    /// Radians: the farthest the device turned from where the group started.
    var turned = 0.0

    /// Starts afresh at window `n`.
    mutating func start(at n: Int) {
        self = FrameGroup()
        startWindow = n
        active = true
    }

    /// A rate `w` (rad/s) held for `dt` seconds.
    mutating func turn(_ w: Vector3, dt: Double) {
        guard active else { return }
        turns.plus = turns.plus * Rotation(rotationVector: w * dt)
        turns.minus = turns.minus * Rotation(rotationVector: w * -dt)
        turns.plus.normalize()
        turns.minus.normalize()
    }

    /// A specific force `f` (m/s^2) in window `n`.
    mutating func add(_ f: Vector3, window n: Int) {
        let k = n - startWindow
        guard active, k >= 0, k < Self.windows else { return }
        sums[k].add(f, plus: turns.plus.matrix, minus: turns.minus.matrix)
        if abs(f.length - AttitudeConfiguration.standardGravity) > Self.spikeLimit { spiky = true }
        let r = turns.plus
        let s = (r.x * r.x + r.y * r.y + r.z * r.z).squareRoot()
        turned = max(turned, 2 * atan2(s, abs(r.w)))
    }

    /// All its windows are over (window `n` is past them) and each has readings.
    func isComplete(at n: Int) -> Bool {
        guard active, n - startWindow >= Self.windows else { return false }
        for k in 0..<Self.windows where sums[k].count == 0 { return false }
        return true
    }
}

/// One window's sums: for each component k of the specific force, `sum R(t) f_k(t)`, for
/// the rates as given (`plus`) and reversed (`minus`); the sums of the turns themselves,
/// `sum R(t)` (what gravity still at the group's start would read, `predicted`); the sum
/// of `|f|^2` (the same in every frame) and the number of readings.
struct WindowSums: Sendable {
    var plus = (Matrix3.zero, Matrix3.zero, Matrix3.zero)
    var minus = (Matrix3.zero, Matrix3.zero, Matrix3.zero)
    var turns = (plus: Matrix3.zero, minus: Matrix3.zero)
    var squares = 0.0
    var count = 0

    mutating func add(_ f: Vector3, plus p: Matrix3, minus m: Matrix3) {
        plus = (plus.0 + p * f.x, plus.1 + p * f.y, plus.2 + p * f.z)
        minus = (minus.0 + m * f.x, minus.1 + m * f.y, minus.2 + m * f.z)
        turns = (turns.plus + p, turns.minus + m)
        squares += f.dot(f)
        count += 1
    }

    /// The window's mean reading (device frame) if the rates in the device frame were
    /// `q w` (`proper`) or `-q w` and the specific force `g0` at the group's start stayed
    /// fixed in the world: `q (sum R(t))^T q^T g0 / n`, since the device at `t` reads
    /// `R_q(t)^T g0` with `R_q = q R q^T`.
    func predicted(_ g0: Vector3, turnedBy q: Matrix3, proper: Bool) -> Vector3 {
        let r = proper ? turns.plus : turns.minus
        return (q * (r.transposed * (q.transposed * g0))) / Double(count)
    }

    /// The window's mean specific force in the group's starting frame, for the frame whose
    /// rates are `q w` (`proper`) or `-q w`: `q * sum R(t) q^T f(t) / n`, where
    /// `(q^T f)_j = sum_k q_kj f_k`, so the sum is `sum_j sum_k q_kj column_j(T_k)`.
    func mean(turnedBy q: Matrix3, proper: Bool) -> Vector3 {
        let t = proper ? plus : minus
        var s = Vector3.zero
        for j in 0..<3 {
            s =
                s + Self.column(t.0, j) * Self.entry(q, 0, j) + Self.column(t.1, j) * Self.entry(q, 1, j)
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
