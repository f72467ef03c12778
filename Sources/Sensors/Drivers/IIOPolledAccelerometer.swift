import Glibc
import IIO
import LinuxSystem
import Motion

/// Poll mode: reads `in_accel_{x,y,z}_raw` each time it is asked, at `Sensor.rate`: in a
/// local context straight from sysfs, in a remote one through libiio
/// (`iio_channel_attr_read`); see `RawAttributes`.
package final class IIOPolledAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var mode: DriverMode { .poll }
    package var readsGyroscope: Bool { gyro != nil }
    private let iio: Device
    private let axes: RawAttributes
    /// The same device's gyroscope, read with each reading (a combined IMU).
    private let gyro: IIOPolledGyroscope?

    /// - Parameter gyro: the device's own gyroscope to read with each reading, if paired.
    package init(device: AccelerometerDescription, context: Context, gyro: GyroscopeDescription? = nil)
        throws(SensorError)
    {
        self.device = device
        let channels: [Channel]
        (iio, channels) = try Self.rawChannels(
            device.id, ["accel_x", "accel_y", "accel_z"], in: context,
            deviceName: device.displayName)
        axes = RawAttributes(iio, channels)
        self.gyro = try gyro.map { g throws(SensorError) in try IIOPolledGyroscope(device: g, context: context) }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        switch axes.counts(channel: "accel") {
        case .success(let counts):
            var r = AccelerometerReading(
                acceleration: ReadingUnits.acceleration(
                    counts: counts, scale: device.scale,
                    offset: device.offset))
            if let gyro {
                switch gyro.read() {
                case .success(let w): r.angularVelocity = .success(w)
                case .failure(let p): events.append(.gyroProblem(p))
                }
            }
            events.append(.reading(r))
        case .failure(let p):
            events.append(.problem(p))
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

/// The `raw` attributes of a device's three channels (`in_accel_x_raw`, ...), read as
/// cheaply as the context allows, with the text libiio's `iio_channel_attr_read` gives.
///
/// In a local context each is read straight from the file libiio would read,
/// `/sys/bus/iio/devices/ID/FILE` (`SysfsAttributeFile.Reader`: open, one read, close,
/// nothing allocated), instead of through libiio, whose local backend spends two more
/// system calls and a stdio FILE on each (`fopen`, `fstat`, `read` until EOF, `fclose`):
/// poll mode reads three attributes 100 times a second, and under umockdev every open
/// is also intercepted by its preload library. A remote context (`ip:`, `usb:`) has no
/// files here and goes through libiio.
struct RawAttributes {
    private let channels: [Channel]
    /// One per channel in a local context, else nil.
    private let files: [SysfsAttributeFile.Reader]?

    /// A failed read: libiio's error or the file's, as the problem's reason.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ device: Device, _ channels: [Channel]) {
        self.channels = channels
        guard device.context.backendName == "local" else {
            files = nil
            return
        }
        let dir = "/sys/bus/iio/devices/\(device.id)/"
        let names = channels.map { $0.fileName(ofAttribute: "raw") }
        files = names.contains(nil) ? nil : names.map { SysfsAttributeFile.Reader(path: dir + $0!) }
    }

    /// The three channels' counts (`ReadingUnits.counts`; `channel` names them: `accel`,
    /// `anglvel`), or the first attribute that could not be read or parsed.
    func counts(channel: String) -> Result<Vector3, ReadProblem> {
        func raw(_ i: Int) -> Result<String, ReadProblem> {
            text(i).mapError { ReadProblem.failedRead(of: "in_\(channel)_\(["x", "y", "z"][i])_raw", $0) }
        }
        return raw(0).flatMap { x in
            raw(1).flatMap { y in raw(2).flatMap { z in ReadingUnits.counts(channel: channel, x, y, z) } }
        }
    }

    /// Channel `i`'s `raw` text. From the file, as libiio makes it: the last byte read
    /// (the kernel's newline) dropped, the text ending at a NUL (libiio writes one after a
    /// value, which a regular file keeps), an empty file a failure (EIO).
    func text(_ i: Int) -> Result<String, Failure> {
        guard let files else {
            do { return .success(try channels[i].readAttribute("raw")) } catch {
                return .failure(Failure(description: "\(error)"))
            }
        }
        // On the stack: a short text is stored inside the String, so nothing is allocated.
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) { buf -> Result<String, Failure> in
            switch files[i].read(into: buf) {
            case .success(let n) where n > 0:
                return .success(
                    String(
                        decoding: UnsafeRawBufferPointer(rebasing: buf[..<(n - 1)]).prefix { $0 != 0 },
                        as: UTF8.self))
            case .success:
                return .failure(Failure(description: "read \(files[i].path): empty (libiio: errno \(EIO))"))
            case .failure(let e):
                return .failure(Failure(description: "\(e)"))
            }
        }
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
