/// A sensor-level failure with its context: which device (or selector), what went
/// wrong. The layer above decides whether it is fatal (startup with an explicit
/// selector: exit 69) or a log line (at runtime).
package struct SensorError: Error, Sendable, CustomStringConvertible {
    /// `iio:device0 (kxtf9)`, a selector, or a URI.
    package let device: String
    package let message: String

    package init(device: String, _ message: String) {
        self.device = device
        self.message = message
    }

    package var description: String { "\(device): \(message)" }
}
