/// At most one log line per cause per interval (default 1 s): bad sensor values can
/// arrive at 100 Hz, and journald drops floods. Time is a parameter.
///
/// With a `burst` above 1, up to that many lines per cause within any one interval: a
/// few calls a person makes one after the other each get their line, a loop's are
/// counted.
package struct RateLimiter: Sendable {
    package let interval: Double
    package let burst: Int
    /// Per cause, when its last `burst` lines went out, oldest first.
    private var last: [String: [Double]] = [:]
    private var suppressed: [String: Int] = [:]

    package init(interval: Double = 1, burst: Int = 1) {
        self.interval = interval
        self.burst = max(1, burst)
    }

    /// Whether to log `cause` now; when it returns true, `suppressedSinceLast` tells how
    /// many were held back since the previous line for that cause.
    package mutating func allow(_ cause: String, now: Double) -> (allowed: Bool, suppressedSinceLast: Int) {
        var times = last[cause] ?? []
        if times.count == burst, now - times[0] < interval {
            suppressed[cause, default: 0] += 1
            return (false, 0)
        }
        if times.count == burst { times.removeFirst() }
        times.append(now)
        last[cause] = times
        let held = suppressed.removeValue(forKey: cause) ?? 0
        return (true, held)
    }
}
