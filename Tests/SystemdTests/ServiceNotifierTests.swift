import Glibc
import TestSupport
import Testing

@testable import Systemd

/// A notification socket as the service manager makes one (an AF_UNIX datagram socket,
/// sd_notify(3)), bound in a scratch directory and named in NOTIFY_SOCKET while `body`
/// runs; returns what `body` returned and the datagrams the socket received.
private func withNotifySocket<R>(_ body: () throws -> R) throws -> (R, [String]) {
    let scratch = ScratchDirectory("notify")
    defer { scratch.remove() }
    let path = scratch.file("notify")
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
        for (i, byte) in path.utf8.enumerated() { sunPath[i] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0)
    setenv("NOTIFY_SOCKET", path, 1)
    defer { unsetenv("NOTIFY_SOCKET") }
    let result = try body()
    var datagrams: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if n <= 0 { break }
        datagrams.append(String(decoding: buffer[0..<n], as: UTF8.self))
    }
    return (result, datagrams)
}

/// NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID are the process's: these tests take turns.
@Suite(.serialized) struct ServiceNotifierTests {
    @Test func eachStateReachesTheManagersSocketAsOneDatagram() throws {
        let (delivered, datagrams) = try withNotifySocket { () -> Bool in
            let notifier = ServiceNotifier()
            notifier.ready(status: "showing iio:device0")
            notifier.status("sensor lost")
            notifier.watchdog()
            notifier.reloading()
            notifier.stopping()
            return notifier.notify("EXTEND_TIMEOUT_USEC=5000000")
        }
        #expect(delivered)
        #expect(
            datagrams == [
                "READY=1\nSTATUS=showing iio:device0", "STATUS=sensor lost", "WATCHDOG=1",
                "RELOADING=1", "STOPPING=1", "EXTEND_TIMEOUT_USEC=5000000",
            ])
    }

    @Test func withoutAManagerNotifyingIsANoOp() {
        unsetenv("NOTIFY_SOCKET")
        #expect(ServiceNotifier().notify("READY=1") == false)
    }

    @Test func aSocketThatIsGoneIsReportedAsNotDelivered() throws {
        let scratch = ScratchDirectory("notify")
        defer { scratch.remove() }
        setenv("NOTIFY_SOCKET", scratch.file("gone"), 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        #expect(ServiceNotifier().notify("READY=1") == false)
    }

    @Test func theWatchdogIntervalIsTheManagersForThisProcessOnly() {
        defer {
            unsetenv("WATCHDOG_USEC")
            unsetenv("WATCHDOG_PID")
        }
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
        #expect(ServiceNotifier().watchdogMicroseconds == nil)
        setenv("WATCHDOG_USEC", "20000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        #expect(ServiceNotifier().watchdogMicroseconds == 20_000_000)
        // sd_watchdog_enabled(3): meant for another process when WATCHDOG_PID is not ours.
        setenv("WATCHDOG_PID", "\(getpid() + 1)", 1)
        #expect(ServiceNotifier().watchdogMicroseconds == nil)
    }
}
