/// Severity of a sensor message (maps onto sd-daemon priorities in the caller).
package enum SensorLogLevel: Int, Sendable, Comparable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    package static func < (a: Self, b: Self) -> Bool { a.rawValue > b.rawValue }
}

/// Where Sensors sends its messages; the runtime adapts it to its Logger. The
/// metadata keys are dotted (`sensor.device`, `sensor.attribute`, `sensor.value`).
package typealias SensorLog = (_ level: SensorLogLevel, _ message: String, _ metadata: [String: String]) -> Void

/// At most one message per cause per interval (README "Sensors": "at most once a second per
/// cause"). Time is a parameter, seconds.
package struct RateLimitedLog {
    package let interval: Double
    private var last: [String: Double] = [:]
    private var suppressed: [String: Int] = [:]

    package init(interval: Double = 1.0) { self.interval = interval }

    /// Whether a message for `cause` may be emitted at `now`, and how many were
    /// suppressed since the last one.
    package mutating func admit(_ cause: String, at now: Double) -> (admitted: Bool, suppressed: Int) {
        if let t = last[cause], now - t < interval {
            suppressed[cause, default: 0] += 1
            return (false, 0)
        }
        last[cause] = now
        let n = suppressed.removeValue(forKey: cause) ?? 0
        return (true, n)
    }
}
