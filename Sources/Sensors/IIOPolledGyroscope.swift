import IIO
import Motion

/// Reads `in_anglvel_{x,y,z}_raw` through libiio (`iio_channel_attr_read`): the
/// gyroscope of an accelerometer's own device in poll mode, or a sibling gyroscope (a
/// HID sensor hub's `gyro_3d` beside its `accel_3d`) read alongside each accelerometer
/// reading, so both describe the same instant.
package final class IIOPolledGyroscope: GyroscopeDriver {
    package let device: GyroscopeDescription
    package var modeName: String { "poll" }
    private let iio: Device
    private let axes: [Channel]

    package init(device: GyroscopeDescription, context: Context) throws(SensorError) {
        self.device = device
        (iio, axes) = try IIOPolledAccelerometer.rawChannels(device.id, ["anglvel_x", "anglvel_y", "anglvel_z"], in: context,
                                                             deviceName: device.displayName)
    }

    /// The three counts, or the first attribute that could not be read or parsed.
    package func read() -> Result<Vector3, ReadProblem> {
        var texts: (String, String, String) = ("", "", "")
        for i in 0..<3 {
            let text: String
            do { text = try axes[i].readAttribute("raw") } catch {
                return .failure(ReadProblem(attribute: "in_anglvel_\(["x", "y", "z"][i])_raw", value: ReadProblem.readFailed,
                                            reason: "\(error)"))
            }
            switch i {
            case 0: texts.0 = text
            case 1: texts.1 = text
            default: texts.2 = text
            }
        }
        return RawReading.parseCounts(channel: "anglvel", texts.0, texts.1, texts.2)
    }

    package func read(into readings: inout [GyroReading], problems: inout [ReadProblem]) {
        switch read() {
        case .success(let w): readings.append(GyroReading(raw: w))
        case .failure(let p): problems.append(p)
        }
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: device.displayName)
    }

    package func close() {}
}
