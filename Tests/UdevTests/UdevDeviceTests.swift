import Glibc
import TestSupport
import Testing

@testable import Udev

// Real libudev on this machine's /sys. Only what every Linux system has is used: the
// loopback interface (always ifindex 1 in its network namespace) and the memory
// character devices (/dev/null, /dev/zero). The properties checked come from the
// devices' `uevent` files, which libudev reads with or without a running udevd.

private let loopback = "/sys/devices/virtual/net/lo"
private let null = "/sys/devices/virtual/mem/null"

/// The text of a sysfs file, without its trailing newline.
private func sysfsText(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var buffer = [CChar](repeating: 0, count: 4096)
    guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
}

@Test func theLoopbackInterfaceHasItsNamesAndUeventProperties() throws {
    let udev = try UdevContext()
    let lo = try udev.device(syspath: loopback)
    #expect(lo.syspath == loopback)
    #expect(lo.sysname == "lo")
    #expect(lo.sysnum == nil, "\"lo\" ends in no number")
    #expect(lo.subsystem == "net")
    #expect(lo.devnode == nil, "a network interface has no device node")
    #expect(lo.action == nil, "an enumerated device is no event")
    #expect(lo.property("INTERFACE") == "lo")
    #expect(lo.property("IFINDEX") == "1")
    #expect(lo.property("SHIMMERD_ABSENT") == nil)
    let properties = lo.properties
    #expect(properties["SUBSYSTEM"] == "net")
    #expect(properties["DEVPATH"] == "/devices/virtual/net/lo")
}

@Test func sysattrReadsTheKernelsTextWithoutItsNewline() throws {
    let lo = try UdevContext().device(syspath: loopback)
    #expect(lo.sysattr("ifindex") == "1")
    #expect(lo.sysattr("mtu") == sysfsText(loopback + "/mtu"))
    #expect(lo.sysattr("address") == "00:00:00:00:00:00")
    #expect(lo.sysattr("shimmerd_absent") == nil)
    let names = lo.sysattrNames
    #expect(names.contains("ifindex") && names.contains("mtu"))
}

@Test func aCharacterDeviceHasItsNode() throws {
    let dev = try UdevContext().device(syspath: null)
    #expect(dev.sysname == "null")
    #expect(dev.subsystem == "mem")
    #expect(dev.devnode == "/dev/null")
    #expect(dev.property("DEVNAME") == "/dev/null")
    #expect(dev.sysattr("dev") == "1:3", "the character device numbers of /dev/null (devices.txt)")
}

@Test func devicesOfASubsystemAreListedBySyspath() throws {
    let udev = try UdevContext()
    let mem = try udev.devices(subsystem: "mem")
    let paths = mem.map(\.syspath)
    #expect(paths.contains(null))
    #expect(paths.contains("/sys/devices/virtual/mem/zero"))
    #expect(paths == paths.sorted())
    #expect(mem.allSatisfy { $0.subsystem == "mem" })
    #expect(try udev.devices(subsystem: "net").contains { $0.sysname == "lo" })
    #expect(try udev.devices(subsystem: "shimmerd-absent").isEmpty)
}

@Test func aSyspathThatDoesNotExistFailsNamingThePath() throws {
    let udev = try UdevContext()
    let path = "/sys/devices/virtual/net/shimmerd-absent"
    let e = try #require(caught(UdevError.self) { _ = try udev.device(syspath: path) })
    #expect(e.operation == "udev_device_new_from_syspath")
    #expect(e.target == path)
    #expect(e.code == ENODEV, "libudev's errno for a syspath with no device")
    #expect(
        e.description == "udev_device_new_from_syspath(\(path)): \(String(cString: strerror(ENODEV))) (errno \(ENODEV))"
    )
}

@Test func writingAReadOnlyAttributeFailsNamingTheFile() throws {
    let lo = try UdevContext().device(syspath: loopback)
    // `ifindex` has no store method: the open fails for a user, the write for root.
    let e = try #require(caught(UdevError.self) { try lo.setSysattr("ifindex", "2") })
    #expect(e.operation == "udev_device_set_sysattr_value")
    #expect(e.target == loopback + "/ifindex")
    #expect(e.code > 0)
    #expect(lo.sysattr("ifindex") == "1")
}

@Test func aMonitorHasANonBlockingDescriptorAndNothingPendingForAQuietSubsystem() throws {
    let udev = try UdevContext()
    // No device belongs to this subsystem, so the kernel-side filter passes no event.
    let monitor = try UdevMonitor(context: udev, subsystem: "shimmerd-absent")
    let fd = monitor.fileDescriptor
    #expect(fd >= 0)
    #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 0) == 0, "nothing readable")
    #expect(monitor.receive() == nil)
}
