import IIO
import Logging
import Motion
import Udev

/// Discovery for an attach: the devices of `Sensor.device`'s kind, and the choice among them.
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

    /// A device chosen and its driver opened: what an attach goes on with.
    struct Opened {
        var driver: any AccelerometerDriver
        var modeReason: String
        /// Why this device.
        var selection: String
        var pairing: GyroPairing
        var context: Context?
        /// Another reader may use the device (`BufferSharing`).
        var shared: Bool
        /// Seconds of scans per buffer wakeup.
        var batchInterval: Double
    }

    /// Finds and selects the accelerometer (`Sensor.device`), pairs its gyroscope and
    /// opens its driver (`AccelerometerDriverTable`); or why none can be read.
    static func open(_ settings: AccelerometerSettings, watch: HotplugWatch, log: Logger) -> Result<Opened, NotFound> {
        var found: Found
        switch discover(settings, udev: watch.udevContext, removed: watch.isRemoved) {
        case .success(let f): found = f
        case .failure(let why): return .failure(why)
        }
        let selection = SensorSelection.select(settings.device, from: found.accelerometers)
        guard let chosen = selection.chosen else {
            let skipped = selection.notChosen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return .failure(
                NotFound(
                    reason: selection.reason + (skipped.isEmpty ? "" : " (" + skipped.joined(separator: "; ") + ")")))
        }
        for p in chosen.mountMatrixProblems {
            log.warning(
                "\(chosen.displayName): \(p.logText); using \(chosen.mountMatrixSource)",
                ["sensor.device": chosen.id, "sensor.attribute": p.source])
        }
        if found.context == nil, !chosen.isInput {
            do { found.context = try Context() } catch { found.contextError = error }
        }
        let pairing = GyroPairing.pair(
            accelerometer: chosen, gyroscopes: found.gyroscopes, selector: settings.gyro,
            configuredMatrix: settings.gyroMountMatrix)
        // The rate the device will sample at once `sampling_frequency` is set.
        let deviceHz =
            chosen.samplingFrequency.flatMap { $0.target(forRate: settings.rateHz) ?? $0.currentHz }
            ?? settings.rateHz
        // Scans per buffer wakeup. Over the network a refill blocks until its scans came
        // (libiio's network backend has no poll descriptor): one scan per read there.
        let local = chosen.syspath != nil
        let shared = BufferSharing.reason(chosen, sensorProxy: watch.sensorProxyState)
        let scansPerWakeup = local ? settings.scansPerWakeup(deviceHz: deviceHz) : 1
        let made = AccelerometerDriverTable.open(
            .init(
                device: chosen, context: found.context, contextError: found.contextError, mode: settings.mode,
                local: local,
                scansPerWakeup: scansPerWakeup, gyro: pairing.gyro.flatMap { $0.id == chosen.id ? $0 : nil },
                shared: shared))
        switch made {
        case .success(let (driver, modeReason)):
            return .success(
                Opened(
                    driver: driver, modeReason: modeReason, selection: selection.reason, pairing: pairing,
                    context: found.context, shared: shared != nil,
                    batchInterval: Double(scansPerWakeup) / deviceHz))
        case .failure(let e):
            return .failure(NotFound(reason: "\(e)"))
        }
    }

    /// The devices of `Sensor.device`'s kind: a remote context's, or udev's local ones
    /// (less those `removed`); or why none can be looked at.
    static func discover(
        _ settings: AccelerometerSettings, udev: UdevContext?,
        removed: (String?) -> Bool
    ) -> Result<Found, NotFound> {
        switch settings.device {
        case .uri(let uri):
            do {
                let c = try Context(uri: uri)
                try? c.setTimeout(milliseconds: 5000)
                let snapshots = Discovery.remoteSnapshots(context: c)
                return .success(
                    Found(
                        accelerometers: snapshots.map {
                            AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix)
                        },
                        gyroscopes: Discovery.gyroscopes(snapshots), context: c))
            } catch {
                return .failure(NotFound(reason: "cannot open libiio context \(uri): \(error)"))
            }
        case .trace(let f):
            return .failure(NotFound(reason: "trace:\(f) is replayed by the runtime, not read as a sensor"))
        default:
            guard let udev else { return .failure(NotFound(reason: "no udev")) }
            do {
                let snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed($0.syspath) }
                // Input accelerometers beside them (an enumeration that fails leaves IIO alone).
                let inputs = ((try? InputDiscovery.snapshots(udev: udev)) ?? []).filter { !removed($0.syspath) }
                    .map { AccelerometerDescription(input: $0, configuredMatrix: settings.mountMatrix) }
                return .success(
                    Found(
                        accelerometers: snapshots.map {
                            AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix)
                        }
                            + inputs,
                        gyroscopes: Discovery.gyroscopes(snapshots)
                            + inputs.compactMap(GyroscopeDescription.init(input:))))
            } catch {
                return .failure(NotFound(reason: "\(error)"))
            }
        }
    }

    /// The gyroscopes udev lists now (less those `removed`), for one taken up later.
    static func localGyroscopes(udev: UdevContext, removed: (String?) -> Bool) throws -> [GyroscopeDescription] {
        Discovery.gyroscopes(try Discovery.localSnapshots(udev: udev).filter { !removed($0.syspath) })
    }

    /// The line `using ...` says for an attach: the device, its mode and why, why it was
    /// chosen, its mount matrix, its rate and its gyroscope.
    static func attachLine(_ a: Attachment, gyroscope: String) -> String {
        let d = a.device
        // The selection's reason names the device first, as `shimmerd sensors` lists it;
        // this line has named it already.
        let chosenWhy =
            a.selectionReason.hasPrefix(d.displayName + ": ")
            ? String(a.selectionReason.dropFirst(d.displayName.count + 2)) : a.selectionReason
        return "using \(d.displayName) in \(a.mode) mode: \(a.modeReason); chosen: \(chosenWhy); "
            + "mount matrix \(d.mountMatrix) from \(d.mountMatrixSource); "
            + (d.isInput ? "units: \(d.input?.unitsSource ?? "?"); rate: " : "") + "\(a.samplingFrequency); "
            + "gyroscope: \(gyroscope); at rest: \(a.restWatch) (\(a.restWatchReason))"
    }
}
