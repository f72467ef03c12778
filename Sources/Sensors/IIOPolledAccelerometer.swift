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

    package func read(at now: Double) -> [DriverEvent] {
        var texts: [String] = []
        for (c, axis) in zip(axes, ["x", "y", "z"]) {
            do {
                texts.append(try c.readAttribute("raw"))
            } catch {
                return [.problem(ReadProblem(attribute: "in_accel_\(axis)_raw", value: ReadProblem.readFailed, reason: "\(error)"))]
            }
        }
        switch RawReading.parse(x: texts[0], y: texts[1], z: texts[2]) {
        case .success(let r): return [.reading(r)]
        case .failure(let p): return [.problem(p)]
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
