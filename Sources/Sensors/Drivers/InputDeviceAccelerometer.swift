import Evdev
import LinuxSystem
import Motion

/// Input mode: an accelerometer that the kernel exposes as an input device (lis3lv02d; a
/// game controller's "Motion Sensors" node), read through libevdev from its event node.
///
/// - Each `SYN_REPORT` ends one report: ABS_X/Y/Z, and on a controller ABS_RX/RY/RZ, as
///   libevdev's state of the device holds them then. With the gyroscope every report is a
///   reading (its rates are integrated); of the accelerometer alone, the newest.
/// - Sample times come from `MSC_TIMESTAMP` where the device sends it and its clock is
///   plausible (its own clock, microseconds in 32 bits that wrap: `InputReportClock`),
///   else from the events' own times on the monotonic clock (when the report arrived). Only
///   differences between them are used (`ReadingTimeline`).
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
/// - A read handles at most `maximumEventsPerRead` events (twice what the kernel's buffer
///   for this reader holds): a device that reports faster than they can be handled (a
///   uinput device written in a loop) cannot keep the loop inside one read. What is left
///   waits for the next read; what the kernel cannot keep meanwhile it drops, and the
///   SYN_DROPPED that follows resyncs as above. One line a minute says so.
package final class InputDeviceAccelerometer: AccelerometerDriver {
    package let device: AccelerometerDescription
    package var mode: DriverMode { .input }
    package var readsGyroscope: Bool { gyroUnits != nil }
    /// The node's own gyroscope's scale (rad/s per count) and offset (counts), when paired.
    private let gyroUnits: (scale: Vector3, offset: Vector3)?
    private var node: EvdevDevice?
    private let facts: InputDeviceFacts
    private var clock = InputReportClock()
    /// The `MSC_TIMESTAMP` of the report being read (ns, unwrapped).
    private var reportTimestamp: Int64?
    /// Whether the last read stopped at `maximumEventsPerRead` (said once until a read
    /// ends with the node drained).
    private var overran = false
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

    /// The events one read handles at most: twice what the kernel's buffer for this reader
    /// holds (a read at frame pace finds at most one buffer's worth, plus what libevdev
    /// kept from the read before).
    package var maximumEventsPerRead: Int { 2 * facts.bufferEvents }

    /// The event node, readable when a report came.
    package var restDescriptor: Int32? { node?.fileDescriptor }

    /// A report per reading with the gyroscope: as many as `maximumEventsPerRead` can be
    /// (two events each at least: a value and `SYN_REPORT`), and the state after a resync.
    package var maximumReadingsPerRead: Int { readsGyroscope ? maximumEventsPerRead / 2 + 2 : 1 }

    /// The axes a reading of this node names when it is no reading.
    static let accelerometerAxes = [AbsoluteAxis.x, .y, .z].map { "\($0)" }.joined(separator: ",")
    static let gyroscopeAxes = [AbsoluteAxis.rx, .ry, .rz].map { "\($0)" }.joined(separator: ",")

    /// Seconds: a quarter of how long the kernel's buffer for this reader lasts
    /// (`bufferEvents` at `eventsPerReport` each, at the interval between the reports'
    /// arrivals), so that a read three quarters of that late on a busy machine still loses
    /// nothing; nil until two reports came.
    package var longestReadInterval: Double? {
        clock.reportInterval.map { 0.25 * Double(facts.bufferEvents / max(1, facts.eventsPerReport)) * $0 }
    }

    package func read(at now: Double, into events: inout [DriverEvent]) {
        guard let node else { return }
        var newest: AccelerometerReading?
        var reports = 0
        var handled = 0
        while true {
            guard handled < maximumEventsPerRead else {
                if !overran {
                    overran = true
                    events.append(
                        .limited(
                            cause: "flood",
                            "\(maximumEventsPerRead) events at one read of \(node.path), "
                                + "the most a read handles (a device reporting faster than a frame's read can take); the rest "
                                + "waits for the next frame, and what the kernel cannot keep meanwhile it drops"))
                }
                break
            }
            let next: EvdevRead?
            do { next = try node.next() } catch {
                events.append(.problem(.failedRead(of: node.path, error)))
                return
            }
            guard let next else {
                overran = false
                break
            }
            handled += 1
            switch next {
            case .event(let e) where e.type == .miscellaneous && e.code == EventCode.timestamp:
                reportTimestamp = clock.unwrap(microseconds: e.value)
            case .event(let e) where e.isReport && !syncing:
                reports += 1
                let placed = clock.place(deviceNs: reportTimestamp, arrivalNs: e.timeNanoseconds)
                if let why = placed.implausible {
                    events.append(
                        .limited(
                            cause: "timestamps", "\(why); using the reports' arrival times until it is plausible again")
                    )
                }
                let r = reading(node, timestampNs: placed.ns, gyro: readsGyroscope)
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
        let said = node.takeMessages()
        for line in said.lines {
            events.append(
                .limited(cause: "libevdev", "libevdev: \(line)" + (said.more > 0 ? " (and \(said.more) more)" : "")))
        }
    }

    /// libevdev's state of the axes, in m/s^2 (and rad/s).
    private func reading(_ node: EvdevDevice, timestampNs: Int64?, gyro: Bool) -> AccelerometerReading {
        func counts(_ a: AbsoluteAxis, _ b: AbsoluteAxis, _ c: AbsoluteAxis) -> Vector3 {
            Vector3(Double(node.value(a)), Double(node.value(b)), Double(node.value(c)))
        }
        var w: Result<Vector3, ReadProblem>?
        if gyro, let u = gyroUnits {
            w = ReadingUnits.angularVelocity(
                counts: counts(.rx, .ry, .rz), scale: u.scale, offset: u.offset,
                attributes: Self.gyroscopeAxes)
        }
        return AccelerometerReading(
            acceleration: ReadingUnits.acceleration(
                counts: counts(.x, .y, .z), scale: device.scale, offset: device.offset,
                attributes: Self.accelerometerAxes),
            timestampNs: timestampNs, angularVelocity: w)
    }

    /// Writes an attribute of the input device (`poll`, the poller's interval).
    package func writeAttribute(_ file: String, _ value: String) throws(SensorError) {
        guard let dir = facts.inputSyspath else {
            throw SensorError(device: device.displayName, "no input device directory")
        }
        if case .failure(let e) = SysfsAttributeFile.write("\(dir)/\(file)", value) {
            throw SensorError(device: device.displayName, "\(e)")
        }
    }

    package func close() {
        node = nil
    }
}

/// An input device's report times on one 64-bit clock, and the interval between its
/// reports. Pure.
///
/// `MSC_TIMESTAMP` is the device's own microseconds in 32 bits, which wrap every 71.6
/// minutes (hid-playstation and hid-nintendo count them up from the first report): each
/// value is taken as the last one plus the difference, modulo 2^32. The device's clock is
/// used only while it is plausible against the times the reports arrived (the kernel's
/// event times): between two reports it must move forward, by at most `aheadTolerance`
/// more than the arrival times did (a report delivered late, then its successor at once,
/// stays within that) and by at most `behindTolerance` less. A clock that stands still,
/// runs backwards or jumps (a controller's firmware sending garbage) gives the arrival
/// time instead; the device's clock is taken up again, anchored anew, from the first report
/// it is plausible for. Times given never run backwards.
///
/// The interval between reports, which tells how long the kernel's buffer lasts, comes
/// from the arrival times alone: an implausible device clock must not make the reads late.
struct InputReportClock: Sendable {
    /// Where a report is placed: ns on the arrival clock; `implausible` says why the
    /// device's clock was given up, at the report where it was (nil otherwise).
    struct Placed: Equatable, Sendable {
        var ns: Int64
        var implausible: String?
    }

    /// ns the device's clock may run ahead of the arrival times between two reports.
    static let aheadTolerance: Int64 = 20_000_000
    /// ns it may fall behind them (a report delivered late).
    static let behindTolerance: Int64 = 1_000_000_000

    private var lastMicroseconds: UInt32?
    private var unwrapped: Int64 = 0
    /// The previous report: its device time (when it had one) and its arrival.
    private var previous: (device: Int64?, arrival: Int64)?
    /// Device ns minus the time given, while the device's clock is used.
    private var offset: Int64?
    private var lastGiven: Int64?
    /// The device's clock is not used at present.
    private(set) var usingArrivalTimes = false
    /// Seconds between reports, smoothed; nil until two came.
    private(set) var reportInterval: Double?

    /// ns on the device's unwrapped clock.
    mutating func unwrap(microseconds value: Int32) -> Int64 {
        let us = UInt32(bitPattern: value)
        if let last = lastMicroseconds {
            unwrapped += Int64(us &- last)
        } else {
            unwrapped = Int64(us)
        }
        lastMicroseconds = us
        return unwrapped * 1000
    }

    /// Places a report that arrived at `arrivalNs` (the kernel's time of its SYN_REPORT)
    /// with the device's time `deviceNs` (unwrapped `MSC_TIMESTAMP`, nil without one).
    mutating func place(deviceNs: Int64?, arrivalNs: Int64) -> Placed {
        defer { previous = (deviceNs, arrivalNs) }
        if let p = previous, arrivalNs > p.arrival, arrivalNs - p.arrival < 1_000_000_000 {
            let d = Double(arrivalNs - p.arrival) / 1e9
            reportInterval = reportInterval.map { 0.9 * $0 + 0.1 * d } ?? d
        }
        var why: String?
        var t = arrivalNs
        if let device = deviceNs {
            if let p = previous, let before = p.device {
                why = Self.implausibility(deviceStep: device - before, arrivalStep: arrivalNs - p.arrival)
            }
            if why == nil {
                let o = offset ?? device - arrivalNs
                offset = o
                t = device - o
            } else {
                offset = nil
            }
        }
        if let g = lastGiven, t <= g { t = g + 1 }
        lastGiven = t
        let changed = why != nil && !usingArrivalTimes
        if deviceNs != nil { usingArrivalTimes = why != nil }
        return Placed(ns: t, implausible: changed ? why : nil)
    }

    /// Why a step of the device's clock does not fit the step of the arrival times; nil
    /// when it does.
    static func implausibility(deviceStep: Int64, arrivalStep: Int64) -> String? {
        let ok =
            deviceStep > 0 && deviceStep <= arrivalStep + aheadTolerance && deviceStep >= arrivalStep - behindTolerance
        guard !ok else { return nil }
        return "implausible MSC_TIMESTAMP: the device's clock moved \(deviceStep / 1000) us between two reports that "
            + "arrived \(arrivalStep / 1000) us apart"
    }
}
