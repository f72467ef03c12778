import IIO
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
    init(driver: any AccelerometerDriver, context: Context?, settings: AccelerometerSettings, shared: Bool,
         modeReason: String, selection: String, now: Double, log: Logger, problems: ReadProblemLog) {
        let d = driver.device
        reader = driver
        libiio = context
        self.log = log
        self.problems = problems
        silence = driver.modeName == "buffer" ? ScanSilence(attachedAt: now) : nil
        conditioner = SampleConditioner(mountMatrix: d.mountMatrix, invert: settings.invert)
        let freq: String
        (freq, restoreFrequency) = Self.setRate(d, driver: driver, rateHz: settings.rateHz, shared: shared)
        status = .init(device: d, mode: driver.modeName, modeReason: modeReason, selectionReason: selection,
                       samplingFrequency: freq)
        driverEvents.reserveCapacity(driver.maximumReadingsPerRead + 8)
    }

    var driver: any AccelerometerDriver { reader }
    var device: AccelerometerDescription { reader.device }
    var context: Context? { libiio }
    /// The status of this attach, without its gyroscope.
    var attachment: AccelerometerService.Attachment { status }
    /// The last read gave a reading (good or rejected).
    var gotData: Bool { lastReadHadData }
    /// The kernel refuses raw reads: read again only every `refusedRetry` seconds.
    var refusesRawReads: Bool { rawReadsRefused }
    /// What the last read gave, oldest first.
    var readEvents: [DriverEvent] { driverEvents }
    /// The newest timestamp among the last read's readings.
    var newestTimestampNs: Int64? { newestNs }

    /// The rate written for `rateHz`, said for the attach line, and what to put back.
    private static func setRate(_ d: AccelerometerDescription, driver: any AccelerometerDriver, rateHz: Double,
                                shared: Bool) -> (String, FrequencyRestore?) {
        if d.isInput {
            guard let p = d.input?.poller, let dir = d.input?.inputSyspath else {
                return ("no poll interval (the device reports on its own)", nil)
            }
            return InputPollInterval.set(p, rateHz: rateHz, syspath: dir, shared: shared, write: driver.writeAttribute)
        }
        guard let info = d.samplingFrequency else { return ("no sampling_frequency attribute", nil) }
        return SamplingFrequencyControl.set(info, rateHz: rateHz, syspath: d.syspath, shared: shared,
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
        guard p.isReadFailure, reader.modeName != "buffer", p.reason.contains(Self.busyText) else {
            return problems.report(p, device: device, now: now)
        }
        guard !rawReadsRefused else { return }
        rawReadsRefused = true
        log.warning("\(device.displayName): the kernel refuses raw reads (\(p.attribute): \(p.reason)): another program "
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
            log.warning("accelerometer \(device.displayName): no scan from \(node) for \(seconds.rounded().plainText) s "
                + "although the device is still there; the card keeps its last attitude until scans come again",
                ["sensor.device": device.id])
        case .delivering(let seconds):
            log.info("accelerometer \(device.displayName): \(node) delivering again after \(seconds.rounded().plainText) s without a scan",
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

    /// Releases the device: disables the buffer, restores the rate written (unless the
    /// device is gone); what could not be put back is said in one line each.
    func release(deviceGone: Bool) {
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
