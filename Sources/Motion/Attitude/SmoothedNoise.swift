/// How much of one conversion's noise a one-pole low-pass leaves in its output, followed
/// reading by reading. The output is a weighted sum of the conversions read, `sum w_i x_i`,
/// each with its own independent noise: the share of one conversion's noise variance left
/// is `sum w_i^2`. A reading with gain `alpha` scales every weight by `1 - alpha` and adds
/// `alpha` to the newest conversion's: a new one's (a reading that differs from the last),
/// or the last one's again (the same conversion read twice: a sensor polled faster than
/// it converts, or a reader that stalled). Read at a steady pace, new conversions each
/// time, the share settles at `alpha / (2 - alpha)` (the textbook one-pole figure); the
/// first reading after a long gap is passed almost whole (gain near 1: share near 1); a
/// conversion read ten times over is passed as good as whole, and the rest band around
/// the smoothed direction is as wide as that. Pure.
package struct SmoothedNoise: Sendable, Equatable {
    /// `sum w_i^2`: 1 for the filter's first output, which is its first reading.
    package private(set) var share = 1.0
    /// The newest conversion's weight.
    private var newest = 1.0

    package init() {}

    /// One reading with gain `alpha` (0...1); `repeated`: it is the last conversion again.
    package mutating func add(alpha: Double, repeated: Bool) {
        let a = min(max(alpha, 0), 1)
        let kept = 1 - a
        if repeated {
            share = kept * kept * share + 2 * a * kept * newest + a * a
            newest = kept * newest + a
        } else {
            share = kept * kept * share + a * a
            newest = a
        }
    }
}
