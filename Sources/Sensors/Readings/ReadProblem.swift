/// A value the driver could not turn into a reading: which attribute, what text, why.
package struct ReadProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The sysfs attribute or node, e.g. `in_accel_x_raw`, `/dev/iio:device0`.
    package var attribute: String
    /// The text read, or the error.
    package var value: String
    package var reason: String
    /// Identifies the cause for rate limiting: attribute plus the kind of failure.
    package var cause: String { "\(attribute)|\(reason)" }

    package init(attribute: String, value: String, reason: String) {
        self.attribute = attribute
        self.value = value
        self.reason = reason
    }

    package var description: String { "\(attribute) = \"\(value)\": \(reason)" }

    /// `value` of a read that failed (the device or the connection), not a bad value.
    package static let readFailed = "read error"
    /// `value` of a buffer that could not be opened again.
    package static let openFailed = "open error"

    /// A read of `attribute` that failed with `error` (the device or the connection).
    package static func failedRead(of attribute: String, _ error: some Error) -> ReadProblem {
        ReadProblem(attribute: attribute, value: readFailed, reason: "\(error)")
    }

    /// The read itself failed, rather than giving a value that does not parse.
    package var isReadFailure: Bool { value == Self.readFailed || value == Self.openFailed }
}
