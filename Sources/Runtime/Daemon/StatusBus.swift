import Glibc
import LinuxSystem
import Logging
import Sensors
import Systemd
import Tracing

/// What the loop asks of the daemon's readers and tells them: claims and `Recalibrate()`
/// in, the status out. `StatusBus` on the system bus in the running daemon.
package protocol StatusChannel: AnyObject {
    /// The connections holding a claim now.
    var claims: Int { get }
    /// A claim was made in the last `process`, even if it has ended since: someone looked.
    var claimedSinceProcess: Bool { get }
    /// The descriptor to poll before the next wait, and the seconds after which `process`
    /// is due anyway (nil: none).
    func pollRequest() -> (fd: Int32, events: Int16, timeoutSeconds: Double?)
    /// Takes what came in, when `readable` holds `pollRequest()`'s descriptor or its
    /// timeout has passed; returns what was asked of the loop.
    func process(readable: [Int32]) -> StatusBus.BusRequests
    /// Whether `publish` may go out now.
    func isDue(now: Double) -> Bool
    /// The status the readers see from now on, signalled with what changed when due.
    func publish(_ status: StatusBus.Status, now: Double)
}

/// The daemon on the system bus: the name `org.shimmerd.Shimmerd1`, one object
/// `/org/shimmerd/Shimmerd1` with the interface of the same name: read-only properties for
/// a desktop widget (the sensor and gyroscope in use and how they are read, the
/// baseline's age, dPitch, dRoll, the focal point, the sink, frames published, the state,
/// the claims), `Recalibrate()`, a new baseline, and `Claim()`/`Release()`, which say that
/// someone looks at the card. The policy of who may call what is the bus's
/// (dbus/org.shimmerd.Shimmerd1.conf: anyone may read and claim, root and group shimmerd
/// may recalibrate).
///
/// A claim belongs to the caller's connection: it ends with `Release()` or when that
/// connection closes (`BusPeerTrack`), one per connection however often it claims.
///
/// Never blocks the loop, and a caller cannot make it: requests, replies and signals are
/// all asynchronous; the loop polls `pollRequest()`'s descriptor, which is readable when
/// the connection has what sd-bus waits for (incoming messages, room for queued replies)
/// and `process` handles a bounded number of messages per wakeup (`ReconnectingBus`).
/// Recalibrate() calls of one wakeup are one recapture and at most one log line, and the
/// lines go through a rate limiter. `PropertiesChanged` goes out at most every
/// `minimumInterval` seconds, with what changed. A bus that restarts over and over is told
/// for at most three of its restarts a minute (`FlapLimiter`), each whole: its loss and the
/// name served again.
///
/// No system bus at start (a container, a test) is one log line; the daemon goes on. A
/// bus that goes away later is connected to again (`ReconnectingBus`), and the name is
/// queued for: another owner's leaving hands it over.
package final class StatusBus: StatusChannel {
    package static let name = "org.shimmerd.Shimmerd1"
    package static let path = "/org/shimmerd/Shimmerd1"
    package static let interface = "org.shimmerd.Shimmerd1"
    /// Seconds between two `PropertiesChanged`: 10 a second is smooth for a widget and
    /// costs the loop nothing it would notice.
    static let minimumInterval = 0.1
    /// The most connections that may hold a claim at once (each costs a match rule on the
    /// bus, which allows 512 per connection); a further `Claim()` is refused.
    package static let maximumClaims = 256

    /// One property: its name, D-Bus type, whether changes are signalled, what it is.
    package struct Property {
        package var name: String
        package var type: String
        package var signalled: Bool
        package var doc: String
    }

    /// One method (none takes arguments): its name and what it does.
    package static let methods: [(name: String, doc: String)] = [
        (
            "Recalibrate",
            "Capture a new baseline from the next readings (as SIGUSR1 does). Root and group shimmerd may call it"
        ),
        (
            "Claim",
            "Say that the caller looks at the card, until Release() or until its connection closes; "
                + "a second Claim() of the same connection changes nothing. Anyone may call it"
        ),
        ("Release", "End the caller's claim; without one, nothing happens"),
    ]

    package static let properties: [Property] = [
        Property(
            name: "State", type: "s", signalled: true,
            doc: "waiting (no accelerometer), idle (nobody looks: the sensor is not read), moving, "
                + "or still (the device lies still: no frames)"),
        Property(
            name: "Sensor", type: "s", signalled: true,
            doc: "the accelerometer in use, e.g. iio:device0 (bmc150_accel); empty while waiting"),
        Property(
            name: "SensorMode", type: "s", signalled: true,
            doc: "how it is read: poll, buffer, sysfs-poll or input; empty while waiting"),
        Property(
            name: "SensorModeReason", type: "s", signalled: true,
            doc: "why that mode (iio-sensor-proxy sharing the device, permissions, Sensor.mode)"),
        Property(name: "Gyroscope", type: "s", signalled: true, doc: "the gyroscope fused with it, or empty"),
        Property(
            name: "BaselineAge", type: "d", signalled: false,
            doc: "seconds since the baseline was captured; -1 without one (not signalled: it changes all the time)"),
        Property(
            name: "DPitch", type: "d", signalled: true,
            doc: "radians, top edge toward the viewer positive (docs/TILT.md)"),
        Property(
            name: "DRoll", type: "d", signalled: true,
            doc: "radians, clockwise in the screen's plane positive (docs/TILT.md)"),
        Property(name: "FocalPoint", type: "(dd)", signalled: true, doc: "the drawn focal point, points on the card"),
        Property(name: "Sink", type: "s", signalled: true, doc: "where frames go, e.g. shm /dev/shm/shimmer"),
        Property(name: "FramesPublished", type: "t", signalled: true, doc: "frames published since the daemon started"),
        Property(name: "Claims", type: "u", signalled: true, doc: "the connections holding a claim (Claim())"),
    ]

    /// The `<interface>` element: what the daemon serves and the package installs as
    /// /usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml (a test keeps them equal).
    package static var interfaceXML: String {
        var x = " <interface name=\"\(interface)\">\n"
        for m in methods {
            x += "  <!-- \(m.doc). -->\n"
            x += "  <method name=\"\(m.name)\"/>\n"
        }
        for p in properties {
            x += "  <!-- \(p.name): \(p.doc). -->\n"
            x += "  <property name=\"\(p.name)\" type=\"\(p.type)\" access=\"read\""
            x +=
                p.signalled
                ? "/>\n"
                : ">\n   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>\n  </property>\n"
        }
        return x + " </interface>\n"
    }

    /// /usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml: the interface as a node.
    package static var introspectionFile: String {
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
            + " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n\(interfaceXML)</node>\n"
    }

    /// What the properties show but `Claims`, which the bus counts itself; the loop
    /// gives it (`Pipeline`).
    package struct Status: Equatable {
        package var state = "waiting"
        package var sensor = ""
        package var sensorMode = ""
        package var sensorModeReason = ""
        package var gyroscope = ""
        /// When the baseline was captured, on the daemon's clock.
        package var baselineAt: Double?
        package var dPitch = 0.0
        package var dRoll = 0.0
        package var focal = (x: 0.0, y: 0.0)
        package var sink = ""
        package var frames: UInt64 = 0

        package init() {}

        package static func == (a: Status, b: Status) -> Bool {
            a.state == b.state && a.sensor == b.sensor && a.sensorMode == b.sensorMode
                && a.sensorModeReason == b.sensorModeReason && a.gyroscope == b.gyroscope && a.dPitch == b.dPitch
                && a.dRoll == b.dRoll && a.focal == b.focal && a.sink == b.sink && a.frames == b.frames
        }
    }

    /// What the bus asked of the loop since the last `process`.
    package struct BusRequests: Equatable {
        /// `Recalibrate()` was called: one recapture for all the calls of the wakeup.
        package var recalibrate = false
        /// The unique name of the first caller, for the recapture's reason.
        package var recalibrateCaller = ""
        /// How many calls were coalesced into it.
        package var recalibrateCalls = 0
        /// `claims` is not what it was at the last `process`.
        package var claimsChanged = false

        package init() {}
    }

    /// What the properties show, as the loop last gave it.
    package private(set) var status = Status()
    /// The connections holding a claim at the last `process`.
    private var heldClaims: UInt32 = 0
    /// The connections holding a claim now.
    package var claims: Int { Int(heldClaims) }
    /// A `Claim()` was answered in the last `process`, even if its claim has ended since
    /// (a `Release()` or a closed connection in the same wakeup): someone looked.
    package private(set) var claimedSinceProcess = false
    private let link: ReconnectingBus
    /// Readable when the connection has the events sd-bus waits for (`pollRequest`).
    private let readiness: WritabilityWatch
    private var object: BusObject?
    private var claimTrack: BusPeerTrack?
    private let clock: () -> Double
    private let log: Logger
    private var emitted = Status()
    private var emittedClaims: UInt32 = 0
    private var lastEmit = -Double.infinity
    /// When `process` is due even without the descriptor (sd-bus's timeout, a reconnect).
    private var dueAt = -Double.infinity
    /// `Recalibrate()` calls not yet acted on: the first caller and how many.
    private var recalibrateCaller: String?
    private var recalibrateCalls = 0
    /// Recalibrate() lines: up to three a second (a person's calls each get theirs).
    private var recalibrateLines = RateLimiter(interval: 1, burst: 3)
    /// Calls acted on since the last Recalibrate() line.
    private var unloggedCalls = 0
    /// The bus going away and coming back: at most three such episodes told a minute.
    private var outages = FlapLimiter()
    /// The connection was lost and the name not yet ours again.
    private var outage = false
    /// An attempt to connect again failed, and that was said, in this outage.
    private var stillGoneSaid = false

    /// Nil, with one line, when there is no system bus or the object cannot be served.
    package init?(log: Logger, clock: @escaping () -> Double) {
        self.log = log
        self.clock = clock
        do { readiness = try WritabilityWatch() } catch {
            log.warning("system bus: \(Self.name) not offered: \(error)")
            return nil
        }
        do { link = try ReconnectingBus() } catch {
            log.info("no system bus (\(error)): \(Self.name) is not offered; the daemon runs without it")
            return nil
        }
        do { try link.setUp { [unowned self] bus throws(SystemBusError) in try serve(on: bus) } } catch {
            log.warning("system bus: \(Self.name) not offered: \(error)")
            return nil
        }
    }

    /// Puts the object and the claims on a new connection and asks for the name.
    private func serve(on bus: SystemBus) throws(SystemBusError) {
        claimTrack = BusPeerTrack(bus: bus, limit: Self.maximumClaims)
        object = try BusObject(
            bus: bus, path: Self.path, interface: Self.interface,
            properties: Self.properties.map(\.name), methods: Self.methods.map(\.name),
            interfaceXML: Self.interfaceXML,
            value: { [unowned self] in value(of: $0) },
            call: { [unowned self] in called($0, by: $1) })
        try bus.requestName(Self.name) { [unowned self] state in
            switch state {
            case .owned:
                // Back after an outage: said when the outage was.
                if !outage || outages.back() { log.info("system bus: serving \(Self.name) at \(Self.path)") }
                outage = false
            case .queued:
                log.warning(
                    "system bus: \(Self.name) is owned by another process; waiting for it in the name's queue "
                        + "(the properties, Recalibrate() and Claim() are offered once it leaves)")
            case .lost:
                log.warning("system bus: \(Self.name) was taken by another process; waiting for it in the name's queue")
            case .refused(let why):
                log.warning(
                    "system bus: \(Self.name) not taken (\(why)); the properties, Recalibrate() and Claim() are not offered"
                )
            }
        }
    }

    /// A method was called by the connection `sender`.
    private func called(_ method: String, by sender: String?) -> BusObject.Refusal? {
        switch method {
        case "Recalibrate":
            recalibrateCaller = recalibrateCaller ?? sender ?? "?"
            recalibrateCalls += 1
        case "Claim":
            guard let sender, let track = claimTrack else { return nil }
            switch track.add(sender) {
            case .added, .alreadyHeld: claimedSinceProcess = true
            case .full:
                return .init(
                    "org.freedesktop.DBus.Error.LimitsExceeded",
                    "\(Self.maximumClaims) connections hold a claim already")
            case .failed(let error):
                return .init("org.freedesktop.DBus.Error.Failed", "the claim cannot be followed: \(error)")
            }
        case "Release":
            if let sender { claimTrack?.remove(sender) }
        default:
            break
        }
        return nil
    }

    /// What the loop polls: a descriptor readable when the bus connection has the events
    /// sd-bus waits for (POLLIN, POLLOUT while replies wait to be written: epoll in
    /// between, so a wait for readable descriptors suffices), and the seconds after which
    /// `process` is due anyway (sd-bus's timeout, the next reconnect; nil: none). The
    /// descriptor stays the same across reconnects; call this before every wait.
    package func pollRequest() -> (fd: Int32, events: Int16, timeoutSeconds: Double?) {
        let now = clock()
        let request = link.pollRequest(now: now)
        readiness.watch(request.fd, events: request.events)
        dueAt = request.timeoutSeconds.map { now + $0 } ?? .infinity
        return (readiness.fileDescriptor, Int16(POLLIN), request.timeoutSeconds)
    }

    /// Takes what the bus sent when `readable` (the last wait's readable descriptors)
    /// holds `pollRequest()`'s descriptor or its timeout has passed; calls are answered
    /// from `status`. Returns what was asked of the loop since the last call.
    package func process(readable: [Int32]) -> BusRequests {
        var requests = BusRequests()
        let now = clock()
        claimedSinceProcess = false
        guard readable.contains(readiness.fileDescriptor) || now >= dueAt else { return requests }
        switch link.process(now: now) {
        case .lost(let retry)?:
            let told = outages.gone(now: now)
            if told.say {
                log.warning(
                    "system bus: the connection was lost; \(Self.name) is not offered until it is back "
                        + "(trying again every \(formatNumber(retry)) s)"
                        + (told.untold > 0
                            ? "; it went away \(counted(told.untold, "more time")) since the last such line" : ""))
            }
            (outage, stillGoneSaid) = (true, false)
            readiness.watch(nil)  // before the connection's descriptor is closed
            object = nil
            claimTrack = nil
        case .reconnected?:
            break  // the name's answer says so: `serving`, or why not
        case .stillGone(let why, let retry)?:
            // Once an outage: the attempts go on every second while it lasts.
            if outages.isTelling && !stillGoneSaid {
                log.info(
                    "system bus: still gone (\(why)); trying again every \(formatNumber(retry)) s until it is back")
                stillGoneSaid = true
            }
        case nil:
            break
        }
        claimTrack?.settle()  // the matches of this wakeup's releases
        if let caller = recalibrateCaller {
            requests.recalibrate = true
            requests.recalibrateCaller = caller
            requests.recalibrateCalls = recalibrateCalls
            logRecalibration(caller, calls: recalibrateCalls, at: now)
            (recalibrateCaller, recalibrateCalls) = (nil, 0)
        }
        let held = UInt32(claimTrack?.count ?? 0)
        if held != heldClaims {
            heldClaims = held
            requests.claimsChanged = true
        }
        return requests
    }

    /// `D-Bus Recalibrate() from :1.42: recapturing the baseline`, at most three times a
    /// second; a line after others were held back counts the calls since the last one.
    private func logRecalibration(_ caller: String, calls: Int, at now: Double) {
        unloggedCalls += calls
        guard recalibrateLines.allow("Recalibrate", now: now).allowed else { return }
        let more = unloggedCalls - 1
        log.notice(
            "D-Bus Recalibrate() from \(caller): recapturing the baseline"
                + (more > 0 ? " (and \(counted(more, "more call")) since the last such line)" : ""))
        unloggedCalls = 0
    }

    /// Whether a `PropertiesChanged` may go out now.
    package func isDue(now: Double) -> Bool { object != nil && now - lastEmit >= Self.minimumInterval }

    /// Takes `status` as what the properties show from now on, and sends `PropertiesChanged`
    /// with what changed since the last one, at most every `minimumInterval` seconds
    /// (sd-bus writes it, or queues it for the next POLLOUT).
    package func publish(_ status: Status, now: Double) {
        self.status = status
        guard let object, isDue(now: now), status != emitted || heldClaims != emittedClaims else { return }
        var changed: [(String, BusValue)] = []
        for p in Self.properties where p.signalled {
            if let v = value(of: p.name, in: status, claims: heldClaims),
                v != value(of: p.name, in: emitted, claims: emittedClaims)
            {
                changed.append((p.name, v))
            }
        }
        emitted = status
        emittedClaims = heldClaims
        lastEmit = now
        object.emitPropertiesChanged(changed)
    }

    /// What Get and GetAll answer: `status`, and the claims as they are this moment (a
    /// claim or a connection's end earlier in the same wakeup counts).
    private func value(of name: String) -> BusValue? {
        name == "Claims" ? .uint32(UInt32(claimTrack?.count ?? 0)) : value(of: name, in: status, claims: heldClaims)
    }

    private func value(of name: String, in s: Status, claims: UInt32) -> BusValue? {
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
        case "Claims": .uint32(claims)
        default: nil
        }
    }
}
