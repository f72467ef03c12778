/// Puts the readings of one wakeup on the caller's clock (seconds), in time order. Pure.
///
/// Buffered scans carry the device's own timestamp (ns, `current_timestamp_clock`, or a
/// HID hub's own clock), which is not the caller's clock; only differences between
/// timestamps of the same clock mean something. So the device's clock is tied to the
/// caller's by the least delay seen between a scan's timestamp and the wakeup that read
/// it (`offset`): a wakeup that comes late, on a busy machine, does not make its scans
/// late, and a batch read in a burst keeps the times its scans were taken at. Every scan
/// is placed at its timestamp plus that offset, and the fusion integrates each rate over
/// the time it was measured (docs/TILT.md, "With a gyroscope"), whenever it was read. The
/// offset may creep up by `drift` seconds a second (the two clocks' rates differ by far
/// less than that), and it is tied again at once when the device's clock jumps back by `spanLimit`
/// or more (a device that restarted it) or when the accelerometer's newest scan is no
/// newer than the last wakeup's (a clock that stands still says nothing of when its scans
/// were taken; the accelerometer's, because a sibling gyroscope's scans read with the last
/// wakeup may be newer than this one's accelerometer scans). An accelerometer scan and
/// its sibling gyroscope's scans in between keep their order and spacing.
///
/// A reading without a timestamp (poll mode), or one `spanLimit` or more before the
/// newest of its wakeup (a corrupt timestamp), is placed at `now`. Times never go back:
/// one placed before a time already given is given that time again. Nor do they pass
/// `now`.
package struct ReadingTimeline: Sendable {
    /// The last time given: times never go back.
    private var last = -Double.infinity
    /// Seconds: scans further apart than this in one wakeup are not dated back, and a
    /// device clock that jumps back by this much is tied to the caller's again.
    package static let spanLimit = 2.0
    /// Seconds per second the offset may grow by (1000 ppm).
    package static let drift = 1e-3
    private var now = 0.0
    private var newestNs: Int64?
    /// Where the newest scan of the wakeup goes: its timestamp plus the offset, at most `now`.
    private var newestAt = 0.0
    /// Seconds: the caller's clock minus the device's, at the least delay seen, and when.
    private var offset: Double?
    private var offsetAt = 0.0
    /// The newest accelerometer timestamp of the last wakeup that had one.
    private var lastAccelerometerNs: Int64?

    package init() {}

    /// A new wakeup at `now` whose newest scan has the timestamp `newestNs` (nil: none
    /// of its readings has one); `accelerometerNs`: the newest of its accelerometer scans
    /// (nil: none came, a sibling gyroscope's wakeup).
    package mutating func begin(now: Double, newestNs: Int64?, accelerometerNs: Int64? = nil) {
        self.now = now
        self.newestNs = newestNs
        newestAt = now
        guard let ns = newestNs else { return }
        let candidate = now - Double(ns) / 1e9
        let standsStill = accelerometerNs.map { a in lastAccelerometerNs.map { a <= $0 } ?? false } ?? false
        if let o = offset, !standsStill {
            let crept = o + Self.drift * max(0, now - offsetAt)
            offset = candidate > crept + Self.spanLimit ? candidate : min(candidate, crept)
        } else {
            offset = candidate
        }
        offsetAt = now
        if let a = accelerometerNs { lastAccelerometerNs = a }
        newestAt = min(now, Double(ns) / 1e9 + offset!)
    }

    /// The time of a reading with the timestamp `ns` (nil: read at `now`).
    package mutating func time(ofNs ns: Int64?) -> Double {
        var t = now
        if let ns, let newest = newestNs {
            // Wrapping: timestamps that are nonsense must not trap; the clamp below
            // keeps any result in order.
            let back = Double(newest &- ns) / 1e9
            if back < Self.spanLimit { t = newestAt - back }
        }
        t = min(now, max(last, t))
        last = t
        return t
    }
}
