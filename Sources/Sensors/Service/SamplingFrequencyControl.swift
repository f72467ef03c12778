import LinuxSystem
import Motion

/// `sampling_frequency`: the value that fits `Sensor.rate` written where the process may,
/// and what to put back on release (`FrequencyRestore`). For the accelerometer and the
/// gyroscope alike.
enum SamplingFrequencyControl {
    /// Writes the sampling frequency that fits `rateHz` (`SamplingFrequencyInfo.target`)
    /// where the process may; says what was done, and what to write back on release (the
    /// file, the text it had, the text written). Where another reader may be reading
    /// (`shared`) it is only ever raised (`BufferSharing.sharedTarget`).
    static func set(
        _ info: SamplingFrequencyInfo, rateHz: Double, syspath: String?, shared: Bool = false,
        write: (String, String) throws(SensorError) -> Void
    )
        -> (String, restore: FrequencyRestore?)
    {
        if info.availableListIsGarbage {
            let list = info.availableText.abbreviated
            return (
                "\(info.attribute) = \(info.currentText) kept: its _available list \"\(list)\" holds no frequency "
                    + "(\(info.unusableEntries.count) entries not a number above 0 and at most 100000 Hz)", nil
            )
        }
        let target: Double
        if shared {
            guard let t = BufferSharing.sharedTarget(info, rateHz: rateHz) else {
                return info.target(forRate: rateHz) == nil
                    ? (
                        "\(info.attribute) = \(info.currentText) already fits "
                            + "\(SamplingFrequencyInfo.text(rateHz)) Hz", nil
                    )
                    : (
                        "\(info.attribute) = \(info.currentText) kept: another reader may use the device, "
                            + "and it is never lowered under one", nil
                    )
            }
            target = t
        } else {
            guard let t = info.target(forRate: rateHz) else {
                return (
                    "\(info.attribute) = \(info.currentText) already fits "
                        + "\(SamplingFrequencyInfo.text(rateHz)) Hz", nil
                )
            }
            target = t
        }
        if let p = syspath, !SysfsAttributeFile.isWritable("\(p)/\(info.attribute)") {
            return ("\(info.attribute) = \(info.currentText) kept: not writable by this process", nil)
        }
        let text = SamplingFrequencyInfo.text(target)
        do {
            try write(info.attribute, text)
            // Why this value (the lowest available >= max(Sensor.rate, 10 Hz)) is the key's
            // documentation; the attach line only says what was done.
            return (
                "\(info.attribute) \(info.currentText) -> \(text) (restored on exit)",
                FrequencyRestore(file: info.attribute, text: info.currentText, written: text, syspath: syspath)
            )
        } catch {
            return ("\(info.attribute) = \(info.currentText) kept: \(error)", nil)
        }
    }

}
