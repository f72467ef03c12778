// Tracing: the JSON Lines trace (writing, reading, streaming and replay; `shimmerd plot`
// draws it in Commands). Its
// log lines go through Logging's `Logger`.
// Must not import: Runtime, Commands (layer 2 sits below them).
import Glibc
import LinuxSystem
import Logging

/// Appends trace lines to a file, buffered in memory and written at least once a second
/// (`flushIfDue`) and on exit (`flush`), so SIGTERM loses nothing.
///
/// A write that fails (ENOSPC, EIO) is logged once per cause with the path and errno;
/// the unwritten bytes stay queued (up to `maxPending`, then the oldest whole lines are
/// dropped and counted) and are written when space returns. Lines already in the file
/// are never touched: a short write leaves at most a partial last line, which the next
/// successful write completes.
///
/// Rotation (`Trace.max_size`): when the file reaches `maxSize` bytes (plus at most the
/// line that crossed it) and every queued byte is written, FILE.1 .. FILE.(keep-2)
/// shift up one (the oldest is dropped), FILE becomes FILE.1, and a new FILE starts with
/// the run's header (its `run.part` counted up) and the current baseline, so every file
/// explains itself. Rotation happens only between whole lines.
package final class TraceWriter {
    package let path: String
    private var fd: FileDescriptor
    private var pending: [UInt8] = []
    private var lastFlush = 0.0
    private var failing: Int32?
    private let log: Logger
    package let maxPending: Int
    package private(set) var droppedLines = 0
    package private(set) var linesQueued = 0
    /// Bytes; 0: never rotate.
    package private(set) var maxSize: Int
    /// Files kept in all, the current one included (FILE, FILE.1, ... FILE.(keep-1)).
    package private(set) var keep: Int
    private var closed = false
    /// The longest `close` waits for a trace reader that does not take the last lines.
    package static let drainSeconds = 0.5
    /// Bytes written to the current file.
    package private(set) var fileSize = 0
    package private(set) var rotations = 0
    private var header: TraceRecord.Header?
    private var baseline: TraceRecord.Baseline?
    private var rotationBroken = false

    /// Creates (or truncates: one run, one trace) `path`, mode 0644, not through a symlink.
    /// Writes never block (O_NONBLOCK): a trace that is a FIFO or a socket whose reader
    /// stalls keeps its lines queued (EAGAIN, reported like ENOSPC) instead of holding the
    /// loop; a FIFO with no reader at all cannot be opened (ENXIO). A regular file's
    /// writes are the kernel's to bound.
    package init(path: String, log: Logger, maxPending: Int = 8 << 20, maxSize: Int = 0, keep: Int = 4) throws {
        self.path = path
        self.log = log
        self.maxPending = maxPending
        self.maxSize = max(0, maxSize)
        self.keep = max(1, keep)
        fd = try Self.create(path)
    }

    /// Throws what `init` would throw for `path`, without creating or truncating anything
    /// (`check-config`): an existing file or FIFO is opened for writing and closed again; a
    /// missing one needs a directory this process may write.
    package static func checkCreatable(_ path: String) throws {
        var e: Int32
        do {
            try FileDescriptor.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK, operation: "open trace").close()
            return
        } catch let error as SystemError {
            e = error.errno
        }
        if e == ENOENT {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            guard let refused = accessRefusal(directory, W_OK | X_OK) else { return }
            e = refused
        }
        throw SystemError("open trace", path: path, errno: e)
    }

    private static func create(_ path: String) throws -> FileDescriptor {
        try FileDescriptor.open(
            path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, mode: 0o644, operation: "open trace")
    }

    deinit { close() }

    /// New `Trace.max_size` and `Trace.max_files` for the open file (a reload that kept
    /// the path): the file goes on, rotated by the new limits from now on.
    package func setRotation(maxSize: Int, keep: Int) {
        self.maxSize = max(0, maxSize)
        self.keep = max(1, keep)
    }

    /// Writes what is queued and closes the file; later appends are dropped. Called once
    /// by whoever replaces or stops the trace; deinit does the same if it was not.
    package func close() {
        guard !closed else { return }
        flush()
        ReadinessPoll.drain(fd.rawValue, forAtMost: Self.drainSeconds, while: { !pending.isEmpty && failing == EAGAIN })
        {
            flush()
            return true
        }
        if !pending.isEmpty {
            log.error(
                "trace \(path) closed with \(pending.count) bytes that could not be written",
                ["trace.path": path])
        }
        closed = true
        CrashFlush.unregister(fileDescriptor: fd.rawValue)
        fd.close()
    }

    package func append<R: Encodable>(_ record: R) {
        guard !closed else { return }
        if let h = record as? TraceRecord.Header { header = h }
        if let b = record as? TraceRecord.Baseline { baseline = b }
        TraceJSON.append(record, to: &pending)
        queued()
    }

    /// What a crash writes out (`CrashFlush`): the queue as it is now.
    private func registerForCrash() {
        pending.withUnsafeBytes { CrashFlush.register(fileDescriptor: fd.rawValue, $0) }
    }

    /// After a line joined the queue: bounds and rotation.
    private func queued() {
        linesQueued += 1
        if pending.count > maxPending { dropOldest() }
        registerForCrash()
        if maxSize > 0, !rotationBroken, fileSize + pending.count >= maxSize {
            flush()
            if pending.isEmpty { rotate() }
        }
    }

    /// FILE -> FILE.1 -> FILE.2 ...; a new FILE that starts with the header and baseline.
    private func rotate() {
        if keep == 1 {
            try? unlinkFile(path)
        } else {
            try? unlinkFile("\(path).\(keep - 1)")
            for k in stride(from: keep - 2, through: 1, by: -1) {
                try? renameFile("\(path).\(k)", to: "\(path).\(k + 1)")
            }
            do { try renameFile(path, to: path + ".1") } catch {
                let e = (error as? SystemError)?.errno ?? EIO
                rotationBroken = true
                log.error(
                    "cannot rotate trace \(path) to \(path).1: \(String(cString: strerror(e))); writing on without rotation",
                    ["trace.path": path, "errno": String(e)])
                return
            }
        }
        let next: FileDescriptor
        do { next = try Self.create(path) } catch {
            // The old descriptor still points at the renamed file: keep writing there.
            rotationBroken = true
            log.error(
                "cannot start a new trace file after rotation: \(error); writing on in \(path).1", ["trace.path": path])
            return
        }
        CrashFlush.unregister(fileDescriptor: fd.rawValue)
        fd.close()
        fd = next
        fileSize = 0
        rotations += 1
        if var h = header {
            var run = h.run ?? TraceRecord.Run()
            run.part = rotations
            h.run = run
            pending += TraceRecord.line(h)
        }
        if let b = baseline { pending += TraceRecord.line(b) }
        flush()
    }

    /// Seconds until `flushIfDue` writes what is queued; nil while nothing is.
    package func flushIn(now: Double) -> Double? {
        pending.isEmpty ? nil : max(0, lastFlush + 1 - now)
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
        guard !closed else { return }
        let (written, error) = FileSystem.writeAsMuchAsPossible(fd.rawValue, pending)
        pending.removeFirst(written)
        registerForCrash()
        fileSize += written
        if let error {
            if failing != error {
                log.error(
                    "cannot write trace \(path): \(String(cString: strerror(error))); keeping \(pending.count) bytes queued and rendering on",
                    ["trace.path": path, "errno": String(error)])
            }
            failing = error
        } else if let was = failing {
            failing = nil
            log.notice(
                "trace \(path) writable again after \(String(cString: strerror(was)))"
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
