import IIO
import Logging
import Motion

/// The paired gyroscope: taken up when it appears, read with the accelerometer or from
/// its own buffer, its readings placed in time, dropped when it goes.
extension AccelerometerService {
    /// Looks for a gyroscope to pair with the attached accelerometer (one appeared, or
    /// the one in use came back) and takes it up with one line; says once why one that
    /// was found is not used (the self-check's verdict stands until the accelerometer
    /// attaches anew).
    func takeUpGyroscope() -> [SensorEvent] {
        // (An input device's gyroscope is its own node's, read from the attach on.)
        guard let drv = driver, var a = attachment, !a.device.isInput, !gyro.isUsed, let udev else { return [] }
        let snapshots: [AttributeSnapshot]
        do { snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed.contains($0.syspath ?? "") } } catch {
            log.debug("no gyroscope looked for: \(error)")
            return []
        }
        let pairing = GyroPairing.pair(accelerometer: a.device, gyroscopes: Discovery.gyroscopes(snapshots),
                                       selector: settings.gyro, configuredMatrix: settings.gyroMountMatrix)
        guard pairing.gyro != nil else {
            log.debug("no gyroscope to take up: \(pairing.reason)")
            return []
        }
        // The accelerometer's libiio context was built before this device existed.
        let context: Context?
        do { context = try Context() } catch {
            context = nil
        }
        let how = gyro.start(pairing, accelerometer: a.device, driver: drv, context: context, local: true,
                             settings: settings, sensorProxy: sensorProxyState)
        guard gyro.isUsed else {
            refuseGyroscope("gyroscope found but not used: \(how)", device: a.device)
            return []
        }
        lastGyroRefusal = nil
        reserveGyroscopeReadings()
        a.gyro = pairing
        attachment = a
        log.notice("now using gyroscope \(how) (it appeared after the accelerometer attached)",
            ["sensor.device": a.device.id, "sensor.gyro": pairing.gyro?.id ?? ""])
        return [.gyroAttached(pairing, how: how)]
    }

    /// Why a gyroscope that appeared is not used: one line per distinct reason.
    func refuseGyroscope(_ line: String, device: AccelerometerDescription) {
        guard line != lastGyroRefusal else { return }
        lastGyroRefusal = line
        log.notice(line, ["sensor.device": device.id])
    }

    /// Room for the most readings a sibling's read gives, so that reads never grow the
    /// array (a kernel buffer holds a bounded number of scans).
    func reserveGyroscopeReadings() {
        if let n = gyro.sibling?.maximumReadingsPerRead { gyroReadings.reserveCapacity(n) }
    }

    /// Stops using the gyroscope with one line; the accelerometer goes on alone.
    func dropGyroscope(_ name: String, why: String, deviceGone: Bool, attribute: String? = nil) -> [SensorEvent] {
        for e in gyro.release(deviceGone: deviceGone) {
            log.warning("\(e)", ["sensor.device": attachment?.device.id ?? ""])
        }
        attachment?.gyro = GyroPairing(gyro: nil, reason: "\(name) went away: \(why)")
        var metadata = ["sensor.device": attachment?.device.id ?? ""]
        if let attribute { metadata["sensor.attribute"] = attribute }
        log.warning("gyroscope \(name) stopped giving readings (\(why)); continuing with the accelerometer alone", metadata)
        return [.gyroDetached(name, reason: why)]
    }


    /// A wakeup by the sibling gyroscope's own buffer alone: its scans, placed by their
    /// timestamps, the newest at `now`. A node readable without data (an emulated one at
    /// its end) is not waited on again until a read finds data.
    func readGyroscopeAlone(now: Double, into events: inout [SensorEvent]) {
        guard readGyroscopeBuffer(now: now, into: &events) else { return }
        if gyroReadings.isEmpty {
            gyro.bufferWakesUs = false
            return
        }
        timeline.begin(now: now, newestNs: gyroReadings.last?.timestampNs)
        for r in gyroReadings { emitGyroscope(r, into: &events) }
    }

    /// Drains the sibling gyroscope's buffer into `gyroReadings`; false unless the
    /// gyroscope is used and read from its own buffer.
    func readGyroscopeBuffer(now: Double, into events: inout [SensorEvent]) -> Bool {
        gyroReadings.removeAll(keepingCapacity: true)
        guard gyro.isBuffered, let sibling = gyro.sibling else { return false }
        gyroProblems.removeAll(keepingCapacity: true)
        sibling.read(into: &gyroReadings, problems: &gyroProblems)
        if !gyroReadings.isEmpty { gyro.bufferWakesUs = true }
        for p in gyroProblems { gyroFailed(p, now: now, into: &events) }
        guard gyro.isUsed else {
            gyroReadings.removeAll(keepingCapacity: true)
            return false
        }
        return true
    }

    /// The polled sibling's counts for the reading in hand, or nil (a problem reported).
    func pollGyroscope(now: Double, into events: inout [SensorEvent]) -> Vector3? {
        guard let sibling = gyro.sibling else { return nil }
        gyroReadings.removeAll(keepingCapacity: true)
        gyroProblems.removeAll(keepingCapacity: true)
        sibling.read(into: &gyroReadings, problems: &gyroProblems)
        for p in gyroProblems { gyroFailed(p, now: now, into: &events) }
        return gyroReadings.last?.raw
    }

    /// Whether a scan with timestamp `a` comes no later than one with `b`; true when
    /// either has none.
    static func notAfter(_ a: Int64?, _ b: Int64?) -> Bool {
        guard let a, let b else { return true }
        return a <= b
    }

    func emitGyroscope(_ r: GyroReading, into events: inout [SensorEvent]) {
        emitGyroscope(r.raw, at: timeline.time(ofNs: r.timestampNs), into: &events)
    }

    /// Counts to rad/s in the device frame; a bad value is reported and skipped.
    func emitGyroscope(_ raw: Vector3, at t: Double, into events: inout [SensorEvent]) {
        guard let cal = gyro.calibration, let drv = driver else { return }
        let w = cal.angularVelocity(raw: raw)
        if let why = SampleRejection.checkRate(w) {
            let text = SampleConditioner.text(raw)
            report(ReadProblem(attribute: "in_anglvel_x_raw,in_anglvel_y_raw,in_anglvel_z_raw", value: text,
                               reason: "\(why)"), device: drv.device, now: t, what: "gyroscope reading")
        } else {
            gyro.failures = 0
            events.append(.motion(.angularVelocity(radiansPerSecond: w, at: t)))
        }
    }

    /// A gyroscope read that failed: a bad value is reported and skipped like a bad
    /// sample; `gyroGiveUp` reads in a row that fail (the device went away) give the
    /// gyroscope up with one line.
    func gyroFailed(_ p: ReadProblem, now: Double, into events: inout [SensorEvent]) {
        guard gyro.isUsed, let drv = driver else { return }
        if p.isReadFailure { gyro.failures += 1 }
        if gyro.failures >= Self.gyroGiveUp {
            let name = gyro.sibling?.device.displayName ?? drv.device.displayName
            events += dropGyroscope(name, why: "\(p.attribute) = \"\(p.value)\": \(p.reason)", deviceGone: true,
                                    attribute: p.attribute)
            return
        }
        report(p, device: drv.device, now: now, what: "gyroscope reading")
    }
}
