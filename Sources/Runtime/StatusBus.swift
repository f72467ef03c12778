import Logging
import Sensors
import Systemd
import Tracing

/// The daemon on the system bus: the name `org.shimmerd.Shimmerd1`, one object
/// `/org/shimmerd/Shimmerd1` with the interface of the same name: read-only properties for
/// a desktop widget (the sensor and gyroscope in use and how they are read, the
/// baseline's age, dPitch, dRoll, the focal point, the sink, frames published, the state)
/// and `Recalibrate()`, a new baseline. The policy of who may call what is the bus's
/// (dbus/org.shimmerd.Shimmerd1.conf: anyone may read, root and group shimmerd may
/// recalibrate).
///
/// Never blocks the loop: sd-bus's descriptor is in the loop's poll set and is processed
/// only when readable; requests, replies and signals are all asynchronous.
/// `PropertiesChanged` goes out at most every `minimumInterval` seconds, with what changed.
/// No system bus (a container, early boot, a test) is one log line; the daemon goes on.
package final class StatusBus {
    package static let name = "org.shimmerd.Shimmerd1"
    package static let path = "/org/shimmerd/Shimmerd1"
    package static let interface = "org.shimmerd.Shimmerd1"
    /// Seconds between two `PropertiesChanged`: 10 a second is smooth for a widget and
    /// costs the loop nothing it would notice.
    static let minimumInterval = 0.1

    /// One property: its name, D-Bus type, whether changes are signalled, what it is.
    package struct Property {
        package var name: String
        package var type: String
        package var signalled: Bool
        package var doc: String
    }

    package static let properties: [Property] = [
        Property(name: "State", type: "s", signalled: true,
                 doc: "waiting (no accelerometer), moving, or still (the device lies still: no frames)"),
        Property(name: "Sensor", type: "s", signalled: true, doc: "the accelerometer in use, e.g. iio:device0 (bmc150_accel); empty while waiting"),
        Property(name: "SensorMode", type: "s", signalled: true, doc: "how it is read: poll, buffer or sysfs-poll; empty while waiting"),
        Property(name: "SensorModeReason", type: "s", signalled: true, doc: "why that mode (iio-sensor-proxy sharing the device, permissions, Sensor.mode)"),
        Property(name: "Gyroscope", type: "s", signalled: true, doc: "the gyroscope fused with it, or empty"),
        Property(name: "BaselineAge", type: "d", signalled: false,
                 doc: "seconds since the baseline was captured; -1 without one (not signalled: it changes all the time)"),
        Property(name: "DPitch", type: "d", signalled: true, doc: "radians, top edge toward the viewer positive (attitude.md)"),
        Property(name: "DRoll", type: "d", signalled: true, doc: "radians, clockwise in the screen's plane positive (attitude.md)"),
        Property(name: "FocalPoint", type: "(dd)", signalled: true, doc: "the drawn focal point, points on the card"),
        Property(name: "Sink", type: "s", signalled: true, doc: "where frames go, e.g. shm /dev/shm/shimmer"),
        Property(name: "FramesPublished", type: "t", signalled: true, doc: "frames published since the daemon started"),
    ]

    /// The `<interface>` element: what the daemon serves and the package installs as
    /// /usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml (a test keeps them equal).
    package static var interfaceXML: String {
        var x = " <interface name=\"\(interface)\">\n"
        x += "  <!-- Capture a new baseline from the next readings (as SIGUSR1 does). -->\n"
        x += "  <method name=\"Recalibrate\"/>\n"
        for p in properties {
            x += "  <!-- \(p.name): \(p.doc). -->\n"
            x += "  <property name=\"\(p.name)\" type=\"\(p.type)\" access=\"read\""
            x += p.signalled ? "/>\n"
                : ">\n   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>\n  </property>\n"
        }
        return x + " </interface>\n"
    }

    /// /usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml: the interface as a node.
    package static var introspectionFile: String {
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
            + " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n\(interfaceXML)</node>\n"
    }

    /// What the properties show; the loop keeps it up to date (`Pipeline`).
    package struct Status: Equatable {
        var state = "waiting"
        var sensor = ""
        var sensorMode = ""
        var sensorModeReason = ""
        var gyroscope = ""
        /// When the baseline was captured, on the daemon's clock.
        var baselineAt: Double?
        var dPitch = 0.0
        var dRoll = 0.0
        var focal = (x: 0.0, y: 0.0)
        var sink = ""
        var frames: UInt64 = 0

        package static func == (a: Status, b: Status) -> Bool {
            a.state == b.state && a.sensor == b.sensor && a.sensorMode == b.sensorMode
                && a.sensorModeReason == b.sensorModeReason && a.gyroscope == b.gyroscope && a.dPitch == b.dPitch
                && a.dRoll == b.dRoll && a.focal == b.focal && a.sink == b.sink && a.frames == b.frames
        }
    }

    package var status = Status()
    private let bus: SystemBus
    private var object: BusObject?
    private let clock: () -> Double
    private let log: Logger
    private var emitted = Status()
    private var lastEmit = -Double.infinity
    /// `Recalibrate()` callers not yet acted on (their unique names).
    private var recalibrations: [String] = []

    /// Nil, with one line, when there is no system bus or the object cannot be served.
    package init?(log: Logger, clock: @escaping () -> Double) {
        self.log = log
        self.clock = clock
        do { bus = try SystemBus() } catch {
            log.info("no system bus (\(error)): \(Self.name) is not offered; the daemon runs without it")
            return nil
        }
        do {
            object = try BusObject(bus: bus, path: Self.path, interface: Self.interface,
                                   properties: Self.properties.map(\.name), methods: ["Recalibrate"],
                                   interfaceXML: Self.interfaceXML,
                                   value: { [unowned self] in value(of: $0) },
                                   call: { [unowned self] _, sender in recalibrations.append(sender ?? "?") })
            try bus.requestName(Self.name) { [log] why in
                if let why {
                    log.warning("system bus: \(Self.name) not taken (\(why)); the properties and Recalibrate() are not offered")
                } else {
                    log.info("system bus: serving \(Self.name) at \(Self.path)")
                }
            }
        } catch {
            log.warning("system bus: \(Self.name) not offered: \(error)")
            return nil
        }
    }

    package var fileDescriptor: Int32 { bus.fileDescriptor }
    /// Connections holding a claim.
    package var claims: Int { 0 }
    /// Whether the connection is up.
    package var isConnected: Bool { object != nil }

    /// Takes what the bus sent (calls are answered from `status`); returns the callers
    /// of `Recalibrate()` since the last call.
    package func process() -> [String] {
        if !bus.process() {
            log.warning("system bus: the connection was lost; \(Self.name) is no longer offered")
            object = nil
        }
        defer { recalibrations.removeAll() }
        return recalibrations
    }

    /// Whether a `PropertiesChanged` may go out now.
    package func isDue(now: Double) -> Bool { object != nil && now - lastEmit >= Self.minimumInterval }

    /// `PropertiesChanged` with what changed since the last one, at most every
    /// `minimumInterval` seconds.
    package func publish(now: Double) {
        guard let object, isDue(now: now), status != emitted else { return }
        var changed: [(String, BusValue)] = []
        for p in Self.properties where p.signalled {
            if let v = value(of: p.name, in: status), v != value(of: p.name, in: emitted) { changed.append((p.name, v)) }
        }
        emitted = status
        lastEmit = now
        object.emitPropertiesChanged(changed)
        bus.process()     // writes what was queued
    }

    private func value(of name: String) -> BusValue? { value(of: name, in: status) }

    private func value(of name: String, in s: Status) -> BusValue? {
        switch name {
        case "State": .string(s.state)
        case "Sensor": .string(s.sensor)
        case "SensorMode": .string(s.sensorMode)
        case "SensorModeReason": .string(s.sensorModeReason)
        case "Gyroscope": .string(s.gyroscope)
        case "BaselineAge": .double(s.baselineAt.map { clock() - $0 } ?? -1)
        case "DPitch": .double(s.dPitch)
        case "DRoll": .double(s.dRoll)
        case "FocalPoint": .point(s.focal.x, s.focal.y)
        case "Sink": .string(s.sink)
        case "FramesPublished": .uint64(s.frames)
        default: nil
        }
    }
}
