import IIO
import Motion

/// Reads `in_anglvel_{x,y,z}_raw` (from sysfs in a local context, else through libiio's
/// `iio_channel_attr_read`; `RawAttributes`): the
/// gyroscope of an accelerometer's own device in poll mode, or a sibling gyroscope (a
/// HID sensor hub's `gyro_3d` beside its `accel_3d`) read alongside each accelerometer
/// reading, so both describe the same instant.
package final class IIOPolledGyroscope: GyroscopeDriver {
    package let device: GyroscopeDescription
    package var mode: DriverMode { .poll }
    private let iio: Device
    private let axes: RawAttributes

    package init(device: GyroscopeDescription, context: Context) throws(SensorError) {
        self.device = device
        let channels: [Channel]
        (iio, channels) = try IIOPolledAccelerometer.rawChannels(
            device.id, ["anglvel_x", "anglvel_y", "anglvel_z"],
            in: context, deviceName: device.displayName)
        axes = RawAttributes(iio, channels)
    }

    /// The three counts, or the first attribute that could not be read or parsed.
    package func read() -> Result<Vector3, ReadProblem> {
        axes.counts(channel: "anglvel").flatMap { c in
            ReadingUnits.angularVelocity(counts: c, scale: device.scale, offset: device.offset)
        }
    }

    package func read(into readings: inout [GyroReading], problems: inout [ReadProblem]) {
        switch read() {
        case .success(let w): readings.append(GyroReading(radiansPerSecond: w))
        case .failure(let p): problems.append(p)
        }
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: device.displayName)
    }

    package func close() {}
}
