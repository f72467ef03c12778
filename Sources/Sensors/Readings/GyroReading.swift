import Motion

/// One reading of a gyroscope in a device of its own, in SI units: rad/s in the sensor
/// frame, its scale and offset applied and its validity decided by `ReadingUnits` (a bad
/// one is the driver's `ReadProblem` instead); in buffer mode the scan's timestamp (ns,
/// the device's `current_timestamp_clock`).
package struct GyroReading: Hashable, Sendable {
    package var radiansPerSecond: Vector3
    package var timestampNs: Int64?

    package init(radiansPerSecond: Vector3, timestampNs: Int64? = nil) {
        self.radiansPerSecond = radiansPerSecond
        self.timestampNs = timestampNs
    }
}
