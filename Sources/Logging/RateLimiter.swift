/// At most one log line per cause per interval (default 1 s): bad sensor values can
/// arrive at 100 Hz, and journald drops floods. Time is a parameter.
package struct RateLimiter: Sendable {
    package let interval: Double
    private var last: [String: Double] = [:]
    private var suppressed: [String: Int] = [:]

    package init(interval: Double = 1) {
        self.interval = interval
    }

    /// Whether to log `cause` now; when it returns true, `suppressedSinceLast` tells how
    /// many were held back since the previous line for that cause.
    package mutating func allow(_ cause: String, now: Double) -> (allowed: Bool, suppressedSinceLast: Int) {
        if let previous = last[cause], now - previous < interval {
            suppressed[cause, default: 0] += 1
            return (false, 0)
        }
        last[cause] = now
        let held = suppressed.removeValue(forKey: cause) ?? 0
        return (true, held)
    }
}
