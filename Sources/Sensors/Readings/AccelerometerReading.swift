import Motion

/// One accelerometer reading as a driver hands it over, in SI units:
/// m/s^2 in the sensor frame, the device's scale and offset applied and its validity
/// decided by `ReadingUnits`. The mount matrix and `Sensor.invert` come after
/// (`SampleConditioner`).
package struct AccelerometerReading: Hashable, Sendable {
    /// m/s^2, sensor frame; or why the values are no acceleration (naming the counts).
    package var acceleration: Result<Vector3, ReadProblem>
    /// The scan's own timestamp (ns, the device's `current_timestamp_clock`), buffer mode;
    /// an input device's report time.
    package var timestampNs: Int64?
    /// The device's own gyroscope read with it (a combined IMU's scan or its
    /// `in_anglvel_*_raw`, an input device's ABS_RX/RY/RZ): rad/s, sensor frame, or why
    /// the values are no rate; nil when the driver reads none.
    package var angularVelocity: Result<Vector3, ReadProblem>?

    package init(
        acceleration: Result<Vector3, ReadProblem>, timestampNs: Int64? = nil,
        angularVelocity: Result<Vector3, ReadProblem>? = nil
    ) {
        self.acceleration = acceleration
        self.timestampNs = timestampNs
        self.angularVelocity = angularVelocity
    }
}
