import IIO
import Motion

/// A gyroscope in a device of its own read from its IIO buffer (`IIOScanBuffer`), used
/// while the accelerometer is read from its buffer: every scan is a reading with its own
/// timestamp, so the fusion (docs/TILT.md, "With a gyroscope") integrates each one at its time
/// rather than one value per accelerometer reading.
///
/// Its watermark is twice the scans it gathers in one accelerometer batch
/// (`scansPerRefill`): the accelerometer's wakeups drain it, and its own node wakes the
/// daemon only when the accelerometer's scans stop coming.
package final class IIOBufferedGyroscope: GyroscopeDriver {
    package let device: GyroscopeDescription
    package var mode: DriverMode { .buffer }
    private let scans: IIOScanBuffer
    /// Positions in the scan layout's elements of the three axes and the timestamp.
    private let axes: (x: Int, y: Int, z: Int)
    private let timestampElement: Int
    /// Scans per refill and the kernel's watermark.
    package var scansPerRefill: Int { scans.scansPerRefill }
    /// The most readings one `read` gives from a kernel buffer.
    package var maximumReadingsPerRead: Int { scans.kernelBufferScans }
    package var pollDescriptor: Int32? { scans.pollDescriptor }

    /// - Throws: when the scan has no `anglvel_{x,y,z}` or no `timestamp` (the readings
    ///   could not be placed in time among the accelerometer's), or the buffer cannot be
    ///   set up.
    package init(device: GyroscopeDescription, context: Context, scansPerRefill: Int) throws(SensorError) {
        self.device = device
        let layout = try device.scanLayout.get()
        guard let anglvel = layout.axisElements(of: "anglvel") else {
            throw SensorError(device: device.displayName, "the scan layout has no anglvel_x, anglvel_y and anglvel_z")
        }
        guard let t = layout.elementIndex(named: "timestamp") else {
            throw SensorError(device: device.displayName, "the scan has no timestamp element")
        }
        axes = anglvel
        timestampElement = t
        scans = try IIOScanBuffer(device: device, context: context, scansPerRefill: scansPerRefill)
    }

    package func read(into readings: inout [GyroReading], problems: inout [ReadProblem]) {
        let layout = scans.layout
        scans.drain(
            scans: { bytes, count in
                for i in 0..<count {
                    let scan = scans.scan(i, of: bytes)
                    switch ReadingUnits.angularVelocity(
                        counts: layout.vector(axes, in: scan), scale: device.scale,
                        offset: device.offset)
                    {
                    case .success(let w):
                        readings.append(
                            GyroReading(
                                radiansPerSecond: w, timestampNs: layout.firstValue(of: timestampElement, in: scan)))
                    case .failure(let p):
                        problems.append(p)
                    }
                }
            }, problem: { problems.append($0) })
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try scans.writeAttribute(file, value)
    }

    package func close() throws(SensorError) {
        try scans.close()
    }
}
