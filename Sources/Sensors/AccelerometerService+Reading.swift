import Logging
import Motion

/// Reading: a read of the driver turned into readings, bad values reported and
/// skipped, a buffer that falls silent said once.
extension AccelerometerService {
    /// A buffer that stops delivering while its device is still there (no udev event
    /// says anything) is said once, and its return once.
    func noteSilence(now: Double) {
        guard let drv = driver, let change = silence?.read(gotData: lastReadHadData, at: now,
                                                           interval: idlePeriod ?? schedule.batchInterval ?? period) else { return }
        let node = drv.device.devnode ?? drv.device.id
        switch change {
        case .silent(let seconds):
            log.warning("accelerometer \(drv.device.displayName): no scan from \(node) for \(seconds.rounded().plainText) s "
                + "although the device is still there; the card keeps its last attitude until scans come again",
                ["sensor.device": drv.device.id])
        case .delivering(let seconds):
            log.info("accelerometer \(drv.device.displayName): \(node) delivering again after \(seconds.rounded().plainText) s without a scan",
                ["sensor.device": drv.device.id])
        }
    }

    static let refusedRetry = 1.0
    /// strerror(EBUSY), as the read problems carry it.
    static let busyText = "Device or resource busy"

    /// The first refused raw read: one line.
    func refused(_ p: ReadProblem, device: AccelerometerDescription) {
        guard !rawReadsRefused else { return }
        rawReadsRefused = true
        log.warning("\(device.displayName): the kernel refuses raw reads (\(p.attribute): \(p.reason)): another program "
            + "has its buffer enabled; shimmerd leaves it alone and retries every \(Int(Self.refusedRetry)) s",
            ["sensor.device": device.id, "sensor.attribute": p.attribute])
    }

    /// One read of the driver: its readings (with the sibling gyroscope's, placed in
    /// time by their timestamps) conditioned into `events`, its problems reported.
    func readOnce(now: Double, into events: inout [SensorEvent]) {
        guard let drv = driver else { return }
        if lastReadHadData, rawReadsRefused {
            rawReadsRefused = false
            log.notice("\(drv.device.displayName): raw reads answered again", ["sensor.device": drv.device.id])
        }
        lastReadHadData = false
        lastReadError = nil
        driverEvents.removeAll(keepingCapacity: true)
        drv.read(at: now, into: &driverEvents)
        // A sibling read from its own buffer: every scan that came since the last read,
        // placed in time among the accelerometer's readings by the timestamps.
        let buffered = readGyroscopeBuffer(now: now, into: &events)
        var newestNs = buffered ? gyroReadings.last?.timestampNs : nil
        var accelerometerNs: Int64?
        for case .reading(let r) in driverEvents {
            if let ts = r.timestampNs {
                newestNs = max(newestNs ?? ts, ts)
                accelerometerNs = max(accelerometerNs ?? ts, ts)
            }
        }
        timeline.begin(now: now, newestNs: newestNs, accelerometerNs: accelerometerNs)
        var nextGyro = 0
        for e in driverEvents {
            switch e {
            case .problem(let p) where drv.device.isInput && p.isReadFailure:
                inputNodeFailed(p, device: drv.device, now: now, into: &events)
                return
            case .problem(let p):
                if p.isReadFailure { lastReadError = p.reason }
                if p.isReadFailure, drv.modeName != "buffer", p.reason.contains(Self.busyText) {
                    refused(p, device: drv.device)
                } else {
                    report(p, device: drv.device, now: now)
                }
            case .note(let n):
                log.info("\(drv.device.displayName): \(n)", ["sensor.device": drv.device.id])
            case .resynchronised(let why):
                resynchronised(why, device: drv.device, now: now, into: &events)
            case .gyroProblem(let p):
                gyroFailed(p, now: now, into: &events)
            case .reading(let r):
                lastReadHadData = true
                take(r, buffered: buffered, nextGyro: &nextGyro, now: now, into: &events)
            }
        }
        while nextGyro < gyroReadings.count {    // scans newer than the accelerometer's
            emitGyroscope(gyroReadings[nextGyro], into: &events)
            nextGyro += 1
        }
    }

    /// One accelerometer reading: the gyroscope's readings up to it first, then the
    /// reading conditioned (`SampleConditioner`), or reported and skipped.
    private func take(_ reading: RawReading, buffered: Bool, nextGyro: inout Int, now: Double,
                      into events: inout [SensorEvent]) {
        guard let drv = driver else { return }
        var r = reading
        if buffered {
            // Its scans up to this reading's come first (all of them when either has no
            // timestamp).
            while nextGyro < gyroReadings.count, Self.notAfter(gyroReadings[nextGyro].timestampNs, r.timestampNs) {
                emitGyroscope(gyroReadings[nextGyro], into: &events)
                nextGyro += 1
            }
        } else if gyro.sibling != nil {
            r.gyroRaw = pollGyroscope(now: now, into: &events)
        }
        let t = timeline.time(ofNs: r.timestampNs)
        if let raw = r.gyroRaw { emitGyroscope(raw, at: t, into: &events) }
        switch conditioner.acceleration(raw: r.raw) {
        case .success(let a):
            events.append(.motion(.acceleration(metersPerSecondSquared: a, at: t, scanTimestampNs: r.timestampNs)))
        case .failure(let problem):
            report(problem, device: drv.device, now: now)
        }
    }

    func report(_ p: ReadProblem, device: AccelerometerDescription, now: Double, what: String = "sample") {
        let (allowed, suppressed) = limiter.allow("\(device.id)|\(p.cause)", now: now)
        guard allowed else { return }
        log.warning("\(device.displayName): \(what) skipped: \(p.attribute) = \"\(p.value)\": \(p.reason)"
            + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""),
            ["sensor.device": device.id, "sensor.attribute": p.attribute, "sensor.value": p.value])
    }
}
