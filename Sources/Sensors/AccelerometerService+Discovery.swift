import IIO
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

    /// The devices of `Sensor.device`'s kind: a remote context's, or udev's local ones
    /// (less those `removed`); or why none can be looked at.
    static func discover(_ settings: AccelerometerSettings, udev: UdevContext?,
                         removed: (String?) -> Bool) -> Result<Found, NotFound> {
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
                let snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed($0.syspath) }
                // Input accelerometers beside them (an enumeration that fails leaves IIO alone).
                let inputs = ((try? InputDiscovery.snapshots(udev: udev)) ?? []).filter { !removed($0.syspath) }
                    .map { AccelerometerDescription(input: $0, configuredMatrix: settings.mountMatrix) }
                return .success(Found(accelerometers: snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) }
                                          + inputs,
                                      gyroscopes: Discovery.gyroscopes(snapshots) + inputs.compactMap(GyroscopeDescription.init(input:))))
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
        let chosenWhy = a.selectionReason.hasPrefix(d.displayName + ": ")
            ? String(a.selectionReason.dropFirst(d.displayName.count + 2)) : a.selectionReason
        return "using \(d.displayName) in \(a.mode) mode: \(a.modeReason); chosen: \(chosenWhy); "
            + "mount matrix \(d.mountMatrix) from \(d.mountMatrixSource); "
            + (d.isInput ? "units: \(d.input?.unitsSource ?? "?"); rate: " : "") + "\(a.samplingFrequency); "
            + "gyroscope: \(gyroscope)"
    }
}
