import Motion

/// A HID sensor hub's change sensitivity at rest (`in_accel_hysteresis`,
/// hid-sensor-accel-3d): the value written, whether what the hub reads back is that value,
/// and whether the hub honours it. A hub that honours it sends nothing while the device
/// lies still; some do not (AMD SFH re-sends every 200 ms from the kernel's side), and
/// those are read on a timer instead. Pure: times are parameters, seconds.
package struct HysteresisCompliance: Sendable, Equatable {
    /// The sensitivity, in the HID field's unit (an accelerometer's is g, HID Usage Tables,
    /// Sensors page): an axis must move by 0.004 g, about 0.23 degree of tilt
    /// (asin 0.004), before the hub sends a scan. Smaller than any tilt the card draws
    /// as a move, large enough that a still device's noise does not pass it.
    package static let value = 0.004
    /// `value` as written to sysfs.
    package static let valueText = "0.004000"
    /// More wakeups with scans a second than this while still: the hub ignores its
    /// sensitivity.
    package static let maximumScansPerSecond = 0.5
    /// Seconds of rest over which the wakeups are counted before the hub is judged.
    package static let window = 4.0

    /// Whether `text`, read back after writing `value`, is that value: the hub may round
    /// to its own resolution, within a quarter of it; zero or anything larger is not it.
    package static func readsBack(_ text: String) -> Bool {
        guard let v = Double(text[...].trimmingASCIIWhitespace()), v.isFinite else { return false }
        return abs(v - value) <= 0.25 * value
    }

    /// The first wakeup with scans of the span being counted, and the wakeups since.
    private var first: Double?
    private var count = 0

    package init() {}

    /// The device came to rest (or moved again): counting starts over.
    package mutating func restart() {
        first = nil
        count = 0
    }

    /// A wakeup at rest that brought scans, at `now`. Returns the wakeups a second seen
    /// over at least `window` seconds when they are more than `maximumScansPerSecond`
    /// (the hub ignores its sensitivity), else nil.
    package mutating func scans(at now: Double) -> Double? {
        guard let t0 = first else {
            first = now
            count = 0
            return nil
        }
        count += 1
        let span = now - t0
        guard span >= Self.window else { return nil }
        let rate = Double(count) / span
        first = now
        count = 0
        return rate > Self.maximumScansPerSecond ? rate : nil
    }
}
