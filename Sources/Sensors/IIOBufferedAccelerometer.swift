import Glibc
import IIO
import Motion

/// Buffer mode: enables every scan element (as iio-sensor-proxy does: the kernel's scan
/// layout then matches `AccelerometerDescription.scanLayout`), sets the trigger, creates
/// a libiio buffer, and decodes the scans itself (`ScanLayout`, every type form).
///
/// Each `read` drains what is waiting (non-blocking refills, at most
/// `maxScansPerRead`) and returns the newest scan: the pipeline wants the latest
/// attitude, not a backlog. A refill error (EIO when the device went away or the data
/// ended) destroys the buffer and creates it again on the next read.
package final class IIOBufferedAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "buffer" }
    private let iio: Device
    private let layout: ScanLayout
    private var buffer: Buffer?
    private var previousTrigger: Device??
    private let maxScansPerRead = 64

    package init(device: AccelerometerDescription, context: Context) throws(SensorError) {
        self.device = device
        guard let d = context.device(named: device.id) else {
            throw SensorError(device: device.displayName, "not in the libiio context \(context.uri)")
        }
        iio = d
        layout = try device.scanLayout.get()
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
            let b = try Buffer(device: iio, samples: 1)
            // libiio's network backend has no non-blocking mode (ENOSYS): a remote
            // buffer blocks in refill until iiod has a scan, which is still one scan
            // per read at the sensor's rate.
            do { try b.setBlocking(false) } catch where error.code == ENOSYS {}
            buffer = b
        } catch {
            throw SensorError(device: device.displayName, "cannot create the buffer: \(error)")
        }
    }

    package func read(at now: Double) -> [DriverEvent] {
        var events: [DriverEvent] = []
        if buffer == nil {
            do { try openBuffer() } catch {
                return [.problem(ReadProblem(attribute: device.devnode ?? "buffer", value: "open error", reason: error.message))]
            }
        }
        guard let b = buffer else { return events }
        var newest: RawReading?
        for _ in 0..<maxScansPerRead {
            do {
                let n = try b.refill()
                if n <= 0 { break }
            } catch {
                if error.code == 11 { break }   // EAGAIN: nothing more waiting
                events.append(.problem(ReadProblem(attribute: device.devnode ?? "buffer", value: "read error",
                                                   reason: "\(error)")))
                buffer = nil                     // reopened on the next read
                break
            }
            let leftover = b.withBytes { bytes in
                var offset = 0
                while offset + layout.scanBytes <= bytes.count {
                    let scan = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + layout.scanBytes)])
                    if let r = decode(scan) { newest = r }
                    offset += layout.scanBytes
                }
                return bytes.count - offset
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
        return events
    }

    private func decode(_ scan: UnsafeRawBufferPointer) -> RawReading? {
        guard let values = layout.decode(scan), let x = values["accel_x"]?.first, let y = values["accel_y"]?.first,
              let z = values["accel_z"]?.first else { return nil }
        return RawReading(raw: Vector3(Double(x), Double(y), Double(z)), timestampNs: values["timestamp"]?.first)
    }

    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: device.displayName)
    }

    package func close() {
        buffer = nil
        if case .some(let old) = previousTrigger {
            try? iio.setTrigger(old)
            previousTrigger = nil
        }
    }

    deinit { close() }
}
