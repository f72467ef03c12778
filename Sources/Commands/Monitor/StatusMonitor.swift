import Glibc
import LinuxSystem
import Runtime
import Sensors
import Systemd

/// `shimmerd monitor --dbus`: the running daemon's state as its bus object shows it
/// (`StatusBus`), one line (or JSON object) at start and one per `PropertiesChanged`, until
/// interrupted or `duration` passes. The text line quotes the sensor's name as the bus
/// gives it: `emit` escapes it (`CommandContext.line`). Needs no access to the sensor: anyone the bus's
/// policy lets read may watch. Only the daemon's own signals are read (`SystemBus.watchProperties`:
/// from the name's owner now), and of them only the interface's properties with their types,
/// strings cut to `maximumStringBytes`: the lines stay as long as the daemon makes them.
package enum StatusMonitor {
    /// The longest string value shown: longer than any the daemon sends (a sensor's name, a
    /// sentence of why it is read so), so that no value makes a line without end.
    static let maximumStringBytes = 1024
    /// The properties of the interface and their types: nothing else is kept or shown.
    static let accepted = Dictionary(uniqueKeysWithValues: StatusBus.properties.map { ($0.name, $0.type) })

    package static func run(json: Bool, duration: Double?, emit: (String) -> Void) throws(Failure) {
        // Any connection may send this one a message of up to 128 MiB (dbus-daemon's limit):
        // sd-bus holds each whole while it is read. Mapped on its own, such a block is given
        // back once read instead of staying in the heap.
        Heap.mapBlocks(largerThan: 256 << 10)
        let bus: SystemBus
        do { bus = try SystemBus() } catch {
            throw Failure(.unavailable, "monitor --dbus: no system bus: \(error)")
        }
        var state: [String: BusValue] = [:]
        var pending: [(String, BusValue)]?
        do {
            try bus.watchProperties(
                destination: StatusBus.name, path: StatusBus.path, interface: StatusBus.interface,
                accepting: accepted, maximumStringBytes: maximumStringBytes
            ) {
                pending = (pending ?? []) + $0
            }
        } catch {
            throw Failure(.unavailable, "monitor --dbus: \(error)")
        }
        let signals = ProcessSignals.take([.interrupt, .terminate])
        let start = MonotonicClock.seconds()
        var readable: [Int32] = []
        while true {
            if signals.mayBePending(readable: readable), !signals.drain().isEmpty { return }
            let now = MonotonicClock.seconds() - start
            if let d = duration, now >= d { return }
            bus.process()
            if let why = bus.propertiesFailure {
                throw Failure(.unavailable, "monitor --dbus: \(StatusBus.name): \(why)")
            }
            if let changed = pending {
                pending = nil
                for (k, v) in changed { state[k] = v }
                emit(json ? jsonLine(state, changed: changed.map(\.0), at: now) : textLine(state))
            }
            var fds = [bus.fileDescriptor]
            if let s = signals.fileDescriptor { fds.append(s) }
            var timeout = 0.25
            if let d = duration { timeout = min(timeout, max(0, d - now)) }
            ReadinessPoll.waitReadable(fds, timeoutSeconds: timeout, into: &readable)
        }
    }

    /// `moving  dPitch 1.20 deg  dRoll -3.40 deg  focal 175.0,233.3  iio:device0 (bmc150_accel) poll  12 frames`.
    static func textLine(_ s: [String: BusValue]) -> String {
        func text(_ k: String) -> String {
            if case .string(let v)? = s[k] { return v }
            return "?"
        }
        func degrees(_ k: String) -> String {
            guard case .double(let r)? = s[k] else { return "?" }
            return fixed(r * 180 / Double.pi, 2)
        }
        var focal = "?"
        if case .point(let x, let y)? = s["FocalPoint"] { focal = "\(fixed(x, 1)),\(fixed(y, 1))" }
        var frames = "?"
        if case .uint64(let n)? = s["FramesPublished"] { frames = String(n) }
        let sensor = text("Sensor").isEmpty ? "no accelerometer" : "\(text("Sensor")) \(text("SensorMode"))"
        return "\(text("State"))  dPitch \(degrees("DPitch")) deg  dRoll \(degrees("DRoll")) deg  focal \(focal)  "
            + "\(sensor)  \(frames) frames"
    }

    static func jsonLine(_ s: [String: BusValue], changed: [String], at t: Double) -> String {
        var fields: [(String, SensorJSON)] = [
            ("type", .string("status")), ("t", .number(t)),
            ("changed", .array(changed.map(SensorJSON.string))),
        ]
        for p in StatusBus.properties {
            switch s[p.name] {
            case .string(let v)?: fields.append((p.name, .string(v)))
            case .double(let v)?: fields.append((p.name, .number(v)))
            case .uint64(let v)?: fields.append((p.name, .number(Double(v))))
            case .uint32(let v)?: fields.append((p.name, .number(Double(v))))
            case .bool(let v)?: fields.append((p.name, .bool(v)))
            case .point(let x, let y)?: fields.append((p.name, .array([.number(x), .number(y)])))
            case nil: break
            }
        }
        return SensorJSON.object(fields).text
    }

    /// `v` with `digits` decimals, C locale.
    private static func fixed(_ v: Double, _ digits: Int) -> String {
        let scale = Double([1, 10, 100, 1000][min(digits, 3)])
        let n = (abs(v) * scale).rounded()
        // A value no run produces (the bus says what its owner sends): Swift's text of it,
        // not an Int that overflows.
        guard n < 1e15 else { return "\(v)" }
        let whole = Int(n / scale), frac = Int(n) % Int(scale)
        let f = String(frac)
        return (v < 0 && n > 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - f.count) + f
    }
}
