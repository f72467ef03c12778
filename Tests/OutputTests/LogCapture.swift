import Glibc
import Logging

/// The lines a sink logged, read back from the pipe its `LogHandler` writes to
/// ("test: warning: ..."): `lines` holds every line so far.
final class LogCapture {
    private let readEnd: Int32
    private let writeEnd: Int32
    private var collected: [String] = []
    private var partial: [UInt8] = []
    let log: Logger

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe")
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        readEnd = fds[0]
        writeEnd = fds[1]
        log = Logger(
            label: "test", handler: DescriptorLogHandler(minimumLevel: .debug, fd: fds[1], priorityPrefixes: false))
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    var lines: [String] {
        drain()
        return collected
    }

    func removeAll() {
        drain()
        collected.removeAll()
    }

    private func drain() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(readEnd, &chunk, chunk.count)
            guard n > 0 else { break }
            partial += chunk[0..<n]
        }
        while let end = partial.firstIndex(of: UInt8(ascii: "\n")) {
            collected.append(String(decoding: partial[..<end], as: UTF8.self))
            partial.removeSubrange(...end)
        }
    }
}

/// A logger for sinks whose lines a test does not look at.
let quietLog = Logger(
    label: "test",
    handler: DescriptorLogHandler(
        minimumLevel: .error, fd: open("/dev/null", O_WRONLY | O_CLOEXEC),
        priorityPrefixes: false))
