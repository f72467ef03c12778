import Motion

/// A gyroscope read beside the accelerometer from a device of its own (a HID sensor hub's
/// `gyro_3d` beside its `accel_3d`, or one named by `Sensor.gyro`), in the accelerometer's
/// mode where it can be: polled with each accelerometer reading
/// (`IIOPolledGyroscope`), or, while the accelerometer is read from its buffer, from its
/// own buffer (`IIOBufferedGyroscope`). A combined IMU's gyroscope is read by the
/// accelerometer's driver instead (`AccelerometerDriver.readsGyroscope`).
package protocol GyroscopeDriver: AnyObject {
    var device: GyroscopeDescription { get }
    /// `poll` or `buffer`.
    var mode: DriverMode { get }
    /// Appends what there is now, oldest first: poll, one reading; buffer, every scan
    /// waiting. A caller that keeps the arrays between reads (removing their elements,
    /// keeping their capacity) allocates nothing.
    func read(into readings: inout [GyroReading], problems: inout [ReadProblem])
    /// Readable when a buffer read has something new; nil when reads must be timed.
    var pollDescriptor: Int32? { get }
    /// The most readings one `read` gives (poll: 1; buffer: the kernel buffer's length),
    /// for the caller to reserve once.
    var maximumReadingsPerRead: Int { get }
    /// Writes a sysfs attribute of the device by file name (`in_anglvel_sampling_frequency`).
    func writeAttribute(_ file: String, _ value: String) throws(SensorError)
    /// Releases the device (disables the buffer, puts back the trigger). Idempotent.
    func close() throws(SensorError)
}

extension GyroscopeDriver {
    package var pollDescriptor: Int32? { nil }
    package var maximumReadingsPerRead: Int { 1 }
}
