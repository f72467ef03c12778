import LinuxSystem
import Motion

/// A sampling frequency shimmerd wrote, to be put back on release: the file, the text it
/// had and the text written. It is put back only while the file still holds what was
/// written: a rate someone else set since (iio-sensor-proxy, a user) is theirs.
package struct FrequencyRestore: Sendable {
    package var file: String
    package var text: String
    package var written: String
    /// The device's sysfs directory; nil for a remote device (then always put back).
    package var syspath: String?

    /// Writes the old text back, unless the file changed meanwhile: then returns why it
    /// was left as it is.
    func putBack(write: (String, String) throws(SensorError) -> Void) throws(SensorError) -> String? {
        if let why = changedMeanwhile { return "\(file) left as it is: \(why)" }
        do { try write(file, text) } catch {
            throw SensorError(device: error.device, "cannot restore \(file) = \(text): \(error.message)")
        }
        return nil
    }

    /// Nil when it may be put back; else why not.
    private var changedMeanwhile: String? {
        guard let p = syspath, let now = SysfsAttributeFile.value("\(p)/\(file)") else { return nil }
        if now == written { return nil }
        // The kernel may print what was written in its own form (62.5 -> 62.500000).
        if let a = try? SysfsNumber.parse(now).get(), let b = try? SysfsNumber.parse(written).get(), abs(a - b) < 1e-6 {
            return nil
        }
        return "it was set to \(now) since shimmerd wrote \(written)"
    }
}
