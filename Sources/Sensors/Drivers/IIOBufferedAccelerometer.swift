import IIO
import Motion

/// Buffer mode: reads the accelerometer's IIO buffer (`IIOScanBuffer`: every scan
/// element enabled, the trigger set, scans decoded through `ScanLayout`). A combined
/// IMU's gyroscope comes in the same scan.
///
/// The buffer holds `scansPerWakeup` scans per refill, the kernel's watermark: a daemon
/// that waits on `pollDescriptor` wakes once per batch (one wakeup per frame) instead of
/// once per scan.
///
/// Each `read` drains what is waiting and returns the newest scan: the pipeline wants the
/// latest attitude, not a backlog. With the gyroscope in the scan it returns every scan,
/// oldest first: its rates are integrated, and each one left out would be a turn lost. A
/// refill error (EIO when the device went away or the data ended) destroys the buffer and
/// creates it again on the next read.
package final class IIOBufferedAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var mode: DriverMode { .buffer }
    package var readsGyroscope: Bool { gyroAxes != nil }
    private let scans: IIOScanBuffer
    /// Positions in the scan layout's elements of the three axes and the timestamp.
    private let axes: (x: Int, y: Int, z: Int)
    private let timestampElement: Int?
    /// Positions of the gyroscope's axes in the same scan (a combined IMU), if paired.
    private let gyroAxes: (x: Int, y: Int, z: Int)?
    /// That gyroscope's scale (rad/s per count) and offset (counts).
    private let gyroUnits: (scale: Vector3, offset: Vector3)?
    /// Scans per refill and the kernel's watermark.
    package var scansPerWakeup: Int { scans.scansPerRefill }
    /// The device node, readable when `scansPerWakeup` scans are waiting; nil without a
    /// buffer or over the network (libiio's network backend has no poll descriptor).
    package var pollDescriptor: Int32? { scans.pollDescriptor }

    /// - Parameter gyro: decode `anglvel_{x,y,z}` of the same scan too (the device's own
    ///   gyroscope, paired).
    package init(
        device: AccelerometerDescription, context: Context, scansPerWakeup: Int = 1,
        gyro: GyroscopeDescription? = nil
    ) throws(SensorError) {
        self.device = device
        let layout = try device.scanLayout.get()
        guard let accel = layout.axisElements(of: "accel") else {
            throw SensorError(device: device.displayName, "the scan layout has no accel_x, accel_y and accel_z")
        }
        axes = accel
        timestampElement = layout.elementIndex(named: "timestamp")
        gyroAxes = gyro == nil ? nil : layout.axisElements(of: "anglvel")
        gyroUnits = gyro.map { ($0.scale, $0.offset) }
        scans = try IIOScanBuffer(device: device, context: context, scansPerRefill: scansPerWakeup)
    }

    /// A combined IMU's every scan is a reading; of the accelerometer alone, the newest.
    package var maximumReadingsPerRead: Int { gyroAxes == nil ? 1 : scans.kernelBufferScans }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        var newest: AccelerometerReading?
        scans.drain(
            scans: { bytes, count in
                // Every scan that carries a gyroscope's rates is a reading: rates are
                // integrated, so one left out is a turn lost. Of the accelerometer alone the
                // newest scan is enough: it is the attitude now.
                for k in (gyroAxes == nil ? count - 1 : 0)..<count {
                    if gyroAxes != nil, let n = newest { events.append(.reading(n)) }
                    newest = decode(scans.scan(k, of: bytes))
                }
            }, problem: { events.append(.problem($0)) })
        if let newest { events.append(.reading(newest)) }
    }

    /// One whole scan to a reading, through the element positions found at setup.
    private func decode(_ scan: UnsafeRawBufferPointer) -> AccelerometerReading {
        let layout = scans.layout
        var w: Result<Vector3, ReadProblem>?
        if let g = gyroAxes, let u = gyroUnits {
            w = ReadingUnits.angularVelocity(counts: layout.vector(g, in: scan), scale: u.scale, offset: u.offset)
        }
        return AccelerometerReading(
            acceleration: ReadingUnits.acceleration(
                counts: layout.vector(axes, in: scan), scale: device.scale, offset: device.offset),
            timestampNs: timestampElement.map { layout.firstValue(of: $0, in: scan) }, angularVelocity: w)
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try scans.writeAttribute(file, value)
    }

    package func close() throws(SensorError) {
        try scans.close()
    }
}
