/// Puts the readings of one wakeup on the caller's clock (seconds), in time order. Pure.
///
/// Buffered scans carry the device's own timestamp (ns, `current_timestamp_clock`, or a
/// HID hub's own clock), which is not the caller's clock; only differences between
/// timestamps of the same clock mean something. So the newest scan of the wakeup is
/// placed at the wakeup (`now`: it came no later than that) and every other scan
/// before it by the difference of their timestamps: the scans of a batch read late are
/// still 10 ms apart, an accelerometer scan and its sibling gyroscope's scans in between
/// keep their order and spacing, and the fusion integrates each rate over the time it was
/// measured (attitude.md section 9). A reading without a timestamp (poll mode), or one
/// `spanLimit` or more before the newest (a device that restarted its clock, a corrupt
/// timestamp), is placed at `now`.
///
/// Times never go back: one placed before a time already given (a wakeup that came early,
/// or timestamps that disagree by more than a batch) is given that time again. Nor do
/// they pass `now`.
package struct ReadingTimeline: Sendable {
    /// The last time given: times never go back.
    package private(set) var last = -Double.infinity
    /// Seconds: scans further apart than this in one wakeup are not dated back.
    package static let spanLimit = 2.0
    private var now = 0.0
    private var newestNs: Int64?

    package init() {}

    /// A new wakeup at `now` whose newest scan has the timestamp `newestNs` (nil: none
    /// of its readings has one).
    package mutating func begin(now: Double, newestNs: Int64?) {
        self.now = now
        self.newestNs = newestNs
    }

    /// The time of a reading with the timestamp `ns` (nil: read at `now`).
    package mutating func time(ofNs ns: Int64?) -> Double {
        var t = now
        if let ns, let newest = newestNs {
            // Wrapping: timestamps that are nonsense must not trap; the clamp below
            // keeps any result in order.
            let back = Double(newest &- ns) / 1e9
            if back < Self.spanLimit { t = now - back }
        }
        t = min(now, max(last, t))
        last = t
        return t
    }
}
