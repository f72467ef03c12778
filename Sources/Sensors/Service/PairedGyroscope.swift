import IIO
import LinuxSystem
import Logging
import Motion

/// The gyroscope paired with the attached accelerometer (docs/TILT.md, "With a gyroscope"), as
/// `AccelerometerService` reads it: in the accelerometer's own readings (a combined IMU,
/// whose driver reads both), or from a device of its own (`GyroscopeDriver`) in the
/// accelerometer's mode: polled with each reading in poll mode; in buffer mode from its
/// own buffer where it has one this process may use, else polled. Holds what must be
/// put back (its sampling frequency), whether one may be taken up later (a udev event
/// while none is used), its readings of one wakeup, and how many reads in a row failed.
/// Every stored property is its own; the coordinator asks and tells through methods.
final class PairedGyroscope {
    /// The pairing while its readings are used; nil without a gyroscope or once given up.
    private var pairing: GyroPairing?
    /// What the status shows: the pairing in use, or why none is (nil while detached).
    private var verdict: GyroPairing?
    /// Its calibration, while its readings are used.
    private var calibration: RateCalibration?
    /// The driver of a gyroscope in a device of its own.
    private var sibling: (any GyroscopeDriver)?
    /// The sibling is read from its own buffer (its scans carry their timestamps).
    private var buffered = false
    /// The sibling's node wakes the caller; cleared when it is readable without data
    /// (an emulated node at its end), set again when a read finds data.
    private var bufferWakesUs = true
    /// Consecutive reads that failed (the reads themselves, not bad values).
    private var failures = 0
    private var restoreFrequency: FrequencyRestore?
    /// Another reader may use the sibling (`BufferSharing`): its rate is only raised.
    private var shared = false
    /// A udev `add` or `change` came while the accelerometer is attached without a
    /// gyroscope: look for one once the events of this wakeup are taken.
    private var lookupDue = false
    /// The last reason a gyroscope found on a udev event was not used (said once).
    private var lastRefusal: String?
    /// The sibling's buffered readings and read problems of one wakeup, and the next of
    /// them to hand on; kept so that reads allocate nothing.
    private var readings: [GyroReading] = []
    private var problems: [ReadProblem] = []
    private var nextReading = 0

    /// Consecutive gyroscope reads that fail (not bad values: the reads themselves) after
    /// which it is given up (one log line; the accelerometer goes on alone).
    static let giveUpAfter = 3

    /// Readings are used.
    var isUsed: Bool { calibration != nil }
    /// Read from a device of its own, from that device's buffer.
    var isBuffered: Bool { buffered }
    /// The pairing the status shows: the gyroscope in use, or why none is.
    var shown: GyroPairing? { verdict }
    /// The device of a gyroscope read on its own (nil: none, or the accelerometer's own).
    var siblingDevice: GyroscopeDescription? { sibling?.device }
    /// The most readings one read of the sibling gives (0 without one).
    var maximumReadingsPerRead: Int { sibling?.maximumReadingsPerRead ?? 0 }
    /// The sibling's buffer descriptor, while it may wake the caller.
    var wakingDescriptor: Int32? {
        guard buffered, bufferWakesUs else { return nil }
        return sibling?.pollDescriptor
    }

    /// Starts reading `p`'s gyroscope; says how (for the log line), or, when none is used
    /// (`isUsed` false), why not.
    /// - Parameters:
    ///   - context: the libiio context to read a sibling through; nil when there is none.
    ///   - local: the devices are this machine's (their sysfs files can be checked).
    ///   - sensorProxy: what is known of iio-sensor-proxy (`BufferSharing`).
    func start(
        _ p: GyroPairing, accelerometer: AccelerometerDescription, driver: any AccelerometerDriver,
        context: Context?, local: Bool, settings: AccelerometerSettings,
        sensorProxy: BufferSharing.SensorProxy = .noBus
    ) -> String {
        let how = open(
            p, accelerometer: accelerometer, driver: driver, context: context, local: local, settings: settings,
            sensorProxy: sensorProxy)
        verdict = isUsed ? p : GyroPairing(gyro: nil, reason: how)
        lastRefusal = nil
        if let n = sibling?.maximumReadingsPerRead { readings.reserveCapacity(n) }
        return how
    }

    private func open(
        _ p: GyroPairing, accelerometer: AccelerometerDescription, driver: any AccelerometerDriver,
        context: Context?, local: Bool, settings: AccelerometerSettings,
        sensorProxy: BufferSharing.SensorProxy
    ) -> String {
        release(deviceGone: false)
        failures = 0
        bufferWakesUs = true
        guard let g = p.gyro, let cal = p.calibration else { return p.reason }
        var frame = "frame \(cal.sign < 0 ? "-1 * " : "")\(cal.mountMatrix) from \(p.matrixSource ?? "?")"
        if p.matrixSource == g.ownMatrixSource {
            frame += g.ownMatrixProblems.map { "; \($0.logText)" }.joined()
        }
        if g.id == accelerometer.id {
            guard driver.readsGyroscope else {
                return "\(g.displayName) is not read in \(driver.mode) mode"
            }
            (pairing, calibration) = (p, cal)
            return "\(g.displayName), \(p.reason), in the same "
                + "\(driver.mode == .buffer ? "scan" : "reads"); \(frame)"
        }
        guard let context else { return "\(g.displayName) needs libiio" }
        // The rate it will sample at once its sampling frequency is set.
        let deviceHz =
            g.samplingFrequency.flatMap { $0.target(forRate: settings.rateHz) ?? $0.currentHz } ?? settings.rateHz
        let made: (any GyroscopeDriver, String)
        let sharedWhy = BufferSharing.reason(g, sensorProxy: sensorProxy)
        shared = sharedWhy != nil
        switch Self.makeDriver(
            g, accelerometer: accelerometer, bufferMode: driver.mode == .buffer, context: context,
            local: local, shared: sharedWhy, scansPerRefill: 2 * settings.scansPerWakeup(deviceHz: deviceHz))
        {
        case .success(let m): made = m
        case .failure(let e): return "\(e)"
        }
        let (d, how) = made
        sibling = d
        buffered = d.mode == .buffer
        (pairing, calibration) = (p, cal)
        let freq = setSamplingFrequency(d, rateHz: settings.rateHz)
        return "\(g.displayName), \(p.reason), \(how); \(frame); sampling frequency: \(freq)"
    }

    /// A gyroscope of its own device in the accelerometer's mode: from its own buffer
    /// when the accelerometer is read from its buffer and the gyroscope's can be used
    /// (`BufferPermission`'s rules, timestamps on the accelerometer's clock), else polled
    /// with each reading; says which and why.
    static func makeDriver(
        _ g: GyroscopeDescription, accelerometer a: AccelerometerDescription, bufferMode: Bool,
        context: Context, local: Bool, shared: String? = nil, scansPerRefill: Int
    )
        -> Result<(any GyroscopeDriver, String), SensorError>
    {
        func poll(_ how: String) -> Result<(any GyroscopeDriver, String), SensorError> {
            do { return .success((try IIOPolledGyroscope(device: g, context: context), how)) } catch {
                return .failure(error)
            }
        }
        guard bufferMode else { return poll("polled with each reading") }
        var problem = shared.map { "\($0), so its buffer is left alone" } ?? BufferPermission.problem(g, local: local)
        if problem == nil, g.timestampClock != a.timestampClock {
            // Its scans are placed among the accelerometer's by their timestamps.
            problem =
                "its timestamps are on clock \(g.timestampClock ?? "(unknown)"), "
                + "the accelerometer's on \(a.timestampClock ?? "(unknown)")"
        }
        if let problem { return poll("polled with each reading, not from its buffer: \(problem)") }
        do {
            let b = try IIOBufferedGyroscope(device: g, context: context, scansPerRefill: scansPerRefill)
            return .success(
                (
                    b,
                    "read from its own buffer (trigger \(g.trigger ?? "?"), "
                        + "\(b.scansPerRefill) scans per refill)"
                ))
        } catch {
            return poll("polled with each reading, not from its buffer: \(error.message)")
        }
    }

    /// A sibling samples at least as fast as it is read (`Sensor.rate`), and its
    /// frequency is put back when it is released, as the accelerometer's is.
    private func setSamplingFrequency(_ d: any GyroscopeDriver, rateHz: Double) -> String {
        guard let info = d.device.samplingFrequency else { return "no sampling_frequency attribute" }
        let (text, restore) = SamplingFrequencyControl.set(
            info, rateHz: rateHz, syspath: d.device.syspath,
            shared: shared, write: d.writeAttribute)
        restoreFrequency = restore
        return text
    }

    /// Stops using the gyroscope: closes a sibling's buffer and puts back its sampling
    /// frequency (unless the device is gone). Returns what could not be put back.
    @discardableResult
    func release(deviceGone: Bool) -> [SensorError] {
        var errors: [SensorError] = []
        if let s = sibling {
            do { try s.close() } catch { errors.append(error) }
            if let r = restoreFrequency, !deviceGone {
                do { _ = try r.putBack(write: s.writeAttribute) } catch { errors.append(error) }
            }
        }
        restoreFrequency = nil
        sibling = nil
        buffered = false
        pairing = nil
        calibration = nil
        return errors
    }

    // MARK: taking one up later

    /// A udev `add` or `change` while the accelerometer is attached: unless a gyroscope
    /// is used or none is wanted (`Sensor.gyro = none`), look for one once the burst of
    /// events is taken.
    func noteDeviceAppeared(selector: GyroSelector) {
        if !isUsed, selector != .none { lookupDue = true }
    }

    /// Whether a look for a gyroscope is due; it is then no longer.
    func takeLookupDue() -> Bool {
        defer { lookupDue = false }
        return lookupDue
    }

    /// The accelerometer was released: no gyroscope is looked for for it.
    func cancelLookup() { lookupDue = false }

    /// What a look for a gyroscope came to.
    enum TakeUp: Sendable {
        /// None to take up: why (a debug line).
        case nothing(String)
        /// One found is not used: the line, and whether it was said before (once per
        /// distinct reason, until the accelerometer attaches anew).
        case refused(String, saidBefore: Bool)
        /// Taken up: the pairing, and how it is read (the text of the log line).
        case taken(GyroPairing, how: String)
    }

    /// Takes up a gyroscope among `gyroscopes` for the attached accelerometer (one
    /// appeared, or the one in use came back), or says why not. An input device's
    /// gyroscope is its own node's, read from the attach on: nothing to take up.
    func takeUp(
        accelerometer a: AccelerometerDescription, driver: any AccelerometerDriver,
        gyroscopes: [GyroscopeDescription], settings: AccelerometerSettings,
        sensorProxy: BufferSharing.SensorProxy
    ) -> TakeUp {
        guard !a.isInput, !isUsed else { return .nothing("one is in use, or the accelerometer's node has its own") }
        let p = GyroPairing.pair(
            accelerometer: a, gyroscopes: gyroscopes, selector: settings.gyro,
            configuredMatrix: settings.gyroMountMatrix)
        guard p.gyro != nil else { return .nothing(p.reason) }
        // The accelerometer's libiio context was built before this device existed.
        let context = try? Context()
        let before = (verdict, lastRefusal)
        let how = start(
            p, accelerometer: a, driver: driver, context: context, local: true, settings: settings,
            sensorProxy: sensorProxy)
        guard isUsed else {
            // The status keeps saying why none is used since the attach.
            verdict = before.0
            let line = "gyroscope found but not used: \(how)"
            lastRefusal = line
            return .refused(line, saidBefore: line == before.1)
        }
        return .taken(p, how: how)
    }

    // MARK: reading

    /// Drains the sibling's buffer (every scan since the last read, oldest first) for
    /// `emitBuffered`; false unless the gyroscope is used and read from its own buffer.
    /// Problems are reported as `failed` reports them.
    func drainBuffer(
        now: Double, accelerometer: AccelerometerDescription, report: ReadProblemLog,
        into events: inout [SensorEvent]
    ) -> Bool {
        readings.removeAll(keepingCapacity: true)
        nextReading = 0
        guard buffered, let s = sibling else { return false }
        problems.removeAll(keepingCapacity: true)
        s.read(into: &readings, problems: &problems)
        if !readings.isEmpty { bufferWakesUs = true }
        for p in problems { failed(p, accelerometer: accelerometer, now: now, report: report, into: &events) }
        guard isUsed else {
            readings.removeAll(keepingCapacity: true)
            return false
        }
        return true
    }

    /// The newest timestamp among the drained scans.
    var newestDrainedNs: Int64? { readings.last?.timestampNs }

    /// The drained buffer held nothing although its node woke the caller (an emulated
    /// node at its end): it is not waited on again until a read finds data.
    func noteEmptyWakeup() -> Bool {
        guard readings.isEmpty else { return false }
        bufferWakesUs = false
        return true
    }

    /// Hands on the drained scans up to the timestamp `ns` (all when `ns` or a scan's is
    /// nil; all that are left when `ns` is `.max`), placed in time by `timeline`.
    func emitDrained(
        upTo ns: Int64?, accelerometer: AccelerometerDescription, timeline: inout ReadingTimeline,
        report: ReadProblemLog, into events: inout [SensorEvent]
    ) {
        while nextReading < readings.count, Self.notAfter(readings[nextReading].timestampNs, ns) {
            let r = readings[nextReading]
            emit(
                .success(r.radiansPerSecond), at: timeline.time(ofNs: r.timestampNs), accelerometer: accelerometer,
                report: report, into: &events)
            nextReading += 1
        }
    }

    /// Whether a scan with timestamp `a` comes no later than one with `b`; true when
    /// either has none.
    static func notAfter(_ a: Int64?, _ b: Int64?) -> Bool {
        guard let a, let b else { return true }
        return a <= b
    }

    /// The polled sibling's rate (rad/s, sensor frame) for the reading in hand, or nil
    /// (none, or a problem reported).
    func poll(
        now: Double, accelerometer: AccelerometerDescription, report: ReadProblemLog,
        into events: inout [SensorEvent]
    ) -> Vector3? {
        guard let s = sibling else { return nil }
        readings.removeAll(keepingCapacity: true)
        problems.removeAll(keepingCapacity: true)
        s.read(into: &readings, problems: &problems)
        for p in problems { failed(p, accelerometer: accelerometer, now: now, report: report, into: &events) }
        defer { readings.removeAll(keepingCapacity: true) }
        return readings.last?.radiansPerSecond
    }

    /// A rate (rad/s, sensor frame, as the driver handed it over) in the device frame:
    /// the pairing's mount matrix and sign (`RateCalibration`; the driver applied the
    /// scale and offset); a value the driver found bad is reported and skipped.
    func emit(
        _ rate: Result<Vector3, ReadProblem>, at t: Double, accelerometer: AccelerometerDescription,
        report: ReadProblemLog, into events: inout [SensorEvent]
    ) {
        guard let cal = calibration else { return }
        switch rate {
        case .success(let w):
            failures = 0
            events.append(.motion(.angularVelocity(radiansPerSecond: cal.mountMatrix.apply(w) * cal.sign, at: t)))
        case .failure(let p):
            report.report(p, device: accelerometer, now: t, what: "gyroscope reading")
        }
    }

    /// A gyroscope read that failed: a bad value is reported and skipped like a bad
    /// sample; `giveUpAfter` reads in a row that fail (the device went away) give the
    /// gyroscope up with one line.
    func failed(
        _ p: ReadProblem, accelerometer: AccelerometerDescription, now: Double, report: ReadProblemLog,
        into events: inout [SensorEvent]
    ) {
        guard isUsed else { return }
        if p.isReadFailure { failures += 1 }
        guard failures >= Self.giveUpAfter else {
            return report.report(p, device: accelerometer, now: now, what: "gyroscope reading")
        }
        let name = sibling?.device.displayName ?? accelerometer.displayName
        events.append(
            drop(
                name, why: "\(p.attribute) = \"\(p.value)\": \(p.reason)", deviceGone: true,
                accelerometer: accelerometer, log: report.log, attribute: p.attribute))
    }

    /// Stops using the gyroscope with one line; the accelerometer goes on alone.
    func drop(
        _ name: String, why: String, deviceGone: Bool, accelerometer: AccelerometerDescription, log: Logger,
        attribute: String? = nil
    ) -> SensorEvent {
        for e in release(deviceGone: deviceGone) {
            log.warning("\(e)", ["sensor.device": accelerometer.id])
        }
        verdict = GyroPairing(gyro: nil, reason: "\(name) went away: \(why)")
        var metadata = ["sensor.device": accelerometer.id]
        if let attribute { metadata["sensor.attribute"] = attribute }
        log.warning(
            "gyroscope \(name) stopped giving readings (\(why)); "
                + "continuing with the accelerometer alone", metadata)
        return .gyroDetached(name, reason: why)
    }
}
