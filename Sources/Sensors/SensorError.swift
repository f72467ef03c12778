/// A sensor-level failure with its context: which device (or selector), what went
/// wrong. The layer above decides whether it is fatal (startup with an explicit
/// selector: exit 69) or a log line (at runtime).
package struct SensorError: Error, Sendable, CustomStringConvertible {
    /// `iio:device0 (kxtf9)`, a selector, or a URI.
    package let device: String
    package let message: String
    /// The errno behind it where the layer above acts on it (EBUSY on opening a device
    /// node another program holds), else nil.
    package let errno: Int32?

    package init(device: String, _ message: String, errno: Int32? = nil) {
        self.device = device
        self.message = message
        self.errno = errno
    }

    package var description: String { "\(device): \(message)" }
}
