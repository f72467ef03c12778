import Glibc
import IIO
import LinuxSystem
import Motion

/// A device's IIO buffer, as the buffered drivers of the accelerometer and of a gyroscope
/// in a device of its own use it: enables every scan element (as iio-sensor-proxy does:
/// the kernel's scan layout then matches `ScanBufferDescription.scanLayout`, which holds
/// every element, temperature and angular velocity included), sets the trigger (put back
/// on `close`), creates a non-blocking libiio buffer, and hands over the whole scans of
/// each refill for the driver to decode (`ScanLayout`, every type form).
///
/// The buffer holds `scansPerRefill` scans per refill, which libiio also writes as
/// `buffer/watermark`: the kernel reports the device node readable once that many scans
/// are waiting. `buffer/length` is at least `minimumBufferScans`, so a device read only
/// every 0.1 s while it lies still keeps its newest scans instead of overflowing (the
/// kernel drops new scans when full). A refill error (EIO when the device went away or
/// the data ended) destroys the buffer and creates it again on the next drain.
final class IIOScanBuffer {
    let layout: ScanLayout
    /// Scans per refill and the kernel's watermark.
    let scansPerRefill: Int
    /// `buffer/length`: the most scans the kernel keeps between two drains.
    var kernelBufferScans: Int { Self.blocks(scansPerRefill) * scansPerRefill }
    /// `buffer/length` is at least this: 0.5 s at 128 Hz.
    static let minimumBufferScans = 64
    /// Refills per drain at most: a device that delivers faster than it is drained
    /// cannot keep a read going.
    static let maxRefillsPerDrain = 256
    /// The device node, readable when `scansPerRefill` scans are waiting; nil without a
    /// buffer or over the network (libiio's network backend has no poll descriptor).
    private(set) var pollDescriptor: Int32?
    private let iio: Device
    private let deviceName: String
    /// What problems name: the device node, else `buffer`.
    private let node: String
    private var buffer: Buffer?
    private var previousTrigger: Device??
    /// The buffer attributes as they were before this buffer touched them (sysfs file
    /// name relative to the device, text), written back on `close`; local devices only.
    private var previousAttributes: [(file: String, text: String)] = []
    private let syspath: String?

    init(device: some ScanBufferDescription, context: Context, scansPerRefill: Int) throws(SensorError) {
        deviceName = device.displayName
        node = device.devnode ?? "buffer"
        self.scansPerRefill = max(1, scansPerRefill)
        guard let d = context.device(named: device.id) else {
            throw SensorError(device: device.displayName, "not in the libiio context \(context.uri)")
        }
        iio = d
        syspath = device.syspath
        layout = try device.scanLayout.get()
        if let p = device.syspath {
            let files =
                ["buffer/length", "buffer/watermark"] + device.scanElements.map { "scan_elements/in_\($0.name)_en" }
            for f in files {
                if let text = SysfsAttributeFile.value("\(p)/\(f)") { previousAttributes.append((f, text)) }
            }
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
            throw SensorError(
                device: device.displayName,
                "libiio scan size \(step) B differs from the kernel layout \(layout.scanBytes) B")
        }
        try openBuffer()
    }

    private func openBuffer() throws(SensorError) {
        do {
            try iio.setKernelBuffersCount(Self.blocks(scansPerRefill))
            let b = try Buffer(device: iio, samples: scansPerRefill)
            // libiio's network backend has no non-blocking mode (ENOSYS): a remote
            // buffer blocks in refill until iiod has a scan, which is still one scan
            // per read at the sensor's rate.
            do { try b.setBlocking(false) } catch  where error.code == ENOSYS {}
            buffer = b
            pollDescriptor = try? b.pollFileDescriptor()
        } catch {
            throw SensorError(device: deviceName, "cannot create the buffer: \(error)", errno: error.code)
        }
    }

    /// Kernel buffer blocks of `scans` scans each: at least 4, and `minimumBufferScans`
    /// in all.
    private static func blocks(_ scans: Int) -> Int {
        max(4, (minimumBufferScans + scans - 1) / scans)
    }

    /// Reads what is waiting (non-blocking refills, at most `maxRefillsPerDrain`): hands
    /// `scans` the whole scans of each refill, oldest first, and `problem` what went
    /// wrong (the buffer could not be created again, a refill failed, a partial scan).
    /// Allocates nothing unless something goes wrong.
    func drain(scans: (UnsafeRawBufferPointer, _ count: Int) -> Void, problem: (ReadProblem) -> Void) {
        if buffer == nil {
            do { try openBuffer() } catch {
                problem(ReadProblem(attribute: node, value: ReadProblem.openFailed, reason: error.message))
                return
            }
        }
        guard let b = buffer else { return }
        let size = layout.scanBytes
        for _ in 0..<Self.maxRefillsPerDrain {
            do {
                guard let n = try b.refill(), n > 0 else { break }  // nil: nothing more waiting
            } catch {
                problem(.failedRead(of: node, error))
                buffer = nil  // created again on the next drain
                pollDescriptor = nil
                break
            }
            let leftover = b.withBytes { bytes in
                let count = bytes.count / size
                if count > 0 { scans(UnsafeRawBufferPointer(rebasing: bytes[0..<(count * size)]), count) }
                return bytes.count - count * size
            }
            // The kernel hands out whole scans only (iio_buffer_read rounds down to the
            // scan size); a partial one is a driver or transport fault. Its bytes cannot
            // be placed in the layout, so they are dropped, never decoded.
            if leftover > 0 {
                problem(
                    ReadProblem(
                        attribute: node, value: "\(leftover) bytes",
                        reason: "short scan (a scan is \(size) bytes); discarded"))
            }
        }
    }

    /// Scan `i` of the bytes `drain` handed over.
    func scan(_ i: Int, of bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(i * layout.scanBytes)..<((i + 1) * layout.scanBytes)])
    }

    func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        try IIOAttributeWriter.write(iio, file: file, value: value, deviceName: deviceName)
    }

    /// Disables the buffer and puts back what it changed: the trigger, `buffer/length`,
    /// `buffer/watermark` and the scan elements' enables (as another reader of the
    /// device, iio-sensor-proxy, had them). Idempotent.
    func close() throws(SensorError) {
        buffer = nil
        pollDescriptor = nil
        var failed: [String] = []
        if let p = syspath {
            for (f, text) in previousAttributes {
                guard let now = SysfsAttributeFile.value("\(p)/\(f)"), now != text else { continue }
                if case .failure(let e) = SysfsAttributeFile.write("\(p)/\(f)", text) {
                    failed.append("\(f) = \(text) (\(e))")
                }
            }
        }
        previousAttributes = []
        if case .some(let old) = previousTrigger {
            previousTrigger = nil
            do { try iio.setTrigger(old) } catch {
                failed.append("trigger/current_trigger = \(old?.name ?? "(none)") (\(error))")
            }
        }
        if !failed.isEmpty {
            throw SensorError(device: deviceName, "cannot put back \(failed.joined(separator: "; "))")
        }
    }

    /// `close` was not called (a failed attach): best effort, no one to tell.
    deinit { try? close() }
}
