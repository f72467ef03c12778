import IIO
import Motion

/// Poll mode: reads `in_accel_{x,y,z}_raw` through libiio (`iio_channel_attr_read`)
/// each time it is asked, at `Sensor.rate`. Works for local and remote contexts.
package final class IIOPolledAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "poll" }
    private let iio: Device
    private let axes: [Channel]

    package init(device: AccelerometerDescription, context: Context) throws(SensorError) {
        self.device = device
        guard let d = context.device(named: device.id) else {
            throw SensorError(device: device.displayName, "not in the libiio context \(context.uri)")
        }
        iio = d
        var axes: [Channel] = []
        for id in ["accel_x", "accel_y", "accel_z"] {
            guard let c = d.channel(id), c.attributeNames.contains("raw") else {
                throw SensorError(device: device.displayName, "libiio shows no raw attribute on channel \(id)")
            }
            axes.append(c)
        }
        self.axes = axes
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        guard let x = rawText(0, &events), let y = rawText(1, &events), let z = rawText(2, &events) else { return }
        events.append(RawReading.parse(x: x, y: y, z: z).driverEvent)
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
