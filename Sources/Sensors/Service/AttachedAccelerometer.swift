import IIO
import LinuxSystem
import Logging
import Motion

/// The accelerometer while it is attached: its driver and the libiio context it reads
/// through, the conditioning of its readings (`SampleConditioner`), the rate written to it
/// (put back on release), and the bookkeeping of its reads: whether the last one gave a
/// reading, whether the kernel refuses raw reads (EBUSY), since when every read failed,
/// how long a buffer has been silent. Made by `AccelerometerService` for one attach and
/// dropped on release; every stored property is its own.
final class AttachedAccelerometer {
    private let reader: any AccelerometerDriver
    /// Kept alive while the driver reads through it (nil: sysfs, input devices).
    private let libiio: Context?
    private let conditioner: SampleConditioner
    private let log: Logger
    private let problems: ReadProblemLog
    /// What the status shows of this attach (the gyroscope's part comes from `PairedGyroscope`).
    private let status: AccelerometerService.Attachment
    /// The rate shimmerd wrote (`sampling_frequency` or an input poller's interval).
    private var restoreFrequency: FrequencyRestore?
    /// Buffer mode: how long the node has gone without a scan (one line when it stops,
    /// one when it delivers again).
    private var silence: ScanSilence?
    /// The kernel refuses raw reads (EBUSY): another program has the device's buffer
    /// enabled (bmc150, kxcjk-1013, st_sensors and mxc4005 answer raw reads so while their
    /// buffer runs). Reads are retried every `refusedRetry` seconds until they are answered.
    private var rawReadsRefused = false
    /// Whether the last read gave a reading (good or rejected).
    private var lastReadHadData = false
    /// The last read's transport failure (the device or the connection, not a bad value).
    private var lastReadError: String?
    /// Since when every read has failed.
    private var failingSince: Double?
    /// What tells that the device moved while it lies still, why, and what was written for
    /// it at rest (put back when it moves, and on release).
    private var rest: RestWatch
    private var restWhy: String
    private var restWritten: [FrequencyRestore] = []
    /// With `events`: the device's event stream, opened at the first rest and kept for the
    /// attach (the kernel hands out one per device at a time), and the buffer it is read
    /// into; whether a bad record was said.
    private var events: EventStream?
    private var eventBytes = [UInt8](repeating: 0, count: 16 * MotionEventRecords.recordSize)
    private var badRecordSaid = false
    /// At rest with `hysteresis`: whether the hub honours it.
    private var compliance = HysteresisCompliance()
    /// What the driver gave at the last read, and its newest scan's timestamp; kept so
    /// that reads allocate nothing.
    private var driverEvents: [DriverEvent] = []
    private var newestNs: Int64?

    /// Seconds between reads that the kernel refused.
    static let refusedRetry = 1.0
    /// strerror(EBUSY), as the read problems carry it.
    static let busyText = "Device or resource busy"

    /// Takes `driver` up: its rate set for `Sensor.rate` (`sampling_frequency`, or an input
    /// poller's interval), to be put back by `release`.
    /// - Parameters:
    ///   - shared: another reader may use the device (`BufferSharing`): its rate is only raised.
    ///   - modeReason, selection: why this mode and this device, for the status.
    init(
        driver: any AccelerometerDriver, context: Context?, settings: AccelerometerSettings, shared: Bool,
        modeReason: String, selection: String, now: Double, log: Logger, problems: ReadProblemLog
    ) {
        let d = driver.device
        reader = driver
        libiio = context
        self.log = log
        self.problems = problems
        silence = driver.mode == .buffer ? ScanSilence(attachedAt: now) : nil
        conditioner = SampleConditioner(mountMatrix: d.mountMatrix, invert: settings.invert)
        let freq: String
        (freq, restoreFrequency) = Self.setRate(d, driver: driver, rateHz: settings.rateHz, shared: shared)
        (rest, restWhy) = RestWatch.choose(d, mode: driver.mode)
        if rest == .node || rest == .hysteresis, driver.restDescriptor == nil {
            (rest, restWhy) = (.read, "the driver has no descriptor to wait on: read every 0.1 s at rest")
        }
        status = .init(
            device: d, mode: driver.mode, modeReason: modeReason, selectionReason: selection,
            samplingFrequency: freq, restWatch: rest.rawValue, restWatchReason: restWhy)
        driverEvents.reserveCapacity(driver.maximumReadingsPerRead + 8)
    }

    var driver: any AccelerometerDriver { reader }
    var device: AccelerometerDescription { reader.device }
    var context: Context? { libiio }
    /// The status of this attach, without its gyroscope.
    var attachment: AccelerometerService.Attachment {
        var a = status
        (a.restWatch, a.restWatchReason) = (rest.rawValue, restWhy)
        return a
    }
    /// The last read gave a reading (good or rejected).
    var gotData: Bool { lastReadHadData }
    /// The kernel refuses raw reads: read again only every `refusedRetry` seconds.
    var refusesRawReads: Bool { rawReadsRefused }
    /// What the last read gave, oldest first.
    var readEvents: [DriverEvent] { driverEvents }
    /// The newest timestamp among the last read's readings.
    var newestTimestampNs: Int64? { newestNs }

    /// The rate written for `rateHz`, said for the attach line, and what to put back.
    private static func setRate(
        _ d: AccelerometerDescription, driver: any AccelerometerDriver, rateHz: Double,
        shared: Bool
    ) -> (String, FrequencyRestore?) {
        if d.isInput {
            guard let p = d.input?.poller, let dir = d.input?.inputSyspath else {
                return ("no poll interval (the device reports on its own)", nil)
            }
            return InputPollInterval.set(p, rateHz: rateHz, syspath: dir, shared: shared, write: driver.writeAttribute)
        }
        guard let info = d.samplingFrequency else { return ("no sampling_frequency attribute", nil) }
        return SamplingFrequencyControl.set(
            info, rateHz: rateHz, syspath: d.syspath, shared: shared,
            write: driver.writeAttribute)
    }

    /// One read of the driver into `readEvents`: whether it gave data, its transport
    /// failure, its newest timestamp. Raw reads answered again after being refused: one line.
    func read(now: Double) {
        if lastReadHadData, rawReadsRefused {
            rawReadsRefused = false
            log.notice("\(device.displayName): raw reads answered again", ["sensor.device": device.id])
        }
        driverEvents.removeAll(keepingCapacity: true)
        reader.read(at: now, into: &driverEvents)
        lastReadHadData = false
        lastReadError = nil
        newestNs = nil
        for e in driverEvents {
            switch e {
            case .reading(let r):
                lastReadHadData = true
                if let ts = r.timestampNs { newestNs = max(newestNs ?? ts, ts) }
            case .problem(let p) where p.isReadFailure:
                lastReadError = p.reason
            default:
                break
            }
        }
    }

    /// A problem of the last read: a raw read the kernel refuses (EBUSY, poll mode) is
    /// said once; anything else is reported as a skipped sample.
    func note(_ p: ReadProblem, now: Double) {
        guard p.isReadFailure, reader.mode != .buffer, p.reason.contains(Self.busyText) else {
            return problems.report(p, device: device, now: now)
        }
        guard !rawReadsRefused else { return }
        rawReadsRefused = true
        log.warning(
            "\(device.displayName): the kernel refuses raw reads (\(p.attribute): "
                + "\(p.reason)): another program "
                + "has its buffer enabled; shimmerd leaves it alone and retries every \(Int(Self.refusedRetry)) s",
            ["sensor.device": device.id, "sensor.attribute": p.attribute])
    }

    /// A reading in device-frame m/s^2, or nil when the driver found it unusable (reported).
    func acceleration(of r: AccelerometerReading, now: Double) -> Vector3? {
        switch r.acceleration {
        case .success(let a): return conditioner.acceleration(sensor: a)
        case .failure(let p):
            problems.report(p, device: device, now: now)
            return nil
        }
    }

    /// After a read: a buffer that stops delivering while its device is still there (no
    /// udev event says anything) is said once, and its return once. `interval`: the
    /// seconds between scans the reads expect. Returns the change said, if any.
    @discardableResult
    func noteSilence(now: Double, interval: Double) -> ScanSilence.Change? {
        guard let change = silence?.read(gotData: lastReadHadData, at: now, interval: interval) else { return nil }
        let node = device.devnode ?? device.id
        switch change {
        case .silent(let seconds):
            log.warning(
                "accelerometer \(device.displayName): no scan from \(node) for "
                    + "\(seconds.rounded().plainText) s "
                    + "although the device is still there; the card keeps its last attitude until scans come again",
                ["sensor.device": device.id])
        case .delivering(let seconds):
            log.info(
                "accelerometer \(device.displayName): \(node) delivering again after "
                    + "\(seconds.rounded().plainText) s without a scan",
                ["sensor.device": device.id])
        }
        return change
    }

    /// After a read: nil while reads answer (or fail no longer than `giveUpAfter`
    /// seconds in a row); else why the device is unreachable, naming `source`.
    func unreachable(now: Double, source: String, giveUpAfter: Double) -> String? {
        guard !lastReadHadData, let error = lastReadError else {
            failingSince = nil
            return nil
        }
        let since = failingSince ?? now
        failingSince = since
        guard now - since >= giveUpAfter else { return nil }
        return "every read from \(source) failed for \(Int(giveUpAfter)) s (last: \(error))"
    }

    /// How a still device says it moved, for this attach (a fallback may change it).
    var restWatch: RestWatch { rest }

    /// The device came to rest: writes what its watch needs and returns the descriptor
    /// that says it moved; nil when it is read on a timer (its watch is `read`, or what
    /// the watch needs could not be set: one line, and `read` from then on).
    func beginRest() -> Int32? {
        compliance.restart()
        switch rest {
        case .read: return nil
        case .node: return reader.restDescriptor
        case .hysteresis:
            guard setHysteresis() else { return nil }
            return reader.restDescriptor
        case .events:
            return enableEvents()
        }
    }

    /// The device moved again (or is released): what was written for its rest is put back.
    func endRest(deviceGone: Bool = false) {
        let written = restWritten
        restWritten = []
        guard !deviceGone else { return }
        for r in written where putBack(r) {
            log.debug("\(device.displayName): \(r.file) put back to \(r.text)", ["sensor.device": device.id])
        }
    }

    /// At rest with `events`: reads what the event stream holds (so it is not readable
    /// again for the same events); a record that is no motion event is said once.
    func drainRestEvents() {
        guard let stream = events else { return }
        var motions = 0
        while true {
            let n: Int
            do {
                n = try eventBytes.withUnsafeMutableBytes {
                    (b: UnsafeMutableRawBufferPointer) throws(IIOError) -> Int in
                    try stream.read(into: b)
                }
            } catch {
                fallBack("its event stream failed (\(error))")
                endRest()
                events = nil
                return
            }
            if n == 0 { break }
            let records = eventBytes.withUnsafeBytes { MotionEventRecords(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            motions += records.motions
            if let p = records.problem, !badRecordSaid {
                badRecordSaid = true
                log.warning(
                    "\(device.displayName): event stream: \(p); ignored, the device is read all the same",
                    ["sensor.device": device.id])
            }
            if n < eventBytes.count { break }
        }
        if motions > 0 {
            log.debug("\(device.displayName): \(motions) motion event(s) at rest", ["sensor.device": device.id])
        }
    }

    /// Writes `1` to the device's motion event enables and opens its event stream; the
    /// stream's descriptor, or nil (one line, what was written put back, `read` from then on).
    private func enableEvents() -> Int32? {
        if events == nil {
            do {
                if let fd = reader.pollDescriptor {
                    events = try EventStream(deviceDescriptor: fd, device: device.id)  // libiio's, in buffer mode
                } else if let node = device.devnode {
                    events = try EventStream(node: node, device: device.id)
                }
            } catch {
                fallBack(
                    "\(error.operation) on \(device.devnode ?? device.id) failed: "
                        + "\(error.message) (errno \(error.code))")
                return nil
            }
        }
        guard let stream = events, let dir = device.syspath else { return nil }
        for file in device.motionEventEnables {
            let old = SysfsAttributeFile.value("\(dir)/\(file)") ?? "0"
            do { try writeRestAttribute(file, "1") } catch {
                fallBack("cannot write \(file) = 1: \(error.message)")
                endRest()
                return nil
            }
            restWritten.append(FrequencyRestore(file: file, text: old, written: "1", syspath: dir))
        }
        log.debug(
            "\(device.displayName): at rest: \(device.motionEventEnables.joined(separator: ", ")) = 1",
            ["sensor.device": device.id])
        return stream.fileDescriptor
    }

    /// A wakeup at rest that brought scans, at `now`: a hub that sends more than
    /// `HysteresisCompliance.maximumScansPerSecond` while still ignores its sensitivity; one
    /// line, its attribute put back, and it is read on a timer from then on. Returns false
    /// when the watch was given up so.
    func restScans(now: Double) -> Bool {
        guard rest == .hysteresis, let rate = compliance.scans(at: now) else { return true }
        fallBack(
            "still sends \(((rate * 10).rounded() / 10).plainText) scans a second at "
                + "rest with in_accel_hysteresis = "
                + "\(HysteresisCompliance.valueText): the hub ignores its change sensitivity")
        endRest()
        return false
    }

    /// Writes `in_accel_hysteresis` and reads it back; false, with one line, when it could
    /// not be written or does not read back.
    private func setHysteresis() -> Bool {
        let file = "in_accel_hysteresis"
        guard let old = device.restHysteresis, let dir = device.syspath else { return false }
        do { try writeRestAttribute(file, HysteresisCompliance.valueText) } catch {
            fallBack("cannot write \(file) = \(HysteresisCompliance.valueText): \(error.message)")
            return false
        }
        let back = SysfsAttributeFile.value("\(dir)/\(file)") ?? "(unreadable)"
        let written = FrequencyRestore(file: file, text: old, written: back, syspath: dir)
        guard HysteresisCompliance.readsBack(back) else {
            putBack(written)
            fallBack("\(file) reads back \(back) after \(HysteresisCompliance.valueText) was written")
            return false
        }
        restWritten = [written]
        log.debug("\(device.displayName): at rest: \(file) = \(back) (was \(old))", ["sensor.device": device.id])
        return true
    }

    /// The watch given up for `why`: one line; read on a timer at rest for this attach.
    private func fallBack(_ why: String) {
        log.warning(
            "\(device.displayName): \(why); reading "
                + "it every 0.1 s at rest instead", ["sensor.device": device.id])
        (rest, restWhy) = (.read, why)
    }

    /// Writes an attribute a rest watch sets, by its path under the device's sysfs directory
    /// (`events/` is no attribute libiio knows of).
    private func writeRestAttribute(_ file: String, _ value: String) throws(SensorError) {
        guard let dir = device.syspath else { throw SensorError(device: device.displayName, "no sysfs directory") }
        if case .failure(let e) = SysfsAttributeFile.write("\(dir)/\(file)", value) {
            throw SensorError(device: device.displayName, "\(e)")
        }
    }

    /// Puts `r` back; true when it was written back (else one line says why not).
    @discardableResult
    private func putBack(_ r: FrequencyRestore) -> Bool {
        do {
            guard let why = try r.putBack(write: writeRestAttribute) else { return true }
            log.info(why, ["sensor.device": device.id])
        } catch {
            log.warning("\(error)", ["sensor.device": device.id])
        }
        return false
    }

    /// Releases the device: disables the buffer, restores the rate written (unless the
    /// device is gone); what could not be put back is said in one line each.
    func release(deviceGone: Bool) {
        endRest(deviceGone: deviceGone)
        events = nil
        do { try reader.close() } catch {
            log.warning("\(error)", ["sensor.device": device.id])
        }
        if let r = restoreFrequency, !deviceGone {
            do {
                if let why = try r.putBack(write: reader.writeAttribute) { log.info(why, ["sensor.device": device.id]) }
            } catch {
                log.warning("\(error)", ["sensor.device": device.id])
            }
        }
        restoreFrequency = nil
    }
}
