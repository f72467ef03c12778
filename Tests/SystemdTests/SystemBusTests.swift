import Glibc
import Testing
import TestSupport
@testable import Systemd

/// A program started with posix_spawn(3), its standard output on a pipe and its standard
/// error on /dev/null. It starts with no signal blocked: a child inherits the blocked
/// signals of the thread that starts it, and the test runner's threads block SIGTERM.
private final class Child {
    let pid: pid_t
    private let output: Int32
    private(set) var exitStatus: Int32?

    init(_ arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }   // only the dup2'd copy goes to the child
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
    private let daemon: Child

    init() throws {
        address = "unix:path=" + scratch.file("bus")
        daemon = try Child(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=" + address,
                            "--print-address=1"])
        // dbus-daemon prints its address once it listens.
        let line = daemon.readSome()
        try #require(line.hasPrefix(address), "dbus-daemon printed \(line)")
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
    }

    deinit { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }

    /// Runs `busctl` on this bus with `arguments`, processing `buses` while it waits for
    /// their answers; returns its standard output and exit status.
    func busctl(_ arguments: [String], serving buses: [SystemBus]) throws -> (output: String, status: Int32) {
        let p = try Child(["/usr/bin/busctl", "--address=" + address] + arguments)
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
        let answer = Box<String??>(nil)
        try owner!.requestName("org.shimmerd.Test1") { answer.value = .some($0) }
        pump([watcher, owner!]) { answer.value != nil && owned.value.count == 2 }
        #expect(answer.value == .some(nil), "the name is ours")
        #expect(owned.value == [false, true])

        // A second connection does not take it over.
        let second = try SystemBus()
        let refused = Box<String??>(nil)
        try second.requestName("org.shimmerd.Test1") { refused.value = .some($0) }
        pump([watcher, owner!, second]) { refused.value != nil }
        #expect(refused.value == .some("org.shimmerd.Test1 is owned by another process"))

        owner = nil    // sd_bus_flush_close_unref: the bus daemon releases the name
        pump([watcher, second]) { owned.value.count >= 3 }
        #expect(owned.value.prefix(3) == [false, true, false])
        withExtendedLifetime(bus) {}
    }

    @Test func anObjectServesItsPropertiesAndMethods() throws {
        let bus = try PrivateBus()
        let server = try SystemBus()
        let named = Box<String??>(nil)
        try server.requestName("org.shimmerd.Test1") { named.value = .some($0) }
        pump([server]) { named.value != nil }
        let calls = Box<[String]>([])
        let object = try BusObject(bus: server, path: "/org/shimmerd/Test1", interface: "org.shimmerd.Test1",
                                   properties: ["Device", "PitchRadians", "Frames", "Live", "FocalPoint"],
                                   methods: ["Recenter"], interfaceXML: interfaceXML,
                                   value: { values[$0] }, call: { method, sender in
                                       calls.value.append("\(method) from \(sender ?? "nobody")")
                                   })

        // Another client reads them all (GetAll), through BusMessageReader.
        let client = try SystemBus()
        let seen = Box<[(String, BusValue)]?>(nil)
        try client.watchProperties(destination: "org.shimmerd.Test1", path: object.path, interface: object.interface) {
            seen.value = $0
        }
        pump([server, client]) { seen.value != nil }
        #expect(client.propertiesFailure == nil)
        let all = try #require(seen.value)
        #expect(all.map(\.0) == ["Device", "PitchRadians", "Frames", "Live", "FocalPoint"])
        #expect(all.map(\.1) == [.string("iio:device0"), .double(0.25), .uint64(1_200), .bool(true), .point(12.5, -3)])

        // busctl: Get, a method call, a refused Set, and the introspection it parses.
        let pitch = try bus.busctl(["get-property", "org.shimmerd.Test1", object.path, object.interface, "PitchRadians"],
                                   serving: [server])
        #expect(pitch.status == 0 && pitch.output == "d 0.25\n")
        let point = try bus.busctl(["get-property", "org.shimmerd.Test1", object.path, object.interface, "FocalPoint"],
                                   serving: [server])
        #expect(point.output == "(dd) 12.5 -3\n")
        let recenter = try bus.busctl(["call", "org.shimmerd.Test1", object.path, object.interface, "Recenter"],
                                      serving: [server])
        #expect(recenter.status == 0)
        #expect(calls.value.count == 1 && calls.value[0].hasPrefix("Recenter from :1."), "\(calls.value)")
        let set = try bus.busctl(["set-property", "org.shimmerd.Test1", object.path, object.interface, "Live", "b", "false"],
                                 serving: [server])
        #expect(set.status != 0, "the properties are read-only")
        let unknown = try bus.busctl(["get-property", "org.shimmerd.Test1", object.path, object.interface, "Absent"],
                                     serving: [server])
        #expect(unknown.status != 0)
        let introspection = try bus.busctl(["introspect", "--xml-interface", "org.shimmerd.Test1", object.path],
                                           serving: [server])
        #expect(introspection.output.contains(#"<method name="Recenter"/>"#))
        #expect(introspection.output.contains(#"<interface name="org.freedesktop.DBus.Properties">"#))
    }

    @Test func watchingTheObjectOfANameWithoutOwnerReportsWhy() throws {
        let bus = try PrivateBus()
        let client = try SystemBus()
        let seen = Box<Bool>(false)
        try client.watchProperties(destination: "org.shimmerd.Absent", path: "/org/shimmerd/Absent",
                                   interface: "org.shimmerd.Absent") { _ in seen.value = true }
        pump([client]) { client.propertiesFailure != nil }
        #expect(!seen.value)
        #expect(client.propertiesFailure?.contains("org.shimmerd.Absent") == true, "\(client.propertiesFailure ?? "")")
        withExtendedLifetime(bus) {}
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
