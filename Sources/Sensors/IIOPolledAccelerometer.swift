import IIO
import Motion

/// Poll mode: reads `in_accel_{x,y,z}_raw` through libiio (`iio_channel_attr_read`)
/// each time it is asked, at `Sensor.rate`. Works for local and remote contexts.
package final class IIOPolledAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "poll" }
    package var readsGyroscope: Bool { gyro != nil }
    private let iio: Device
    private let axes: [Channel]
    /// The same device's gyroscope, read with each reading (a combined IMU).
    private let gyro: IIOPolledGyroscope?

    /// - Parameter gyro: the device's own gyroscope to read with each reading, if paired.
    package init(device: AccelerometerDescription, context: Context, gyro: GyroscopeDescription? = nil) throws(SensorError) {
        self.device = device
        (iio, axes) = try Self.rawChannels(device.id, ["accel_x", "accel_y", "accel_z"], in: context,
                                           deviceName: device.displayName)
        self.gyro = try gyro.map { g throws(SensorError) in try IIOPolledGyroscope(device: g, context: context) }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        guard let x = rawText(0, &events), let y = rawText(1, &events), let z = rawText(2, &events) else { return }
        switch RawReading.parse(x: x, y: y, z: z) {
        case .success(var r):
            if let gyro {
                switch gyro.read() {
                case .success(let w): r.gyroRaw = w
                case .failure(let p): events.append(.gyroProblem(p))
                }
            }
            events.append(.reading(r))
        case .failure(let p):
            events.append(.problem(p))
        }
    }

    /// Axis `i`'s `raw` text; nil, with the problem appended, when the read fails.
    private func rawText(_ i: Int, _ events: inout [DriverEvent]) -> String? {
        do { return try axes[i].readAttribute("raw") } catch {
            events.append(.problem(ReadProblem(attribute: "in_accel_\(["x", "y", "z"][i])_raw", value: ReadProblem.readFailed,
                                               reason: "\(error)")))
            return nil
        }
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: device.displayName)
    }

    package func close() {}
}

extension IIOPolledAccelerometer {
    /// The libiio device `id` and its channels `ids`, each of which must have a `raw`
    /// attribute (poll mode reads `in_<channel>_raw`).
    static func rawChannels(_ id: String, _ ids: [String], in context: Context, deviceName: String)
        throws(SensorError) -> (Device, [Channel])
    {
        guard let d = context.device(named: id) else {
            throw SensorError(device: deviceName, "not in the libiio context \(context.uri)")
        }
        var channels: [Channel] = []
        for c in ids {
            guard let ch = d.channel(c), ch.attributeNames.contains("raw") else {
                throw SensorError(device: deviceName, "libiio shows no raw attribute on channel \(c)")
            }
            channels.append(ch)
        }
        return (d, channels)
    }
}

/// Writes a sysfs attribute through libiio given its file name: a device attribute by
/// name, else the channel attribute whose `iio_channel_attr_get_filename()` matches.
enum IIOAttributeWriter {
    static func write(_ d: Device, file: String, value: String, deviceName: String) throws(SensorError) {
        do {
            if d.attributeNames.contains(file) {
                try d.writeAttribute(file, value)
                return
            }
            for c in d.channels {
                for a in c.attributeNames where c.fileName(ofAttribute: a) == file {
                    try c.writeAttribute(a, value)
                    return
                }
            }
        } catch {
            throw SensorError(device: deviceName, "cannot write \(file) = \(value): \(error)")
        }
        throw SensorError(device: deviceName, "libiio shows no attribute \(file)")
    }
}
