import Motion

/// Raw counts of the three axes in the sensor frame, as read from the device.
package struct RawReading: Hashable, Sendable {
    package var raw: Vector3
    /// The scan's own timestamp (ns, the device's `current_timestamp_clock`), buffer mode.
    package var timestampNs: Int64?
    /// The gyroscope's raw counts read with it (a combined IMU's scan, or its
    /// `in_anglvel_*_raw`), when the driver reads one.
    package var gyroRaw: Vector3?

    package init(raw: Vector3, timestampNs: Int64? = nil, gyroRaw: Vector3? = nil) {
        self.raw = raw
        self.timestampNs = timestampNs
        self.gyroRaw = gyroRaw
    }
}

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

    /// The read itself failed, rather than giving a value that does not parse.
    package var isReadFailure: Bool { value == Self.readFailed || value == Self.openFailed }
}

/// One outcome of a driver read.
package enum DriverEvent: Sendable {
    case reading(RawReading)
    case problem(ReadProblem)
    /// The gyroscope's part of a reading could not be used (the reading itself is fine).
    case gyroProblem(ReadProblem)
    /// An informational note (e.g. a buffer reopened).
    case note(String)
    /// Readings were lost and the device's state was read again (an input device's
    /// `SYN_DROPPED`): why. The readings that follow start from that state.
    case resynchronised(String)
}

/// An accelerometer driver (STYLE.md guideline 5): one file per driver, state in the
/// instance, readings in counts with the calibration alongside.
package protocol AccelerometerDriver: AnyObject {
    var device: AccelerometerDescription { get }
    /// `poll`, `buffer`, `sysfs-poll`, `simulated`.
    var modeName: String { get }
    /// Reads what is available now (poll: one reading; buffer: the newest scan of those
    /// waiting, plus problems) and appends it to `events`: a caller that keeps the array
    /// between reads (removing its elements, keeping its capacity) allocates nothing.
    func read(at now: Double, into events: inout [DriverEvent])
    /// Writes a sysfs attribute of the device by file name (`sampling_frequency`).
    func writeAttribute(_ file: String, _ value: String) throws(SensorError)
    /// Releases the device (disables the buffer, puts back the trigger it replaced).
    /// Idempotent. Throws when something could not be put back; the device is released
    /// all the same.
    func close() throws(SensorError)
    /// A descriptor that becomes readable when a `read` has something new (buffer mode:
    /// the device node, at the kernel's watermark); nil when reads must be timed.
    var pollDescriptor: Int32? { get }
    /// The readings carry the device's own gyroscope (`RawReading.gyroRaw`).
    var readsGyroscope: Bool { get }
    /// The most readings one `read` appends (a buffer of a combined IMU: every scan the
    /// kernel holds), so that callers can keep room for them.
    var maximumReadingsPerRead: Int { get }
    /// Seconds: reads must come at least this often or the device's readings are lost
    /// (an input device's kernel buffer); nil when nothing is lost by waiting.
    var longestReadInterval: Double? { get }
}

extension AccelerometerDriver {
    package var pollDescriptor: Int32? { nil }
    package var readsGyroscope: Bool { false }
    package var maximumReadingsPerRead: Int { 1 }
    package var longestReadInterval: Double? { nil }
}

extension RawReading {
    /// Parses three raw attribute texts, reporting the first bad one (x, then y, then z).
    static func parse(x: String, y: String, z: String) -> Result<RawReading, ReadProblem> {
        parseCounts(channel: "accel", x, y, z).map { RawReading(raw: $0) }
    }

    /// Three `in_CHANNEL_{x,y,z}_raw` texts as counts, or the first bad one.
    static func parseCounts(channel: String, _ x: String, _ y: String, _ z: String) -> Result<Vector3, ReadProblem> {
        do throws(ReadProblem) {
            return .success(Vector3(try value(channel, .x, x).get(), try value(channel, .y, y).get(),
                                    try value(channel, .z, z).get()))
        } catch {
            return .failure(error)
        }
    }

    private static func value(_ channel: String, _ axis: Axis, _ text: String) -> Result<Double, ReadProblem> {
        SysfsNumber.parse(text).mapError { f in
            ReadProblem(attribute: "in_\(channel)_\(axis.rawValue)_raw", value: String(text[...].trimmingASCIIWhitespace()),
                        reason: "\(f)")
        }
    }
}

extension Result<RawReading, ReadProblem> {
    /// The reading, or the problem, as a driver reports it.
    var driverEvent: DriverEvent {
        switch self {
        case .success(let r): .reading(r)
        case .failure(let p): .problem(p)
        }
    }
}
