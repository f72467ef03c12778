import LinuxSystem
import Motion

/// The fallback when libiio cannot build a local context at all (libiio 0.24 rejects
/// the whole machine over one channel name it cannot parse): reads
/// `in_accel_{x,y,z}_raw` straight from the device's sysfs directory. Poll mode only.
package final class SysfsPolledAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var mode: DriverMode { .sysfsPoll }
    private let directory: String
    /// `in_accel_{x,y,z}_raw`, opened for each read (`SysfsAttributeFile.Reader`).
    private let axes: [SysfsAttributeFile.Reader]

    package init(device: AccelerometerDescription) throws(SensorError) {
        guard let p = device.syspath else { throw SensorError(device: device.displayName, "no sysfs path") }
        guard device.pollCapable else {
            throw SensorError(device: device.displayName, "no in_accel_[xyz]_raw attributes")
        }
        self.device = device
        directory = p
        axes = ["x", "y", "z"].map { SysfsAttributeFile.Reader(path: "\(p)/in_accel_\($0)_raw") }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        // The whole text of each file (a short one is stored in the String itself: no
        // allocation), parsed as before.
        var texts = ("", "", "")
        for i in 0..<3 {
            let text = withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) {
                buf -> Result<String, SysfsError> in
                axes[i].read(into: buf).map {
                    String(decoding: UnsafeRawBufferPointer(rebasing: buf[..<$0]), as: UTF8.self)
                }
            }
            switch text {
            case .success(let t):
                switch i {
                case 0: texts.0 = t
                case 1: texts.1 = t
                default: texts.2 = t
                }
            case .failure(let e):
                events.append(.problem(.failedRead(of: "in_accel_\(["x", "y", "z"][i])_raw", e)))
                return
            }
        }
        events.append(
            ReadingUnits.counts(channel: "accel", texts.0, texts.1, texts.2).map { c in
                AccelerometerReading(
                    acceleration: ReadingUnits.acceleration(counts: c, scale: device.scale, offset: device.offset))
            }.driverEvent)
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        if case .failure(let e) = SysfsAttributeFile.write("\(directory)/\(file)", value) {
            throw SensorError(device: device.displayName, "\(e)")
        }
    }

    package func close() {}
}
