import Motion

/// An accelerometer reading (m/s^2, sensor frame, already valid: `ReadingUnits`) in the
/// device frame: the mount matrix, then the sign flip of `Sensor.invert`. Pure.
struct SampleConditioner: Sendable {
    /// The mount matrix and `Sensor.invert`, with unit scale and no offset: the driver
    /// applied the device's own.
    private let frame: AccelCalibration

    init(mountMatrix: MountMatrix, invert: Bool) {
        frame = AccelCalibration(scale: Vector3(1, 1, 1), mountMatrix: mountMatrix, invert: invert)
    }

    /// m/s^2 in the device frame.
    func acceleration(sensor a: Vector3) -> Vector3 { frame.acceleration(raw: a) }
}
