import Glibc
import LinuxSystem

/// Appends trace lines to a file, buffered in memory and written at least once a second
/// (`flushIfDue`) and on exit (`flush`), so SIGTERM loses nothing.
///
/// A write that fails (ENOSPC, EIO) is logged once per cause with the path and errno;
/// the unwritten bytes stay queued (up to `maxPending`, then the oldest whole lines are
/// dropped and counted) and are written when space returns. Lines already in the file
/// are never touched: a short write leaves at most a partial last line, which the next
/// successful write completes.
package final class TraceWriter {
    package let path: String
    private let fd: Int32
    private var pending: [UInt8] = []
    private var lastFlush = 0.0
    private var failing: Int32?
    private let log: Logger
    package let maxPending: Int
    package private(set) var droppedLines = 0
    package private(set) var linesQueued = 0

    /// Creates (or truncates: one run, one trace) `path`, mode 0644, not through a symlink.
    package init(path: String, log: Logger, maxPending: Int = 8 << 20) throws {
        self.path = path
        self.log = log
        self.maxPending = maxPending
        fd = try retryingEINTR("open trace", path: path) {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
    }

    deinit {
        flush()
        close(fd)
    }

    package func append<R: Encodable>(_ record: R) {
        pending += TraceRecord.line(record)
        linesQueued += 1
        if pending.count > maxPending { dropOldest() }
    }

    /// Writes what is queued if a second has passed since the last write.
    package func flushIfDue(now: Double) {
        if now - lastFlush >= 1 {
            lastFlush = now
            flush()
        }
    }

    /// Writes everything queued, as far as the disk allows.
    package func flush() {
        var written = 0
        let error: Int32? = pending.withUnsafeBytes { raw in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return nil
        }
        pending.removeFirst(written)
        if let error {
            if failing != error {
                log.error("cannot write trace \(path): \(String(cString: strerror(error))); keeping \(pending.count) bytes queued and rendering on",
                          ["trace.path": path, "errno": String(error)])
            }
            failing = error
        } else if let was = failing {
            failing = nil
            log.notice("trace \(path) writable again after \(String(cString: strerror(was)))"
                       + (droppedLines > 0 ? "; \(droppedLines) lines were dropped while it was not" : ""),
                       ["trace.path": path])
        }
    }

    /// Keeps memory bounded while the disk is full: drops whole lines from the front,
    /// but never the first partial line (its beginning may already be in the file).
    private func dropOldest() {
        guard let firstNewline = pending.firstIndex(of: 0x0A) else { return }
        var cut = firstNewline + 1
        while pending.count - cut > maxPending / 2, let next = pending[cut...].firstIndex(of: 0x0A) {
            cut = next + 1
            droppedLines += 1
        }
        // Keep the first line (possibly partly written), drop the following ones.
        pending.removeSubrange(firstNewline + 1..<cut)
    }
}
