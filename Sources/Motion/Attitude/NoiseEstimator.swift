/// Estimates a sensor's noise from the readings themselves: the angle, in radians, by
/// which the up direction of one reading scatters around the true one (docs/TILT.md,
/// "Smoothing and rest": a laptop accelerometer lying still reads 1-3 LSB, 0.06-0.2 degrees).
///
/// Successive differences are used, not deviations from a mean: for white noise of
/// variance s^2 per axis, `E|u[k] - u[k-1]|^2 = 2 * (s_a^2)` where `s_a^2` is the summed
/// variance of the two directions across `u`, whatever slow motion there is. Motion still
/// adds to it, so the differences are summed over windows of `window` readings and the
/// estimate is the quietest of the last `windows.count` windows: a hand that moves
/// for a few seconds does not inflate it, and a device that lies still for one window
/// refines it.
///
/// A sensor whose readings stand still between moves (its last bit steady, or an input
/// device's fuzz holding back small changes) gives no difference at rest but the moves'
/// own: left out as reads of one conversion, its repeated readings would leave the moves
/// as the only samples, each raising the cap on the next, and after a few moves the
/// estimate would be a move and the rest band too wide to see one. So a repeated reading
/// counts as a difference of zero once `repeatGap` has passed since the last reading
/// counted (longer than a conversion takes: the daemon sets the sensor to convert at its
/// rate, 10 Hz or faster). Pure; time is a parameter, seconds; allocation-free after
/// `init`.
package struct NoiseEstimator: Sendable {
    /// Readings per window.
    package let window: Int
    /// Per-window mean of `|du|^2 / 2`; nan while empty.
    private var windows: [Double]
    private var next = 0
    private var sum = 0.0
    private var count = 0
    private var previous: Vector3?
    /// The smallest of `windows`, infinite while none is complete.
    private var quietest = Double.infinity

    /// Before a window has been seen: 0.005 rad (0.3 degrees), more than any sensor in
    /// the fixtures, so the first decisions are cautious rather than twitchy.
    package static let prior = 0.005
    /// Seconds after the last reading counted before a repeated reading is a sample of
    /// zero rather than a second read of one conversion.
    package static let repeatGap = 0.1
    /// When the last reading that counted was taken.
    private var lastCounted: Double?

    package init(window: Int = 100, windows: Int = 8) {
        self.window = max(4, window)
        self.windows = Array(repeating: .nan, count: max(1, windows))
    }

    /// Adds one reading's unit up direction, taken at `t`. A reading identical to the
    /// previous one within `repeatGap` of the last one counted is the same conversion read
    /// twice (a sensor polled faster than it converts), not a sample of its noise: it is
    /// left out.
    package mutating func add(_ u: Vector3, at t: Double) {
        defer { previous = u }
        guard let p = previous else {
            lastCounted = t
            return
        }
        if u == p, let c = lastCounted, t - c < Self.repeatGap { return }
        lastCounted = t
        let d = u - p
        // One difference counts for at most 9 times the variance estimated so far (a
        // white-noise difference exceeds that once in 8000): a tap or a knock is one
        // reading far from the rest and would otherwise set the window's mean alone.
        sum += min(d.dot(d) / 2, 9 * variance)
        count += 1
        if count >= window {
            windows[next] = sum / Double(count)
            next = (next + 1) % windows.count
            sum = 0
            count = 0
            quietest = .infinity
            for w in windows where !w.isNaN { quietest = min(quietest, w) }
        }
    }

    /// Forgets the previous reading (a gap: the sensor went away, or a new baseline).
    package mutating func restart() {
        previous = nil
        lastCounted = nil
    }

    /// Radians: the scatter of one reading's direction (root of the summed variance across
    /// `u`). The quietest complete window, or the current one once it has a few readings,
    /// or `prior`.
    package var angle: Double { variance.squareRoot() }

    /// The quietest complete window's mean, or the current one's once it has a few
    /// readings, or `prior` squared.
    private var variance: Double {
        if quietest.isFinite { return quietest }
        return count >= 8 ? sum / Double(count) : Self.prior * Self.prior
    }
}
