import Glibc
import TestSupport
import Testing

@testable import Systemd

/// A program started with posix_spawn(3), its standard output on a pipe and its standard
/// error on /dev/null. It starts with no signal blocked: a child inherits the blocked
/// signals of the thread that starts it, and the test runner's threads block SIGTERM.
private final class Child {
    let pid: pid_t
    private let output: Int32
    private(set) var exitStatus: Int32?

    /// - Parameter errors: whether its standard error goes to the same pipe (else /dev/null).
    init(_ arguments: [String], errors: Bool = false) throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // only the dup2'd copy goes to the child
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        if errors {
            posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The environment is passed as a copy: `environ` itself, passed as is, made
        // posix_spawn fail with EFAULT under AddressSanitizer (scripts/sanitize.sh).
        var variables: [UnsafeMutablePointer<CChar>?] = []
        var e: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
        while let variable = e.pointee {
            variables.append(strdup(variable))
            e += 1
        }
        variables.append(nil)
        defer { variables.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { a in
            variables.withUnsafeBufferPointer { v in
                posix_spawn(&child, a[0]!, &actions, &attributes, a.baseAddress!, v.baseAddress!)
            }
        }
        close(fds[1])
        if spawned != 0 { close(fds[0]) }
        try #require(spawned == 0, "posix_spawn \(arguments[0]): \(String(cString: strerror(spawned)))")
        pid = child
        output = fds[0]
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(output)
    }

    /// Whether it has exited (waitpid(2) with WNOHANG), its exit status kept.
    var hasExited: Bool {
        guard exitStatus == nil else { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        exitStatus = (status >> 8) & 0xFF
        return true
    }

    /// What one read(2) of its output returns (blocking until it writes something).
    func readSome() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(output, &buffer, buffer.count)
        return String(decoding: buffer[0..<max(n, 0)], as: UTF8.self)
    }

    /// Its output to the end (once it has exited).
    func readAll() -> String {
        var text = ""
        while true {
            let more = readSome()
            if more.isEmpty { return text }
            text += more
        }
    }
}

/// A private message bus: a real dbus-daemon with the session bus's policy (anyone may
/// own any name) listening in a scratch directory, named in DBUS_SYSTEM_BUS_ADDRESS so
/// that `SystemBus()` (sd_bus_open_system) connects to it and not to the machine's bus.
private final class PrivateBus {
    let scratch = ScratchDirectory("bus")
    let address: String
    private var daemon: Child?

    init() throws {
        address = "unix:path=" + scratch.file("bus")
        try start()
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
    }

    deinit { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }

    private func start() throws {
        let d = try Child([
            "/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=" + address,
            "--print-address=1",
        ])
        // dbus-daemon prints its address once it listens.
        let line = d.readSome()
        try #require(line.hasPrefix(address), "dbus-daemon printed \(line)")
        daemon = d
    }

    /// The bus goes away (its dbus-daemon stopped: every connection to it is closed).
    func stop() {
        daemon = nil  // SIGTERM, and waited for
        unlink(String(address.dropFirst("unix:path=".count)))
    }

    /// A new dbus-daemon at the same address.
    func restart() throws {
        stop()
        try start()
    }

    /// Runs `busctl` on this bus with `arguments`, processing `buses` while it waits for
    /// their answers; returns its standard output (and error, with `errors`) and exit status.
    func busctl(_ arguments: [String], serving buses: [SystemBus], errors: Bool = false) throws -> (
        output: String, status: Int32
    ) {
        let p = try Child(["/usr/bin/busctl", "--address=" + address] + arguments, errors: errors)
        pump(buses) { p.hasExited }
        return (p.readAll(), p.exitStatus ?? -1)
    }
}

/// Polls the buses' descriptors and processes what arrives until `done()` holds; records
/// an issue if it still does not after 20 s (a lost reply; no test relies on the time).
private func pump(_ buses: [SystemBus], until done: () -> Bool) {
    var waited = 0
    while !done() {
        guard waited < 200 else {
            Issue.record("the bus never answered")
            return
        }
        var fds = buses.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), 100)
        waited += 1
        for bus in buses { bus.process() }
    }
}

private final class Box<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

private let interfaceXML = """
     <interface name="org.shimmerd.Test1">
      <method name="Recenter"/>
      <property name="Device" type="s" access="read"/>
      <property name="PitchRadians" type="d" access="read"/>
      <property name="Frames" type="t" access="read"/>
      <property name="Live" type="b" access="read"/>
      <property name="FocalPoint" type="(dd)" access="read"/>
     </interface>
    """

private let values: [String: BusValue] = [
    "Device": .string("iio:device0"), "PitchRadians": .double(0.25), "Frames": .uint64(1_200),
    "Live": .bool(true), "FocalPoint": .point(12.5, -3),
]

/// The process's DBUS_SYSTEM_BUS_ADDRESS names the private bus of one test at a time.
@Suite(.serialized) struct SystemBusTests {
    @Test func aNameIsOwnedWatchedAndReleasedWithItsConnection() throws {
        let bus = try PrivateBus()
        let watcher = try SystemBus()
        let owned = Box<[Bool]>([])
        try watcher.watchName("org.shimmerd.Test1") { owned.value.append($0) }
        pump([watcher]) { !owned.value.isEmpty }
        #expect(owned.value == [false], "nobody owns it yet")

        var owner: SystemBus? = try SystemBus()
        let answer = Box<[SystemBus.NameOwnership]>([])
        try owner!.requestName("org.shimmerd.Test1") { answer.value.append($0) }
        pump([watcher, owner!]) { !answer.value.isEmpty && owned.value.count == 2 }
        #expect(answer.value == [.owned], "the name is ours, said once (the reply and NameAcquired)")
        #expect(owned.value == [false, true])

        // A second connection does not take it over: it waits in the name's queue...
        let second = try SystemBus()
        let waiting = Box<[SystemBus.NameOwnership]>([])
        try second.requestName("org.shimmerd.Test1") { waiting.value.append($0) }
        pump([watcher, owner!, second]) { !waiting.value.isEmpty }
        #expect(waiting.value == [.queued])

        // ...and has it once the first leaves.
        owner = nil  // sd_bus_flush_close_unref: the bus daemon releases the name
        pump([watcher, second]) { waiting.value.count >= 2 && owned.value.count >= 3 }
        #expect(waiting.value == [.queued, .owned])
        #expect(answer.value == [.owned], "the first connection heard nothing more")
        #expect(owned.value.prefix(3) == [false, true, true], "handed from the first owner to the second")
        withExtendedLifetime(bus) {}
    }

    @Test func anObjectServesItsPropertiesAndMethods() throws {
        let bus = try PrivateBus()
        let server = try SystemBus()
        let named = Box<SystemBus.NameOwnership?>(nil)
        try server.requestName("org.shimmerd.Test1") { named.value = $0 }
        pump([server]) { named.value != nil }
        let calls = Box<[String]>([])
        let object = try BusObject(
            bus: server, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1",
            properties: ["Device", "PitchRadians", "Frames", "Live", "FocalPoint"],
            methods: ["Recenter"], interfaceXML: interfaceXML,
            value: { values[$0] },
            call: { method, sender in
                calls.value.append("\(method) from \(sender ?? "nobody")")
                return nil
            })

        // Another client reads them all (GetAll), through BusMessageReader.
        let client = try SystemBus()
        let seen = Box<[(String, BusValue)]?>(nil)
        let accepted = ["Device": "s", "PitchRadians": "d", "Frames": "t", "Live": "b", "FocalPoint": "(dd)"]
        try client.watchProperties(
            destination: "org.shimmerd.Test1", path: object.path, interface: object.interface,
            accepting: accepted, maximumStringBytes: 64
        ) {
            seen.value = $0
        }
        pump([server, client]) { seen.value != nil }
        #expect(client.propertiesFailure == nil)
        let all = try #require(seen.value)
        #expect(all.map(\.0) == ["Device", "PitchRadians", "Frames", "Live", "FocalPoint"])
        #expect(all.map(\.1) == [.string("iio:device0"), .double(0.25), .uint64(1_200), .bool(true), .point(12.5, -3)])

        // busctl: Get, a method call, a refused Set, and the introspection it parses.
        let pitch = try bus.busctl(
            ["get-property", "org.shimmerd.Test1", object.path, object.interface, "PitchRadians"],
            serving: [server])
        #expect(pitch.status == 0 && pitch.output == "d 0.25\n")
        let point = try bus.busctl(
            ["get-property", "org.shimmerd.Test1", object.path, object.interface, "FocalPoint"],
            serving: [server])
        #expect(point.output == "(dd) 12.5 -3\n")
        let recenter = try bus.busctl(
            ["call", "org.shimmerd.Test1", object.path, object.interface, "Recenter"],
            serving: [server])
        #expect(recenter.status == 0)
        #expect(calls.value.count == 1 && calls.value[0].hasPrefix("Recenter from :1."), "\(calls.value)")
        let set = try bus.busctl(
            ["set-property", "org.shimmerd.Test1", object.path, object.interface, "Live", "b", "false"],
            serving: [server])
        #expect(set.status != 0, "the properties are read-only")
        let unknown = try bus.busctl(
            ["get-property", "org.shimmerd.Test1", object.path, object.interface, "Absent"],
            serving: [server])
        #expect(unknown.status != 0)
        let introspection = try bus.busctl(
            ["introspect", "--xml-interface", "org.shimmerd.Test1", object.path],
            serving: [server])
        #expect(introspection.output.contains(#"<method name="Recenter"/>"#))
        #expect(introspection.output.contains(#"<interface name="org.freedesktop.DBus.Properties">"#))
    }

    /// Another connection serving the same path and interface sends PropertiesChanged: it
    /// is not the name's owner, so nothing of it is believed; the owner's signal is. Only
    /// the accepted properties with their types are passed on, strings cut to the bound.
    @Test func onlyTheOwnersSignalsAndTheAcceptedPropertiesAreTaken() throws {
        let bus = try PrivateBus()
        let server = try SystemBus(), forger = try SystemBus(), client = try SystemBus()
        let named = Box<SystemBus.NameOwnership?>(nil)
        try server.requestName("org.shimmerd.Test1") { named.value = $0 }
        pump([server]) { named.value != nil }
        func serve(_ on: SystemBus) throws -> BusObject {
            try BusObject(
                bus: on, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1",
                properties: ["Device", "PitchRadians", "Frames", "Live", "FocalPoint"], methods: [],
                interfaceXML: interfaceXML, value: { values[$0] }, call: { _, _ in nil })
        }
        let real = try serve(server), forged = try serve(forger)
        let seen = Box<[[(String, BusValue)]]>([])
        // Frames is a "t" on the bus: asked for as a "d", it is left out.
        try client.watchProperties(
            destination: "org.shimmerd.Test1", path: real.path, interface: real.interface,
            accepting: ["Device": "s", "Live": "b", "Frames": "d"], maximumStringBytes: 4
        ) {
            seen.value.append($0)
        }
        pump([server, forger, client]) { !seen.value.isEmpty }
        #expect(seen.value.count == 1)
        #expect(seen.value[0].map(\.0) == ["Device", "Live"])
        #expect(seen.value[0].map(\.1) == [.string("iio:"), .bool(true)])
        forged.emitPropertiesChanged([("Device", .string("FORGED")), ("Live", .bool(false)), ("Junk", .uint32(7))])
        real.emitPropertiesChanged([("Device", .string("sensor2")), ("Junk", .uint32(7))])
        pump([server, forger, client]) { seen.value.count >= 2 }
        pump([server, forger, client]) { true }
        #expect(seen.value.count == 2, "the forger's signal was taken: \(seen.value)")
        #expect(seen.value.last?.map(\.0) == ["Device"])
        #expect(seen.value.last?.map(\.1) == [.string("sens")])
        withExtendedLifetime((bus, forged)) {}
    }

    @Test func watchingTheObjectOfANameWithoutOwnerReportsWhy() throws {
        let bus = try PrivateBus()
        let client = try SystemBus()
        let seen = Box<Bool>(false)
        try client.watchProperties(
            destination: "org.shimmerd.Absent", path: "/org/shimmerd/Absent",
            interface: "org.shimmerd.Absent", accepting: ["State": "s"],
            maximumStringBytes: 64
        ) { _ in seen.value = true }
        pump([client]) { client.propertiesFailure != nil }
        #expect(!seen.value)
        #expect(client.propertiesFailure?.contains("org.shimmerd.Absent") == true, "\(client.propertiesFailure ?? "")")
        withExtendedLifetime(bus) {}
    }

    /// A caller that sends arguments of the wrong types, or names of megabytes, gets
    /// InvalidArgs, and no error repeats what it sent.
    @Test func callsOfTheWrongSignatureAndOverlongNamesAreRefusedWithoutEcho() throws {
        let bus = try PrivateBus()
        let server = try SystemBus()
        let calls = Box<[String]>([])
        let object = try BusObject(
            bus: server, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1",
            properties: ["Device"], methods: ["Recenter"], interfaceXML: interfaceXML,
            value: { values[$0] },
            call: { method, _ in
                calls.value.append(method)
                return nil
            })
        let me = try #require(server.uniqueName)
        let long = String(repeating: "x", count: 100_000)
        let refused: [([String], String)] = [
            (["call", me, object.path, object.interface, "Recenter", "s", "now"], "Recenter takes ()"),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Properties", "Get", "su", object.interface, "1"],
                "Get takes (ss)"
            ),
            (
                [
                    "call", me, object.path, "org.freedesktop.DBus.Properties", "Get", "sss", object.interface,
                    "Device", "x",
                ],
                "Get takes (ss)"
            ),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Properties", "GetAll", "ss", object.interface, "x"],
                "GetAll takes (s)"
            ),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Introspectable", "Introspect", "s", "x"],
                "Introspect takes ()"
            ),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Properties", "Get", "ss", long, long],
                "interface and property names are at most 255 characters"
            ),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Properties", "GetAll", "s", long],
                "interface and property names are at most 255 characters"
            ),
            (
                [
                    "call", me, object.path, "org.freedesktop.DBus.Properties", "Get", "ss", object.interface,
                    "Absent" + long,
                ],
                "interface and property names are at most 255 characters"
            ),
            (
                ["call", me, object.path, "org.freedesktop.DBus.Properties", "Get", "ss", object.interface, "Absent"],
                "no such property; org.shimmerd.Test1 has Device"
            ),
        ]
        for (arguments, message) in refused {
            let r = try bus.busctl(arguments, serving: [server], errors: true)
            #expect(r.status != 0, "\(arguments.prefix(6))")
            #expect(r.output.contains(message), "\(arguments.prefix(6)): \(r.output.prefix(300))")
            #expect(!r.output.contains("xxxxxxxx") && !r.output.contains("Absent"), "echoed: \(r.output.prefix(300))")
        }
        #expect(calls.value.isEmpty, "a refused call does not reach the object")
        let right = try bus.busctl(["call", me, object.path, object.interface, "Recenter"], serving: [server])
        #expect(right.status == 0 && calls.value == ["Recenter"])
    }

    /// A name is held once however often it is added, and leaves when removed or when
    /// its connection closes, even one that closed before the track heard of it.
    @Test func aTrackHoldsEachConnectionOnceUntilItLeaves() throws {
        let bus = try PrivateBus()
        let server = try SystemBus()
        let track = BusPeerTrack(bus: server, limit: 2)
        var first: SystemBus? = try SystemBus()
        var second: SystemBus? = try SystemBus()
        let a = try #require(first?.uniqueName), b = try #require(second?.uniqueName)
        #expect(track.add(a) == .added)
        #expect(track.add(a) == .alreadyHeld)
        #expect(track.count == 1)
        #expect(track.add(b) == .added && track.count == 2)
        let third = try SystemBus()
        #expect(track.add(try #require(third.uniqueName)) == .full)
        track.remove(a)
        track.remove(a)  // not held: nothing happens
        #expect(track.count == 1 && !track.contains(a) && track.contains(b))
        second = nil  // its connection closes: the bus says so
        pump([server]) { track.count == 0 }
        #expect(!track.contains(b))
        // A connection that is gone before it is added (a caller that hung up at once).
        first = nil
        #expect(track.add(a) == .added)
        pump([server]) { track.count == 0 }
        #expect(first == nil && second == nil)
        withExtendedLifetime(bus) {}
    }

    /// A name removed and added again before `settle()` is held again (its match still on
    /// the bus); a track full with a release pending settles it to make room.
    @Test func aReleaseIsSettledOnceAWakeupAndMakesRoomWhenTheTrackIsFull() throws {
        let bus = try PrivateBus()
        let server = try SystemBus()
        let track = BusPeerTrack(bus: server, limit: 1)
        let first = try SystemBus(), second = try SystemBus()
        let a = try #require(first.uniqueName), b = try #require(second.uniqueName)
        #expect(track.add(a) == .added)
        track.remove(a)
        #expect(track.count == 0 && !track.contains(a))
        #expect(track.add(a) == .added)
        #expect(track.count == 1 && track.contains(a))
        track.remove(a)
        #expect(track.add(b) == .added, "the pending release of the first makes room")
        #expect(track.count == 1 && track.contains(b) && !track.contains(a))
        track.settle()
        #expect(track.add(a) == .full)
        withExtendedLifetime((bus, first, second)) {}
    }

    /// The bus goes away and comes back at the same address: the connection is made again
    /// after the backoff (time is passed in), and set up again (the name is ours again).
    @Test func aConnectionComesBackWhenTheBusDoes() throws {
        let bus = try PrivateBus()
        let link = try ReconnectingBus()
        let owned = Box<[SystemBus.NameOwnership]>([])
        try link.setUp { b throws(SystemBusError) in try b.requestName("org.shimmerd.Test1") { owned.value.append($0) }
        }
        var now = 0.0
        // One wakeup: waits as the loop would, and the time waited (at most) passes.
        func turn() -> ReconnectingBus.Change? {
            let request = link.pollRequest(now: now)
            let wait = min(request.timeoutSeconds ?? 0.1, 0.1)
            var fds = [pollfd(fd: request.fd ?? -1, events: request.events, revents: 0)]
            _ = poll(&fds, 1, Int32((wait * 1000).rounded(.up)))
            now += wait
            return link.process(now: now)
        }
        var waited = 0
        while owned.value != [.owned], waited < 200 { _ = turn(); waited += 1 }
        #expect(owned.value == [.owned])
        try bus.restart()
        var changes: [ReconnectingBus.Change] = []
        waited = 0
        while changes.isEmpty, waited < 200 { if let c = turn() { changes.append(c) }; waited += 1 }
        #expect(changes == [.lost(retryIn: ReconnectingBus.retryDelay)])
        #expect(link.bus == nil && link.pollRequest(now: now).fd == nil)
        #expect(link.pollRequest(now: now).timeoutSeconds == ReconnectingBus.retryDelay)
        #expect(link.process(now: now + 0.5) == nil, "not before the delay")
        now += ReconnectingBus.retryDelay
        #expect(link.process(now: now) == .reconnected)
        waited = 0
        while owned.value.count < 2, waited < 200 { _ = turn(); waited += 1 }
        #expect(owned.value == [.owned, .owned], "the new connection asked for the name again, and has it")
        // Gone for longer: an attempt every second, as long as it takes.
        bus.stop()
        waited = 0
        while link.bus != nil, waited < 200 { _ = turn(); waited += 1 }
        var delays: [Double] = []
        for _ in 0..<7 {
            now += link.pollRequest(now: now).timeoutSeconds ?? 0
            if case .stillGone(_, let retryIn)? = link.process(now: now) { delays.append(retryIn) }
        }
        #expect(delays == [1, 1, 1, 1, 1, 1, 1])
    }

    /// A wakeup that dispatched a call is followed by a rest of `minimumGap` (no events
    /// asked for): a caller that waits for each answer gets at most one wakeup per gap.
    /// Time is passed in.
    @Test func aWakeupThatDispatchedACallIsFollowedByARest() throws {
        let bus = try PrivateBus()
        let link = try ReconnectingBus()
        let calls = Box(0)
        var object: BusObject?
        try link.setUp { b throws(SystemBusError) in
            object = try BusObject(
                bus: b, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1", properties: [],
                methods: ["Recenter"], interfaceXML: interfaceXML, value: { _ in nil },
                call: { _, _ in
                    calls.value += 1; return nil
                })
        }
        let server = try #require(link.bus)
        let unique = try #require(server.uniqueName)
        let client = try SystemBus()
        let answered = Box(false)
        try client.callMethod(
            destination: unique, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1",
            member: "Recenter"
        ) { _ in answered.value = true }
        var now = 10.0
        var waited = 0
        while calls.value == 0, waited < 200 {
            client.process()
            let request = link.pollRequest(now: now)
            if request.events == 0 {
                now += request.timeoutSeconds ?? 0  // resting (after the Hello's NameAcquired): the time passes
                continue
            }
            var fds = [pollfd(fd: request.fd ?? -1, events: request.events, revents: 0)]
            _ = poll(&fds, 1, 10)
            _ = link.process(now: now)
            waited += 1
        }
        #expect(calls.value == 1)
        let resting = link.pollRequest(now: now)
        #expect(resting.events == 0 && abs((resting.timeoutSeconds ?? 0) - ReconnectingBus.minimumGap) < 1e-9)
        #expect(link.pollRequest(now: now + ReconnectingBus.minimumGap).events != 0, "awake again after the gap")
        pump([client]) { answered.value }
        withExtendedLifetime((bus, object)) {}
    }

    @Test func withoutABusToConnectToTheErrnoIsNamed() throws {
        let scratch = ScratchDirectory("bus")
        defer { scratch.remove() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=" + scratch.file("absent"), 1)
        defer { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
        let e = try #require(caught(SystemBusError.self) { _ = try SystemBus() })
        #expect(e.operation == "sd_bus_open_system")
        #expect(e.errno == ENOENT)
        #expect(e.description == "sd_bus_open_system: \(String(cString: strerror(ENOENT)))")
    }
}
