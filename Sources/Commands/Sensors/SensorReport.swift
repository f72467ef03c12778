import IIO
import LinuxSystem
import Motion
import Sensors
import Udev

/// What `shimmerd sensors` prints: every IIO device found, what it is, and which one
/// `Sensor.device` picks and why. The command only formats and prints it.
package struct SensorReport: Sendable {
    package var selector: DeviceSelector
    /// `local` (libudev) or the libiio URI.
    package var source: String
    package var devices: [AccelerometerDescription]
    package var selection: SensorSelection
    /// The mode each accelerometer would be read in (nil: unavailable), and why.
    package var modes: [String: (mode: DriverMode?, reason: String)]
    /// Whether libiio can build a local context (else the sysfs fallback is used).
    package var libiioLocal: String
    /// Every gyroscope found, and the one paired with the chosen accelerometer.
    package var gyroscopes: [GyroscopeDescription] = []
    package var pairing: GyroPairing?
    /// No IIO devices at all: the reason says so, and libiio's failure is not repeated.
    package var iioAbsent = false

    /// Discovers now.
    package static func gather(settings: AccelerometerSettings) throws(SensorError) -> SensorReport {
        let snapshots: [AttributeSnapshot]
        var source = "local"
        var context: Context?
        var libiio = "ok"
        var inputs: [AccelerometerDescription] = []
        if case .uri(let uri) = settings.device {
            do { context = try Context(uri: uri) } catch {
                throw SensorError(device: "uri:\(uri)", "cannot open libiio context: \(error)")
            }
            source = uri
            snapshots = Discovery.remoteSnapshots(context: context!)
        } else {
            let udev: UdevContext
            do { udev = try UdevContext() } catch { throw SensorError(device: "udev", "\(error)") }
            snapshots = try Discovery.localSnapshots(udev: udev)
            do { context = try Context() } catch {
                libiio = "libiio cannot build a local context (\(error)); sysfs is read directly, poll mode only"
            }
            inputs = ((try? InputDiscovery.snapshots(udev: udev)) ?? [])
                .map { AccelerometerDescription(input: $0, configuredMatrix: settings.mountMatrix) }
        }
        let devices =
            snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) } + inputs
        let gyroscopes = Discovery.gyroscopes(snapshots) + inputs.compactMap(GyroscopeDescription.init(input:))
        var selection = SensorSelection.select(settings.device, from: devices)
        // A machine without IIO at all (no driver loaded, a VM): libiio's failure to build
        // a context follows from that and is no news of its own.
        let iioAbsent = source == "local" && snapshots.isEmpty && !FileSystem.isDirectory(Self.iioDevices)
        if iioAbsent, selection.chosen == nil {
            selection.reason =
                "no IIO devices (\(Self.iioDevices) is absent)"
                + (inputs.isEmpty ? "" : "; \(selection.reason)")
        }
        var modes: [String: (mode: DriverMode?, reason: String)] = [:]
        for d in devices where d.isAccelerometer {
            if d.isInput {
                modes[d.id] = (.input, "an input device: its event node read through libevdev")
                continue
            }
            if context == nil {
                modes[d.id] = (.sysfsPoll, libiio)
                continue
            }
            let problem = BufferPermission.problem(d, local: d.syspath != nil)
            switch settings.mode {
            case .poll: modes[d.id] = (.poll, "Sensor.mode = poll")
            case .buffer:
                modes[d.id] =
                    problem.map { (nil, "Sensor.mode = buffer, but \($0)") } ?? (.buffer, "Sensor.mode = buffer")
            case .auto:
                modes[d.id] =
                    problem.map { (.poll, "auto: \($0)") }
                    ?? (.buffer, "auto: scan elements, trigger \(d.trigger ?? "?") and writable buffer attributes")
            }
        }
        let pairing = selection.chosen.map {
            GyroPairing.pair(
                accelerometer: $0, gyroscopes: gyroscopes, selector: settings.gyro,
                configuredMatrix: settings.gyroMountMatrix)
        }
        return SensorReport(
            selector: settings.device, source: source, devices: devices, selection: selection,
            modes: modes, libiioLocal: libiio, gyroscopes: gyroscopes, pairing: pairing, iioAbsent: iioAbsent)
    }

    package var json: SensorJSON {
        .object([
            ("selector", .string(selector.description)),
            ("source", .string(source)),
            ("libiio_local_context", .string(libiioLocal)),
            ("selected", .optional(selection.chosen?.id)),
            ("reason", .string(selection.reason)),
            ("devices", .array(devices.map(deviceJSON))),
            ("gyroscopes", .array(gyroscopes.map(gyroJSON))),
            (
                "gyro_pairing",
                pairing.map { p in
                    .object([
                        ("accelerometer", .optional(selection.chosen?.id)), ("gyroscope", .optional(p.gyro?.id)),
                        ("reason", .string(p.reason)),
                        ("mount_matrix", p.calibration.map { .matrix($0.mountMatrix) } ?? .null),
                        ("mount_matrix_sign", p.calibration.map { .number($0.sign) } ?? .null),
                        ("mount_matrix_source", .optional(p.matrixSource)),
                    ])
                } ?? .null
            ),
        ])
    }

    private func gyroJSON(_ g: GyroscopeDescription) -> SensorJSON {
        .object([
            ("device", .string(g.id)),
            ("name", .optional(g.name)),
            ("label", .optional(g.label)),
            ("syspath", .optional(g.syspath)),
            ("usable", .bool(g.isUsable)),
            ("skipped", .optional(g.skipReason)),
            ("channels", .array(g.channels.map(SensorJSON.string))),
            ("scale", .vector(g.scale)),
            ("offset", .vector(g.offset)),
            ("mount_matrix", .matrix(g.ownMatrix)),
            ("mount_matrix_source", .string(g.ownMatrixSource)),
            ("mount_matrix_problems", .array(g.ownMatrixProblems.map { .string($0.description) })),
            ("poll_capable", .bool(g.pollCapable)),
            ("buffer_capable", .bool(g.bufferCapable)),
            ("paired", .bool(pairing?.gyro?.id == g.id)),
        ])
    }

    private func sourceText(_ s: AxisValueSource?) -> SensorJSON {
        switch s {
        case .perAxis(let a)?: .string("sysfs:\(a)")
        case .shared(let a)?: .string("sysfs:\(a)")
        case .defaulted?: .string("default")
        case nil: .null
        }
    }

    private func deviceJSON(_ d: AccelerometerDescription) -> SensorJSON {
        let selected = selection.chosen?.id == d.id
        var o: [(String, SensorJSON)] = [
            ("device", .string(d.id)),
            ("name", .optional(d.name)),
            ("label", .optional(d.label)),
            ("syspath", .optional(d.syspath)),
            ("devnode", .optional(d.devnode)),
            ("accelerometer", .bool(d.isAccelerometer)),
            ("usable", .bool(d.isUsable)),
            ("selected", .bool(selected)),
            ("why", .optional(selected ? selection.reason : selection.notChosen[d.id])),
        ]
        guard d.isAccelerometer else { return .object(o) }
        o += [
            ("location", .string(d.location.rawValue)),
            ("location_source", .string(d.locationSource)),
            ("channels", .array(d.channels.map(SensorJSON.string))),
            ("scale", .vector(d.scale)),
            ("scale_source", .array(Axis.allCases.map { sourceText(d.scaleSources[$0]) })),
            ("offset", .vector(d.offset)),
            ("offset_source", .array(Axis.allCases.map { sourceText(d.offsetSources[$0]) })),
            ("mount_matrix", .matrix(d.mountMatrix)),
            ("mount_matrix_source", .string(d.mountMatrixSource)),
            ("mount_matrix_problems", .array(d.mountMatrixProblems.map { .string($0.description) })),
            (
                "sampling_frequency",
                d.samplingFrequency.map { f in
                    .object([
                        ("attribute", .string(f.attribute)), ("current", f.currentHz.map(SensorJSON.number) ?? .null),
                        ("available", .array(f.availableHz.map(SensorJSON.number))),
                    ])
                } ?? .null
            ),
            ("poll_capable", .bool(d.pollCapable)),
            ("buffer_capable", .bool(d.bufferCapable)),
            ("trigger", .optional(d.trigger)),
            (
                "scan_elements",
                .array(
                    d.scanElements.map { e in
                        .object([("channel", .string(e.name)), ("index", .int(e.index)), ("type", .string(e.type))])
                    })
            ),
            ("mode", .optional(modes[d.id].map { $0.mode?.rawValue ?? "unavailable" })),
            ("mode_reason", .optional(modes[d.id]?.reason)),
            ("rest_watch", .optional(restWatch(d)?.watch.rawValue)),
            ("rest_watch_reason", .optional(restWatch(d)?.why)),
            (
                "udev",
                .object(
                    d.udevProperties.filter { $0.key.hasPrefix("ACCEL_") || $0.key == "IIO_SENSOR_PROXY_TYPE" }
                        .sorted { $0.key < $1.key }.map { ($0.key, SensorJSON.string($0.value)) })
            ),
        ]
        if let i = d.input { o.append(("input", inputJSON(i))) }
        return .object(o)
    }

    /// What tells the daemon that the device moved while it lies still, in the mode it
    /// would be read in; nil where no mode would read it.
    func restWatch(_ d: AccelerometerDescription) -> (watch: RestWatch, why: String)? {
        guard let m = modes[d.id]?.mode else { return nil }
        return RestWatch.choose(d, mode: m)
    }

    /// Where the kernel lists IIO devices (sysfs-bus-iio ABI).
    static let iioDevices = "/sys/bus/iio/devices"

    /// Human-readable lines.
    package var lines: [String] {
        var out = [
            "Sensor.device = \(selector) (\(source)): "
                + "\(selection.chosen.map { "uses \($0.id)" } ?? "nothing usable")",
            "  why: \(selection.reason)",
        ]
        if libiioLocal != "ok" && !iioAbsent { out.append("  note: \(libiioLocal)") }
        for d in devices {
            let mark = selection.chosen?.id == d.id ? "*" : " "
            out.append("\(mark) \(d.id): \(d.name ?? "(no name)")" + (d.label.map { " label=\($0)" } ?? ""))
            if !d.isAccelerometer || !d.isUsable {
                out.append("    skipped: \(d.skipReason ?? "")")
                continue
            }
            out.append("    location: \(d.location.rawValue) (\(d.locationSource))")
            out.append("    channels: \(d.channels.joined(separator: " "))")
            out.append(
                "    scale: \(d.scale.x) \(d.scale.y) \(d.scale.z) m/s^2 per count; offset: "
                    + "\(d.offset.x) \(d.offset.y) \(d.offset.z)")
            out.append("    mount matrix: \(d.mountMatrix) (\(d.mountMatrixSource))")
            for p in d.mountMatrixProblems { out.append("    ignored: \(p)") }
            if let f = d.samplingFrequency {
                out.append(
                    "    sampling frequency: \(f.currentText) Hz (\(f.attribute)); available: "
                        + (f.availableHz.isEmpty
                            ? "not listed"
                            : f.availableHz.map { SamplingFrequencyInfo.text($0) }.joined(separator: " ")))
            }
            if let i = d.input {
                out += inputLines(i)
            } else {
                out.append(
                    "    poll: \(d.pollCapable ? "yes" : "no"); buffer: \(d.bufferCapable ? "yes" : "no")"
                        + (d.trigger.map { ", trigger \($0)" } ?? ""))
            }
            if let m = modes[d.id] { out.append("    mode: \(m.mode?.rawValue ?? "unavailable") (\(m.reason))") }
            if let r = restWatch(d) { out.append("    at rest: \(r.watch.rawValue) (\(r.why))") }
            if let why = selection.notChosen[d.id] { out.append("    not chosen: \(why)") }
        }
        if !gyroscopes.isEmpty { out.append("gyroscopes:") }
        for g in gyroscopes {
            let mark = pairing?.gyro?.id == g.id ? "*" : " "
            out.append("\(mark) \(g.id): \(g.name ?? "(no name)")" + (g.label.map { " label=\($0)" } ?? ""))
            if let why = g.skipReason {
                out.append("    skipped: \(why)")
                continue
            }
            out.append("    channels: \(g.channels.joined(separator: " "))")
            out.append(
                "    scale: \(g.scale.x) \(g.scale.y) \(g.scale.z) rad/s per count; offset: "
                    + "\(g.offset.x) \(g.offset.y) \(g.offset.z)")
            out.append("    own mount matrix: \(g.ownMatrix) (\(g.ownMatrixSource))")
            for p in g.ownMatrixProblems { out.append("    ignored: \(p)") }
            out.append("    poll: \(g.pollCapable ? "yes" : "no"); buffer: \(g.bufferCapable ? "yes" : "no")")
        }
        if let p = pairing, let a = selection.chosen {
            if let g = p.gyro, let c = p.calibration {
                out.append("gyroscope: \(a.id) pairs with \(g.id): \(p.reason)")
                out.append("    frame: \(c.sign < 0 ? "-1 * " : "")\(c.mountMatrix) (\(p.matrixSource ?? ""))")
            } else {
                out.append("gyroscope: none for \(a.id): \(p.reason)")
            }
        }
        return out
    }
}
