import IIO
import Logging
import Motion

/// Attaching: discovery, selection, the driver, the sampling frequency, the gyroscope.
extension AccelerometerService {
    /// Why no device can be looked at (said in the waiting line).
    struct NotFound: Error {
        var reason: String
    }

    /// The devices found, and the libiio context they were found in (nil for sysfs alone,
    /// with libiio's reason).
    struct Found {
        var accelerometers: [AccelerometerDescription]
        var gyroscopes: [GyroscopeDescription]
        var context: Context?
        var contextError: IIOError?
    }

    /// Finds, selects and attaches the accelerometer (`Sensor.device`), or says why it
    /// waits; tried again every second while it waits.
    func attach(now: Double) -> [SensorEvent] {
        nextAttachAttempt = now + 1.0
        var found: Found
        switch discover() {
        case .success(let f): found = f
        case .failure(let why): return waiting(why.reason)
        }
        let selection = SensorSelection.select(settings.device, from: found.accelerometers)
        guard let chosen = selection.chosen else {
            let skipped = selection.notChosen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return waiting(selection.reason + (skipped.isEmpty ? "" : " (" + skipped.joined(separator: "; ") + ")"))
        }
        for p in chosen.mountMatrixProblems {
            log.warning("\(chosen.displayName): \(p.logText); using \(chosen.mountMatrixSource)",
                ["sensor.device": chosen.id, "sensor.attribute": p.source])
        }
        if found.context == nil, !chosen.isInput {
            do { found.context = try Context() } catch { found.contextError = error }
        }
        let pairing = GyroPairing.pair(accelerometer: chosen, gyroscopes: found.gyroscopes, selector: settings.gyro,
                                       configuredMatrix: settings.gyroMountMatrix)
        // The rate the device will sample at once `sampling_frequency` is set.
        let deviceHz = chosen.samplingFrequency.flatMap { $0.target(forRate: settings.rateHz) ?? $0.currentHz }
            ?? settings.rateHz
        // Scans per buffer wakeup. Over the network a refill blocks until its scans came
        // (libiio's network backend has no poll descriptor): one scan per read there.
        let local = chosen.syspath != nil
        let shared = BufferSharing.reason(chosen, sensorProxy: sensorProxyState)
        let scansPerWakeup = local ? settings.scansPerWakeup(deviceHz: deviceHz) : 1
        let made = AccelerometerDriverTable.open(.init(
            device: chosen, context: found.context, contextError: found.contextError, mode: settings.mode, local: local,
            scansPerWakeup: scansPerWakeup, gyro: pairing.gyro.flatMap { $0.id == chosen.id ? $0 : nil }, shared: shared))
        switch made {
        case .success(let (drv, modeReason)):
            context = found.context
            driver = drv
            // An input device is drained once a frame, from the last read; IIO devices are
            // read at Sensor.rate (or woken by their buffer).
            schedule.pace(period: chosen.isInput ? inputReadPeriod : 1 / max(settings.rateHz, 0.1), fromLastRead: chosen.isInput)
            // The batch interval counts only while a buffer wakes the caller.
            schedule.attached(now: now, batchInterval: Double(scansPerWakeup) / deviceHz)
            let a = start(drv, chosen, modeReason: modeReason, selection: selection.reason, pairing: pairing,
                          shared: shared != nil, now: now)
            return [.attached(a)]
        case .failure(let e):
            return waiting("\(e)")
        }
    }

    /// The devices of `Sensor.device`'s kind: a remote context's, or udev's local ones
    /// (less those removed); or why none can be looked at.
    private func discover() -> Result<Found, NotFound> {
        switch settings.device {
        case .uri(let uri):
            do {
                let c = try Context(uri: uri)
                try? c.setTimeout(milliseconds: 5000)
                let snapshots = Discovery.remoteSnapshots(context: c)
                return .success(Found(accelerometers: snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) },
                                      gyroscopes: Discovery.gyroscopes(snapshots), context: c))
            } catch {
                return .failure(NotFound(reason: "cannot open libiio context \(uri): \(error)"))
            }
        case .trace(let f):
            return .failure(NotFound(reason: "trace:\(f) is replayed by the runtime, not read as a sensor"))
        default:
            guard let udev else { return .failure(NotFound(reason: "no udev")) }
            do {
                let snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed.contains($0.syspath ?? "") }
                // Input accelerometers beside them (an enumeration that fails leaves IIO alone).
                let inputs = ((try? InputDiscovery.snapshots(udev: udev)) ?? []).filter { !removed.contains($0.syspath) }
                    .map { AccelerometerDescription(input: $0, configuredMatrix: settings.mountMatrix) }
                return .success(Found(accelerometers: snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) }
                                          + inputs,
                                      gyroscopes: Discovery.gyroscopes(snapshots) + inputs.compactMap(GyroscopeDescription.init(input:))))
            } catch {
                return .failure(NotFound(reason: "\(error)"))
            }
        }
    }

    /// A driver made: the sampling frequency set, the gyroscope started, the attach line.
    private func start(_ drv: any AccelerometerDriver, _ chosen: AccelerometerDescription, modeReason: String,
                       selection: String, pairing: GyroPairing, shared: Bool, now: Double) -> Attachment {
        silence = drv.modeName == "buffer" ? ScanSilence(attachedAt: now) : nil
        conditioner = SampleConditioner(calibration: chosen.calibration(invert: settings.invert))
        let freq = chosen.isInput ? setPollInterval(chosen, driver: drv, shared: shared)
            : setSamplingFrequency(chosen, driver: drv, shared: shared)
        lastGyroRefusal = nil
        let gyroText = gyro.start(pairing, accelerometer: chosen, driver: drv, context: context, local: chosen.syspath != nil,
                                  settings: settings, sensorProxy: sensorProxyState)
        reserveGyroscopeReadings()
        driverEvents.reserveCapacity(drv.maximumReadingsPerRead + 8)
        let a = Attachment(device: chosen, mode: drv.modeName, modeReason: modeReason,
                           selectionReason: selection, samplingFrequency: freq,
                           gyro: gyro.isUsed ? pairing : GyroPairing(gyro: nil, reason: gyroText))
        attachment = a
        lastWaitingReason = nil
        // The selection's reason names the device first, as `shimmerd sensors` lists it;
        // this line has named it already.
        let chosenWhy = selection.hasPrefix(chosen.displayName + ": ") ? String(selection.dropFirst(chosen.displayName.count + 2)) : selection
        log.notice("using \(chosen.displayName) in \(drv.modeName) mode: \(modeReason); chosen: \(chosenWhy); "
            + "mount matrix \(chosen.mountMatrix) from \(chosen.mountMatrixSource); "
            + (chosen.isInput ? "units: \(chosen.input?.unitsSource ?? "?"); rate: " : "") + "\(freq); "
            + "gyroscope: \(gyro.isUsed ? gyroText : "none (\(gyroText))")",
            ["sensor.device": chosen.id, "sensor.mode": drv.modeName])
        return a
    }

    func waiting(_ reason: String) -> [SensorEvent] {
        guard reason != lastWaitingReason else { return [] }
        lastWaitingReason = reason
        log.notice("waiting for an accelerometer: \(reason)")
        return [.waiting(reason)]
    }

    func setSamplingFrequency(_ d: AccelerometerDescription, driver: any AccelerometerDriver, shared: Bool) -> String {
        guard let info = d.samplingFrequency else { return "no sampling_frequency attribute" }
        let (text, restore) = SamplingFrequencyControl.set(info, rateHz: settings.rateHz, syspath: d.syspath, shared: shared,
                                                        write: driver.writeAttribute)
        restoreFrequency = restore
        return text
    }

}
