import Motion

/// An accelerometer's counts -> m/s^2 in the device frame (scale, offset, mount matrix,
/// `Sensor.invert`), or why the reading is unusable. Pure.
struct SampleConditioner: Sendable {
    private let calibration: AccelCalibration

    init(calibration: AccelCalibration) {
        self.calibration = calibration
    }

    /// m/s^2: 32 g. Accelerometers in laptops and tablets are set to at most +-16 g per
    /// axis (27.7 g as a vector), so a larger reading did not come from the sensor's range:
    /// it is a corrupt value that still parsed (2147483647 counts on a 12-bit part). The
    /// check is here, at the device, because the attitude math is scale invariant on
    /// purpose (attitude.md) and must stay so for any input it is given.
    static let implausibleAcceleration = 32 * 9.80665

    /// The attributes a rejected reading names.
    static let attributes = "in_accel_x_raw,in_accel_y_raw,in_accel_z_raw"

    func acceleration(raw: Vector3) -> Result<Vector3, ReadProblem> {
        let a = calibration.acceleration(raw: raw)
        let why = SampleRejection.check(a).map { "\($0)" }
            ?? (a.length > Self.implausibleAcceleration ? "implausible acceleration (over 32 g)" : nil)
        guard let why else { return .success(a) }
        return .failure(ReadProblem(attribute: Self.attributes, value: Self.text(raw), reason: why))
    }

    /// Counts as the log line shows them: "1 -2 1024".
    static func text(_ raw: Vector3) -> String {
        "\(raw.x.plainText) \(raw.y.plainText) \(raw.z.plainText)"
    }
}
