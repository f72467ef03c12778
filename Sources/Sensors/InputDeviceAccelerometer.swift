import Evdev
import LinuxSystem
import Motion

/// Input mode: an accelerometer that the kernel exposes as an input device (lis3lv02d; a
/// game controller's "Motion Sensors" node), read through libevdev from its event node.
///
/// - Each `SYN_REPORT` ends one report: ABS_X/Y/Z, and on a controller ABS_RX/RY/RZ, as
///   libevdev's state of the device holds them then. With the gyroscope every report is a
///   reading (its rates are integrated); of the accelerometer alone, the newest.
/// - Sample times come from `MSC_TIMESTAMP` where the device sends it (its own clock,
///   microseconds in 32 bits that wrap: `InputReportClock`), else from the events' own
///   times on the monotonic clock. Only differences between them are used
///   (`ReadingTimeline`).
/// - The input core passes only changes beyond an axis's `fuzz` (drivers/input/input.c
///   input_defuzz_abs_event()), so a device lying still sends nothing: a read that finds
///   no report gives the values that stand, as a polled device would read them.
/// - `SYN_DROPPED` (the kernel's buffer for this reader overflowed): the report in hand is
///   dropped, libevdev reads the device's state again (its sync mode), the reading of
///   that state follows, and `.resynchronised` says so first: the fusion, which missed the
///   turns in between, starts again from it.
/// - While the device moves the node is not waited on: the daemon drains it at frame pace
///   (`readInterval`), one wakeup per frame however fast the device reports (a DualSense
///   sends 250 reports a second over USB). While it lies still the node is waited on
///   (`restDescriptor`): the input core sends nothing then.
package final class InputDeviceAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var modeName: String { "input" }
    package var readsGyroscope: Bool { gyroUnits != nil }
    /// The node's own gyroscope's scale (rad/s per count) and offset (counts), when paired.
    private let gyroUnits: (scale: Vector3, offset: Vector3)?
    private var node: EvdevDevice?
    private let facts: InputDeviceFacts
    private var clock = InputReportClock()
    /// The `MSC_TIMESTAMP` of the report being read (ns, unwrapped).
    private var reportTimestamp: Int64?
    /// Between `SYN_DROPPED` and the end of libevdev's sync.
    private var syncing = false

    /// - Parameter gyro: read ABS_RX/RY/RZ into `AccelerometerReading.angularVelocity` (the
    ///   node's own gyroscope, paired).
    package init(device: AccelerometerDescription, gyro: GyroscopeDescription?) throws(SensorError) {
        guard let facts = device.input, let path = device.devnode else {
            throw SensorError(device: device.displayName, "not an input device with an event node")
        }
        self.device = device
        self.facts = facts
        do {
            let n = try EvdevDevice(path: path)
            // Event times on the monotonic clock, where wall time could jump; a kernel
            // without EVIOCSCLOCKID keeps wall time, which only shifts all times alike.
            try? n.useMonotonicClock()
            node = n
        } catch {
            throw SensorError(device: device.displayName, "\(error)", errno: error.code)
        }
        gyroUnits = facts.gyroScale == nil ? nil : gyro.map { ($0.scale, $0.offset) }
    }

    /// The event node, readable when a report came.
    package var restDescriptor: Int32? { node?.fileDescriptor }

    /// A report per reading with the gyroscope: as many as the kernel's buffer for this
    /// reader holds (two events each at least: a value and `SYN_REPORT`).
    package var maximumReadingsPerRead: Int { readsGyroscope ? facts.bufferEvents / 2 + 2 : 1 }

    /// Seconds: the longest the daemon may go without a read before the kernel's buffer
    /// for this reader overflows (`bufferEvents` at `eventsPerReport` each, at the report
    /// rate seen), halved; nil until the rate has been seen.
    package var longestReadInterval: Double? {
        clock.reportInterval.map { 0.5 * Double(facts.bufferEvents / max(1, facts.eventsPerReport)) * $0 }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        guard let node else { return }
        var newest: AccelerometerReading?
        var reports = 0
        while true {
            let next: EvdevRead?
            do { next = try node.next() } catch {
                events.append(.problem(ReadProblem(attribute: node.path, value: ReadProblem.readFailed, reason: "\(error)")))
                return
            }
            guard let next else { break }
            switch next {
            case .event(let e) where e.type == .miscellaneous && e.code == EventCode.timestamp:
                reportTimestamp = clock.timestamp(microseconds: e.value)
            case .event(let e) where e.isReport && !syncing:
                reports += 1
                let r = reading(node, timestampNs: reportTimestamp ?? (facts.timestamps ? nil : e.timeNanoseconds),
                                gyro: readsGyroscope)
                clock.report(at: r.timestampNs)
                reportTimestamp = nil
                if readsGyroscope { events.append(.reading(r)) } else { newest = r }
            case .event:
                break
            case .dropped:
                syncing = true
                reportTimestamp = nil
                newest = nil
            case .synchronized:
                syncing = false
                reports += 1
                events.append(.resynchronised("the kernel dropped events (SYN_DROPPED): its state read again"))
                // The state now, without rates: those of the lost reports are gone.
                let r = reading(node, timestampNs: nil, gyro: false)
                if readsGyroscope { events.append(.reading(r)) } else { newest = r }
            }
        }
        // Nothing came: the values stand (the input core reports changes only).
        if reports == 0 { newest = reading(node, timestampNs: nil, gyro: false) }
        if let newest { events.append(.reading(newest)) }
    }

    /// libevdev's state of the axes, in m/s^2 (and rad/s).
    private func reading(_ node: EvdevDevice, timestampNs: Int64?, gyro: Bool) -> AccelerometerReading {
        func counts(_ a: AbsoluteAxis, _ b: AbsoluteAxis, _ c: AbsoluteAxis) -> Vector3 {
            Vector3(Double(node.value(a)), Double(node.value(b)), Double(node.value(c)))
        }
        var w: Result<Vector3, ReadProblem>?
        if gyro, let u = gyroUnits {
            w = ReadingUnits.angularVelocity(counts: counts(.rx, .ry, .rz), scale: u.scale, offset: u.offset)
        }
        return AccelerometerReading(
            acceleration: ReadingUnits.acceleration(counts: counts(.x, .y, .z), scale: device.scale, offset: device.offset),
            timestampNs: timestampNs, angularVelocity: w)
    }

    /// Writes an attribute of the input device (`poll`, the poller's interval).
    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        guard let dir = facts.inputSyspath else { throw SensorError(device: device.displayName, "no input device directory") }
        if case .failure(let e) = SysfsAttributeFile.write("\(dir)/\(file)", value) {
            throw SensorError(device: device.displayName, "\(e)")
        }
    }

    package func close() {
        node = nil
    }
}

/// An input device's report times on one 64-bit clock, and the interval between its
/// reports. `MSC_TIMESTAMP` is the device's own microseconds in 32 bits, which wrap every
/// 71.6 minutes (hid-playstation and hid-nintendo count them up from the first report):
/// each value is taken as the last one plus the difference, modulo 2^32. Pure.
struct InputReportClock: Sendable {
    private var lastMicroseconds: UInt32?
    private var unwrapped: Int64 = 0
    private var lastReport: Int64?
    /// Seconds between reports, smoothed; nil until two came.
    private(set) var reportInterval: Double?

    /// ns on the unwrapped clock.
    mutating func timestamp(microseconds value: Int32) -> Int64 {
        let us = UInt32(bitPattern: value)
        if let last = lastMicroseconds {
            unwrapped += Int64(us &- last)
        } else {
            unwrapped = Int64(us)
        }
        lastMicroseconds = us
        return unwrapped * 1000
    }

    /// A report at `ns` (nil: without a time), for the interval between reports.
    mutating func report(at ns: Int64?) {
        guard let ns else { return }
        defer { lastReport = ns }
        guard let last = lastReport, ns > last, ns - last < 1_000_000_000 else { return }
        let d = Double(ns - last) / 1e9
        reportInterval = reportInterval.map { 0.9 * $0 + 0.1 * d } ?? d
    }
}
