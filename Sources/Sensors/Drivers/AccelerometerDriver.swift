import Motion

/// How a driver reads its device, as the attach line, the bus (`SensorMode`) and the
/// trace's header name it.
package enum DriverMode: String, Sendable, Equatable, CustomStringConvertible {
    /// A sysfs `in_accel_*_raw` read through libiio at every sample (also a gyroscope's).
    case poll
    /// The device's IIO buffer, scans read from its node.
    case buffer
    /// The sysfs attributes read directly, without libiio.
    case sysfsPoll = "sysfs-poll"
    /// An input device's event node (evdev).
    case input

    package var description: String { rawValue }
}

/// An accelerometer driver: one file per driver, state in the
/// instance, readings handed over in SI units with their validity decided (`ReadingUnits`).
package protocol AccelerometerDriver: AnyObject {
    var device: AccelerometerDescription { get }
    /// How it reads the device.
    var mode: DriverMode { get }
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
    /// A descriptor that becomes readable when the device reports something new, waited on
    /// while the device lies still (`RestWatch`: an input device's event node, a buffer's
    /// node); nil when a still device must be read on a timer.
    var restDescriptor: Int32? { get }
    /// The readings carry the device's own gyroscope (`AccelerometerReading.angularVelocity`).
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
    package var restDescriptor: Int32? { pollDescriptor }
    package var readsGyroscope: Bool { false }
    package var maximumReadingsPerRead: Int { 1 }
    package var longestReadInterval: Double? { nil }
}
