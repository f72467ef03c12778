import Motion

/// Counts to SI units, and whether the result is a reading at all: the one place where
/// validity is decided, for every driver (IIO polled and buffered, sysfs, input devices,
/// sibling gyroscopes). `sensor = (counts + offset) * scale` per axis (docs/TILT.md,
/// "Readings in m/s^2"; "With a gyroscope" for rates), in the sensor frame. A value that is no reading
/// becomes a `ReadProblem` naming the attributes and the counts, for one log line. Pure.
enum ReadingUnits {
    /// m/s^2: 32 g. Accelerometers in laptops and tablets are set to at most +-16 g per
    /// axis (27.7 g as a vector), so a larger reading did not come from the sensor's range:
    /// it is a corrupt value that still parsed (2147483647 counts on a 12-bit part). The
    /// check is here, at the device, because the attitude math is scale invariant on
    /// purpose (docs/TILT.md) and must stay so for any input it is given.
    static let implausibleAcceleration = 32 * 9.80665

    /// The attributes a rejected reading of an IIO device names (an input device's
    /// driver names its axes instead: `ABS_X,ABS_Y,ABS_Z`).
    static let accelerometerAttributes = "in_accel_x_raw,in_accel_y_raw,in_accel_z_raw"
    static let gyroscopeAttributes = "in_anglvel_x_raw,in_anglvel_y_raw,in_anglvel_z_raw"

    /// m/s^2 in the sensor frame, or why `counts` are no acceleration: not finite, zero,
    /// too large to compute (`SampleRejection`), or over 32 g. `attributes`: what the
    /// problem names as the source of the counts.
    static func acceleration(
        counts: Vector3, scale: Vector3, offset: Vector3,
        attributes: String = accelerometerAttributes
    ) -> Result<Vector3, ReadProblem> {
        let a = (counts + offset).scaled(by: scale)
        let why =
            SampleRejection.check(a).map { "\($0)" }
            ?? (a.length > implausibleAcceleration ? "implausible acceleration (over 32 g)" : nil)
        guard let why else { return .success(a) }
        return .failure(ReadProblem(attribute: attributes, value: text(counts), reason: why))
    }

    /// rad/s in the sensor frame, or why `counts` are no rate: not finite, or beyond any
    /// gyroscope's range (`SampleRejection.checkRate`).
    static func angularVelocity(
        counts: Vector3, scale: Vector3, offset: Vector3,
        attributes: String = gyroscopeAttributes
    ) -> Result<Vector3, ReadProblem> {
        let w = (counts + offset).scaled(by: scale)
        guard let why = SampleRejection.checkRate(w) else { return .success(w) }
        return .failure(ReadProblem(attribute: attributes, value: text(counts), reason: "\(why)"))
    }

    /// Counts as the log line shows them: "1 -2 1024".
    static func text(_ counts: Vector3) -> String {
        "\(counts.x.plainText) \(counts.y.plainText) \(counts.z.plainText)"
    }

    /// Three `in_CHANNEL_{x,y,z}_raw` texts as counts, or the first bad one (x, then y,
    /// then z).
    static func counts(channel: String, _ x: String, _ y: String, _ z: String) -> Result<Vector3, ReadProblem> {
        do throws(ReadProblem) {
            return .success(
                Vector3(
                    try value(channel, .x, x).get(), try value(channel, .y, y).get(),
                    try value(channel, .z, z).get()))
        } catch {
            return .failure(error)
        }
    }

    private static func value(_ channel: String, _ axis: Axis, _ text: String) -> Result<Double, ReadProblem> {
        SysfsNumber.parse(text).mapError { f in
            ReadProblem(
                attribute: "in_\(channel)_\(axis.rawValue)_raw", value: String(text[...].trimmingASCIIWhitespace()),
                reason: "\(f)")
        }
    }
}
