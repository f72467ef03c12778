import Foundation
import Glibc
import Testing
import TestSupport
@testable import Systemd

/// A private message bus: a real dbus-daemon with the session bus's policy (anyone may
/// own any name) listening in a scratch directory, named in DBUS_SYSTEM_BUS_ADDRESS so
/// that `SystemBus()` (sd_bus_open_system) connects to it and not to the machine's bus.
private final class PrivateBus {
    let scratch = ScratchDirectory("bus")
    let address: String
    private let daemon = Process()

    init() throws {
        address = "unix:path=" + scratch.file("bus")
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=" + address, "--print-address=1"]
        let out = Pipe()
        daemon.standardOutput = out
        try daemon.run()
        // dbus-daemon prints its address once it listens.
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        try #require(line.hasPrefix(address), "dbus-daemon printed \(line)")
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
    }

    deinit {
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
        // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }

    /// Runs `busctl` on this bus with `arguments`, processing `buses` while it waits for
    /// their answers; returns its standard output and exit status.
    func busctl(_ arguments: [String], serving buses: [SystemBus]) throws -> (output: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
        p.arguments = ["--address=" + address] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        pump(buses) { !p.isRunning }
        p.waitUntilExit()
        return (String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), p.terminationStatus)
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
