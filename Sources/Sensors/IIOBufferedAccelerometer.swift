import Glibc
import IIO
import Motion

/// Buffer mode: enables every scan element (as iio-sensor-proxy does: the kernel's scan
/// layout then matches `AccelerometerDescription.scanLayout`, which holds every element,
/// temperature and angular velocity included), sets the trigger, creates a libiio
/// buffer, and decodes the scans itself (`ScanLayout`, every type form). A combined
/// IMU's gyroscope comes in the same scan.
///
/// The buffer holds `scansPerWakeup` scans per refill, which libiio also writes as
/// `buffer/watermark`: the kernel reports the device node readable once that many scans
/// are waiting, so a daemon that waits on `pollDescriptor` wakes once per batch (one
/// wakeup per frame) instead of once per scan. `buffer/length` is at least
/// `minimumBufferScans`, so a device read only every 0.1 s while it lies still keeps
/// its newest scans instead of overflowing (the kernel drops new scans when full).
///
/// Each `read` drains what is waiting (non-blocking refills, at most
/// `maxScansPerRead`) and returns the newest scan: the pipeline wants the latest
/// attitude, not a backlog. With the gyroscope in the scan it returns every scan, oldest
/// first: its rates are integrated, and each one left out would be a turn lost. A refill error (EIO when the device went away or the data
/// ended) destroys the buffer and creates it again on the next read.
package final class IIOBufferedAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "buffer" }
    package var readsGyroscope: Bool { gyroAxes != nil }
    private let iio: Device
    private let layout: ScanLayout
    /// Positions in `layout.elements` of the three axes and the timestamp.
    private let axes: (x: Int, y: Int, z: Int)
    private let timestampElement: Int?
    /// Positions of the gyroscope's axes in the same scan (a combined IMU), if paired.
    private let gyroAxes: (x: Int, y: Int, z: Int)?
    private var buffer: Buffer?
    private var previousTrigger: Device??
    private let maxScansPerRead = 256
    /// Scans per refill and the kernel's watermark.
    package let scansPerWakeup: Int
    /// `buffer/length` is at least this: 0.5 s at 128 Hz.
    static let minimumBufferScans = 64
    /// The device node, readable when `scansPerWakeup` scans are waiting; nil without a
    /// buffer or over the network (libiio's network backend has no poll descriptor).
    package private(set) var pollDescriptor: Int32?

    /// - Parameter gyro: decode `anglvel_{x,y,z}` of the same scan too (the device's own
    ///   gyroscope, paired).
    package init(device: AccelerometerDescription, context: Context, scansPerWakeup: Int = 1, gyro: Bool = false) throws(SensorError) {
        self.device = device
        self.scansPerWakeup = max(1, scansPerWakeup)
        guard let d = context.device(named: device.id) else {
            throw SensorError(device: device.displayName, "not in the libiio context \(context.uri)")
        }
        iio = d
        layout = try device.scanLayout.get()
        guard let x = layout.elementIndex(named: "accel_x"), let y = layout.elementIndex(named: "accel_y"),
              let z = layout.elementIndex(named: "accel_z") else {
            throw SensorError(device: device.displayName, "the scan layout has no accel_x, accel_y and accel_z")
        }
        axes = (x, y, z)
        timestampElement = layout.elementIndex(named: "timestamp")
        if gyro, let gx = layout.elementIndex(named: "anglvel_x"), let gy = layout.elementIndex(named: "anglvel_y"),
           let gz = layout.elementIndex(named: "anglvel_z") {
            gyroAxes = (gx, gy, gz)
        } else {
            gyroAxes = nil
        }
        let scanChannels = d.channels.filter { $0.isScanElement && !$0.isOutput }
        for c in scanChannels { c.enable() }
        if let t = device.trigger, !device.triggerIsCurrent {
            guard let trig = context.device(named: t) else {
                throw SensorError(device: device.displayName, "trigger \(t) not found")
            }
            do {
                previousTrigger = .some(try d.trigger())
                try d.setTrigger(trig)
            } catch {
                throw SensorError(device: device.displayName, "cannot set trigger \(t): \(error)")
            }
        }
        let step = (try? d.sampleSize()) ?? layout.scanBytes
        if step != layout.scanBytes {
            throw SensorError(device: device.displayName,
                              "libiio scan size \(step) B differs from the kernel layout \(layout.scanBytes) B")
        }
        try openBuffer()
    }

    private func openBuffer() throws(SensorError) {
        do {
            let blocks = max(4, (Self.minimumBufferScans + scansPerWakeup - 1) / scansPerWakeup)
            try iio.setKernelBuffersCount(blocks)
            let b = try Buffer(device: iio, samples: scansPerWakeup)
            // libiio's network backend has no non-blocking mode (ENOSYS): a remote
            // buffer blocks in refill until iiod has a scan, which is still one scan
            // per read at the sensor's rate.
            do { try b.setBlocking(false) } catch where error.code == ENOSYS {}
            buffer = b
            pollDescriptor = try? b.pollFileDescriptor()
        } catch {
            throw SensorError(device: device.displayName, "cannot create the buffer: \(error)")
        }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        if buffer == nil {
            do { try openBuffer() } catch {
                events.append(.problem(ReadProblem(attribute: device.devnode ?? "buffer", value: ReadProblem.openFailed,
                                                   reason: error.message)))
                return
            }
        }
        guard let b = buffer else { return }
        var newest: RawReading?
        for _ in 0..<maxScansPerRead {
            do {
                guard let n = try b.refill(), n > 0 else { break }   // nil: nothing more waiting
            } catch {
                events.append(.problem(ReadProblem(attribute: device.devnode ?? "buffer", value: ReadProblem.readFailed,
                                                   reason: "\(error)")))
                buffer = nil                     // reopened on the next read
                pollDescriptor = nil
                break
            }
            let leftover = b.withBytes { bytes in
                let scans = bytes.count / layout.scanBytes
                // Every scan that carries a gyroscope's rates is a reading: rates are
                // integrated, so one left out is a turn lost. Of the accelerometer alone
                // the newest scan is enough: it is the attitude now.
                let first = gyroAxes == nil ? max(0, scans - 1) : 0
                for k in first..<scans {
                    if gyroAxes != nil, let n = newest { events.append(.reading(n)) }
                    let start = k * layout.scanBytes
                    newest = decode(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + layout.scanBytes)]))
                }
                return bytes.count - scans * layout.scanBytes
            }
            // The kernel hands out whole scans only (iio_buffer_read rounds down to the
            // scan size); a partial one is a driver or transport fault. Its bytes cannot
            // be placed in the layout, so they are dropped, never decoded.
            if leftover > 0 {
                events.append(.problem(ReadProblem(attribute: device.devnode ?? "buffer", value: "\(leftover) bytes",
                                                   reason: "short scan (a scan is \(layout.scanBytes) bytes); discarded")))
            }
        }
        if let newest { events.append(.reading(newest)) }
    }

    /// One whole scan to a reading, through the element positions found at setup.
    private func decode(_ scan: UnsafeRawBufferPointer) -> RawReading {
        let v = { (i: Int) in Double(self.layout.firstValue(of: i, in: scan)) }
        return RawReading(raw: Vector3(v(axes.x), v(axes.y), v(axes.z)),
                          timestampNs: timestampElement.map { layout.firstValue(of: $0, in: scan) },
                          gyroRaw: gyroAxes.map { Vector3(v($0.x), v($0.y), v($0.z)) })
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: device.displayName)
    }

    package func close() throws(SensorError) {
        buffer = nil
        pollDescriptor = nil
        guard case .some(let old) = previousTrigger else { return }
        previousTrigger = nil
        do { try iio.setTrigger(old) } catch {
            throw SensorError(device: device.displayName,
                              "cannot put back trigger/current_trigger = \(old?.name ?? "(none)"): \(error)")
        }
    }

    /// `close` was not called (a failed attach): best effort, no one to tell.
    deinit { try? close() }
}
