import Glibc

/// A pipe one thread writes a byte to, to wake another that polls its reading end: the
/// frame watcher wakes the background's loop, `want` and `stop` wake the claim thread.
/// Both ends are non-blocking and close-on-exec; a full pipe only means a wake-up is
/// already pending.
final class WakePipe: Sendable {
    /// Poll this for POLLIN.
    let readEnd: Int32
    private let writeEnd: Int32

    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func post(_ byte: UInt8) {
        var b = byte
        _ = write(writeEnd, &b, 1)
    }

    /// The bytes posted since the last drain.
    func drain() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readEnd, &chunk, chunk.count)
            guard n > 0 else { return out }
            out += chunk[0..<n]
        }
    }
}
