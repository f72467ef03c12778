import LinuxSystem

/// An input poller's interval: a driver without interrupts (lis3lv02d) has the input core
/// read it every `poll` milliseconds (drivers/input/input-poller.c), which the input
/// device's sysfs attributes `poll` (read-write), `min` and `max` (read-only) show, and
/// which the kernel refuses outside [min, max] (EINVAL). `Sensor.rate` is taken through
/// it. Pure.
package struct InputPollInterval: Hashable, Sendable {
    /// Milliseconds now, and the kernel's bounds.
    package var currentMs: Int
    package var minMs: Int?
    package var maxMs: Int?

    /// From the input device's attributes (`poll`, `min`, `max`); nil without `poll`.
    package init?(attribute: (String) -> String?) {
        guard let current = attribute("poll").flatMap({ Int($0) }), current >= 0 else { return nil }
        currentMs = current
        minMs = attribute("min").flatMap { Int($0) }
        maxMs = attribute("max").flatMap { Int($0) }
    }

    package init(currentMs: Int, minMs: Int?, maxMs: Int?) {
        self.currentMs = currentMs
        self.minMs = minMs
        self.maxMs = maxMs
    }

    /// The interval for `rateHz` readings a second: 1000 / rate, rounded, within the
    /// kernel's bounds and at least 1 ms; nil when the current one is that already.
    /// Where another reader may use the device (`shared`) it is only ever shortened.
    package func target(forRate rateHz: Double, shared: Bool = false) -> Int? {
        guard rateHz.isFinite, rateHz > 0 else { return nil }
        var ms = max(1, Int((1000 / rateHz).rounded()))
        if let lo = minMs { ms = max(ms, lo) }
        if let hi = maxMs, hi > 0 { ms = min(ms, hi) }
        if ms == currentMs || (shared && ms > currentMs) { return nil }
        return ms
    }

    /// Readings a second at `ms`.
    static func hz(_ ms: Int) -> String {
        guard ms > 0 else { return "?" }
        let hz = 1000 / Double(ms)
        return hz == hz.rounded() ? "\(Int(hz))" : String(Double(Int(hz * 10)) / 10)
    }

    /// Writes the interval that fits `rateHz` where the process may; says what was done,
    /// and what to put back on release. `syspath`: the input device's directory.
    static func set(
        _ p: InputPollInterval, rateHz: Double, syspath: String, shared: Bool,
        write: (String, String) throws(SensorError) -> Void
    ) -> (String, restore: FrequencyRestore?) {
        guard let ms = p.target(forRate: rateHz, shared: shared) else {
            return (
                shared && p.target(forRate: rateHz) != nil
                    ? "poll = \(p.currentMs) ms kept: another reader may use the device, and "
                        + "it is never lengthened under one"
                    : "poll = \(p.currentMs) ms (\(hz(p.currentMs)) Hz) already fits Sensor.rate", nil
            )
        }
        guard SysfsAttributeFile.isWritable(syspath + "/poll") else {
            return ("poll = \(p.currentMs) ms kept: not writable by this process", nil)
        }
        do {
            try write("poll", String(ms))
            return (
                "poll \(p.currentMs) -> \(ms) ms (\(hz(ms)) Hz, the input poller's "
                    + "interval); restored on exit unless "
                    + "changed meanwhile",
                FrequencyRestore(
                    file: "poll", text: String(p.currentMs), written: String(ms),
                    syspath: syspath)
            )
        } catch {
            return ("poll = \(p.currentMs) ms kept: \(error)", nil)
        }
    }
}
