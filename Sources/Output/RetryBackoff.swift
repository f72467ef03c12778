/// When a sink retries a device that was missing or busy, and whether a failure is worth
/// a log line: exponential backoff from `first` doubling to `max` seconds, and one line
/// per distinct cause (the same message again is not repeated). Times are monotonic
/// seconds passed in, so it is a pure value.
package struct RetryBackoff: Sendable, Equatable {
    package let first: Double
    package let max: Double
    private(set) var retryAt = -Double.infinity
    private var delay: Double
    private var lastFailure: String?

    package init(first: Double, max: Double) {
        self.first = first
        self.max = max
        delay = first
    }

    /// Whether an attempt is due at `now`.
    package func isDue(_ now: Double) -> Bool { now >= retryAt }

    /// An attempt failed with `message` at `now`: the next one waits the current delay,
    /// which then doubles. True when the message differs from the last one (log it).
    package mutating func failed(_ message: String, at now: Double) -> Bool {
        let fresh = message != lastFailure
        lastFailure = message
        retryAt = now + delay
        delay = Swift.min(delay * 2, max)
        return fresh
    }

    /// An attempt succeeded: the next failure starts the backoff over and is reported.
    package mutating func succeeded() {
        delay = first
        lastFailure = nil
    }

    /// Start over, with the first attempt at `now` (now: at once), the next failure reported.
    package mutating func restart(at now: Double = -Double.infinity) {
        delay = first
        lastFailure = nil
        retryAt = now
    }
}
