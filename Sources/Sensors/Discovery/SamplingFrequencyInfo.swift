import Motion

/// A device's sampling frequency: which attribute holds it, its value and the values
/// the driver offers.
package struct SamplingFrequencyInfo: Hashable, Sendable {
    /// `in_accel_sampling_frequency` (`in_anglvel_...` for a gyroscope) or `sampling_frequency`.
    package var attribute: String
    package var currentText: String
    package var currentHz: Double?
    package var availableHz: [Double]
    /// Entries of the `_available` list that are no frequency (not a number, not above 0,
    /// or above `highestHz`), as the driver wrote them; a garbage list is never obeyed.
    package var unusableEntries: [String] = []
    /// The `_available` attribute's text, for the log line.
    package var availableText = ""

    /// Hz: no IIO accelerometer or gyroscope samples faster (the fastest parts: 6.4 kHz).
    package static let highestHz = 100_000.0

    /// - Parameter channel: `accel` or `anglvel`: whose per-type attribute wins over the
    ///   device's shared one.
    init?(snapshot s: AttributeSnapshot, channel: String = "accel") {
        guard
            let attr = ["in_\(channel)_sampling_frequency", "sampling_frequency"].first(where: {
                s.attributes[$0] != nil
            }),
            let text = s.text(attr)
        else { return nil }
        attribute = attr
        currentText = text
        currentHz = try? SysfsNumber.parse(text).get()
        let list = s.text("in_\(channel)_sampling_frequency_available") ?? s.text("sampling_frequency_available") ?? ""
        availableText = list
        var usable: [Double] = []
        for entry in list.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            if let v = try? SysfsNumber.parse(entry).get(), v > 0, v <= Self.highestHz {
                usable.append(v)
            } else {
                unusableEntries.append(String(entry))
            }
        }
        availableHz = usable.sorted()
    }

    /// True when the driver offers a list but none of it is a frequency: nothing is
    /// written then (the wanted rate might be one the part does not take).
    package var availableListIsGarbage: Bool { availableHz.isEmpty && !unusableEntries.isEmpty }

    /// The value to write for a wanted rate: the lowest available value at or above
    /// `max(wanted, 10 Hz)`, else the highest available one; without a list, the wanted
    /// rate itself. Nil when the current value already fits.
    package func target(forRate wantedHz: Double) -> Double? {
        guard !availableListIsGarbage else { return nil }
        let want = max(wantedHz, AccelerometerSettings.minimumHardwareRateHz)
        let choice: Double
        if availableHz.isEmpty {
            choice = want
        } else if let v = availableHz.first(where: { $0 >= want }) {
            choice = v
        } else {
            choice = availableHz.last!
        }
        if let c = currentHz, abs(c - choice) < 1e-6 { return nil }
        return choice
    }

    /// C-locale text of a frequency, as the kernel's `%d.%06u` parser accepts it.
    package static func text(_ hz: Double) -> String {
        if hz == hz.rounded() { return String(Int(hz)) }
        let micro = Int((hz * 1_000_000).rounded())
        let frac = String(micro % 1_000_000)
        return "\(micro / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }
}
