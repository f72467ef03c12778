import LinuxSystem
import Motion

/// The fallback when libiio cannot build a local context at all (libiio 0.24 rejects
/// the whole machine over one channel name it cannot parse): reads
/// `in_accel_{x,y,z}_raw` straight from the device's sysfs directory. Poll mode only.
package final class SysfsPolledAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "sysfs-poll" }
    private let directory: String

    package init(device: AccelerometerDescription) throws(SensorError) {
        guard let p = device.syspath else { throw SensorError(device: device.displayName, "no sysfs path") }
        guard device.pollCapable else { throw SensorError(device: device.displayName, "no in_accel_[xyz]_raw attributes") }
        self.device = device
        directory = p
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        var texts: [String] = []
        for axis in ["x", "y", "z"] {
            switch SysfsAttributeFile.read("\(directory)/in_accel_\(axis)_raw") {
            case .success(let t): texts.append(t)
            case .failure(let e):
                events.append(.problem(ReadProblem(attribute: "in_accel_\(axis)_raw", value: ReadProblem.readFailed,
                                                   reason: "\(e)")))
                return
            }
        }
        events.append(RawReading.parse(x: texts[0], y: texts[1], z: texts[2]).driverEvent)
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        if case .failure(let e) = SysfsAttributeFile.write("\(directory)/\(file)", value) {
            throw SensorError(device: device.displayName, "\(e)")
        }
    }

    package func close() {}
}
