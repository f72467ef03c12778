import CIIO

/// A failed libiio call: which operation, on what, and the errno it reported.
package struct IIOError: Error, Sendable, CustomStringConvertible {
    /// The libiio function, e.g. `iio_channel_attr_read`.
    package let operation: String
    /// What it was applied to, e.g. `iio:device0/accel_x/raw` or a URI.
    package let target: String
    /// The positive errno value.
    package let code: Int32

    /// Text from `iio_strerror()`.
    package var message: String {
        var buf = [CChar](repeating: 0, count: 256)
        iio_strerror(code, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package var description: String { "\(operation)(\(target)): \(message) (errno \(code))" }
}
