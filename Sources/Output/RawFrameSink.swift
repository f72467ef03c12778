import Glibc
import LinuxSystem
import Logging
import Raster

/// Whole XRGB8888 frames, back to back, to stdout, a FIFO or a file
/// (docs/SINKS.md, "raw"): width * 4 bytes per row, no header, at most
/// `fps` frames per second.
///
/// - A frame is written only when the pipeline publishes one, i.e. when the card
///   changed: the stream has no fixed rate. Timestamp it on arrival
///   (ffmpeg `-use_wallclock_as_timestamps 1`) for real-time playback, or give a nominal
///   rate (`-r 60`) for a compact recording. The pipeline already paces frames to
///   `Sink.fps`; the sink enforces it too with a token bucket (fps tokens a second, at
///   most 2 banked), so a frame that renders faster than the one before it is not
///   dropped for jitter, yet no second ever carries more than fps + 2 frames.
/// - Writes never block (O_NONBLOCK): a reader that stops reading (a stalled ffmpeg, a
///   paused pipeline) must not hold the daemon, whose stop signal is then acted on at
///   once. A frame the pipe cannot take whole is kept (a copy of its unwritten part)
///   and finished as the pipe takes writes again (`pendingWrite`: the loop waits for
///   POLLOUT on it), so the stream only ever carries whole frames; frames
///   that come while one is still unfinished are dropped and reported as such
///   (`Delivery.dropped(.readerBusy)`). `close` gives the unfinished frame at most
///   `drainSeconds` more, then gives up and says how much of it is missing.
/// - A FIFO is opened without blocking: until a reader opens it (ENXIO), frames are
///   dropped (`.noReader`) and the open is retried on the next frame, so a stop is never
///   stuck behind an open(2).
/// - A file is appended to, never truncated: a reload, or a run after an earlier one,
///   continues the recording. A file that ends in a partial frame (a crash mid-write) is
///   padded with zeros to the next frame boundary first (`paddedBytes`), so the frames
///   that follow stay aligned for a reader.
/// - A reader that goes away (EPIPE; SIGPIPE is ignored by the process) ends the sink:
///   `publish` throws a permanent `SinkError` naming the output and the frames written,
///   and the daemon stops cleanly with that one log line and exit status 0, as a filter
///   in a pipeline does when its reader exits (`shimmerd run | head -c ...`).
package final class RawFrameSink: FrameSink {
    package let path: String
    private let buffer: PixelBuffer
    private let clock: () -> Double
    private let log: Logger
    private var output: FileDescriptor?
    /// The FIFO found at `path` at start (an O_PATH handle), opened for writing once a
    /// reader is there.
    private var fifo: FileDescriptor?
    /// A regular file: a write that fails part-way (ENOSPC) is cut back to `fileSize`.
    private var isRegularFile = false
    /// Bytes of the regular file: whole frames only, after the padding.
    private var fileSize = 0
    /// The failure that ended the sink (a reader gone), thrown again by every later publish.
    private var endError: SinkError?
    /// The descriptor's status flags before O_NONBLOCK was added: stdout is shared with
    /// whoever started the daemon, so its flags are put back on close.
    private var originalFlags: Int32?
    /// Token bucket: frames that may be written now (at most `burst`).
    private var tokens: Double
    private var lastRefill: Double?
    /// Most frames a second; a reload may change it (`limit(fps:)`; the output stays open).
    package private(set) var fps: Double
    private static let burst = 2.0
    private var ended = false
    /// The unwritten tail of the frame in flight: `pending[pendingStart...]`, a copy taken
    /// when the pipe filled mid-frame (the renderer paints the next frame into `buffer`).
    /// Allocated once, at the first short write.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    package private(set) var framesPublished: UInt64 = 0
    /// Frames dropped: the fps limit, a FIFO with no reader, a reader not taking frames.
    package private(set) var framesSkipped: UInt64 = 0
    /// Zero bytes written at open to complete a partial last frame of an existing file.
    package private(set) var paddedBytes: Int?
    /// The longest `close` waits for a stalled reader to take the rest of a frame.
    package static let drainSeconds = 0.5

    private var frameBytes: Int { buffer.pixmap.stride * buffer.pixmap.height }

    /// - Parameter path: "-" for stdout, else a FIFO or a file (created 0644 or appended
    ///   to, never through a symbolic link).
    /// - Parameter log: one warning when the stop leaves a frame unfinished.
    /// At most `fps` frames a second from now on (a reload that keeps the output).
    package func limit(fps: Double) { self.fps = fps }

    package init(
        path: String, width: Int, height: Int, fps: Double,
        clock: @escaping () -> Double = MonotonicClock.seconds,
        log: Logger
    ) throws(SinkError) {
        self.path = path
        self.log = log
        buffer = PixelBuffer(width: width, height: height)
        self.fps = fps
        tokens = Self.burst
        self.clock = clock
        if path == "-" {
            let fd = dup(1)
            guard fd >= 0 else {
                throw SinkError(sink: "raw", "stdout: \(String(cString: strerror(errno)))", permanent: true)
            }
            try adopt(FileDescriptor(adopting: fd, path: "stdout"))
            return
        }
        // The path is looked at once, without following a symbolic link: a root daemon
        // told to write /tmp/out.raw must never write wherever a link there points, now
        // or after someone swaps the name.
        if let pinned = try? FileDescriptor.pin(path), try openExisting(pinned) { return }
        try openRegularFile()
    }

    private func refusal(_ why: String) -> SinkError {
        SinkError(sink: "raw", "\(path) \(why); refusing to write it", permanent: true)
    }

    /// What `path` already is: a FIFO (kept for when a reader comes) or a terminal is
    /// taken, true; a regular file is left to `openRegularFile`, false; anything else is
    /// refused.
    private func openExisting(_ pinned: FileDescriptor) throws(SinkError) -> Bool {
        let kind: FileStatus.Kind
        do { kind = try pinned.status().kind } catch { throw SinkError(sink: "raw", "\(error)", permanent: true) }
        switch kind {
        case .fifo:
            // Until a reader comes the FIFO is opened again on each frame; always this
            // inode (`reopen`), never what the name has become.
            fifo = pinned
            return true
        case .regular:
            return false
        case .characterDevice:
            // A terminal named explicitly (Sink.path=$(tty)): the user asked for
            // binary on it. Any other device is refused.
            let tty: FileDescriptor
            do { tty = try FileDescriptor.open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, mode: 0) } catch {
                throw SinkError(sink: "raw", "\(error)", permanent: true)
            }
            guard (try? tty.status().kind) == .characterDevice, isatty(tty.rawValue) == 1 else {
                throw refusal(
                    "is a character device, not a FIFO or a regular file (of devices only a terminal is written)")
            }
            try adopt(tty)
            return true
        case .symbolicLink: throw refusal("is a symbolic link")
        case let other: throw refusal("is \(other.phrase), not a FIFO or a regular file")
        }
    }

    /// A regular file, created 0644 or appended to, padded to a frame boundary.
    private func openRegularFile() throws(SinkError) {
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: should a FIFO take the name between the look and the open, the
            // open does not wait for its reader; the type is checked on the descriptor.
            fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, mode: 0o644)
        } catch let e as SystemError where e.errno == ELOOP {
            throw refusal("is a symbolic link")
        } catch {
            throw SinkError(sink: "raw", "\(error)", permanent: true)
        }
        let kind: FileStatus.Kind
        do { kind = try fd.status().kind } catch { throw SinkError(sink: "raw", "\(error)", permanent: true) }
        guard kind == .regular else { throw refusal("is \(kind.phrase), not a FIFO or a regular file") }
        isRegularFile = true
        try padToFrameBoundary(fd)
        try adopt(fd)
    }

    deinit { close() }

    package var summary: String { "raw " + (path == "-" ? "stdout" : path) }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    /// Bytes of the frame in flight not yet taken by the reader (0: none in flight).
    package var bytesInFlight: Int { pending.count - pendingStart }

    package var isBacklogged: Bool { !ended && bytesInFlight > 0 }

    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        if let endError { throw endError }
        guard !ended else { throw SinkError(sink: "raw", "\(summary) has ended", permanent: true) }
        let now = clock()
        tokens = min(Self.burst, tokens + (now - (lastRefill ?? now)) * fps)
        lastRefill = now
        guard tokens >= 0.999 else { return drop(.rateLimit) }
        guard let out = try openFIFOIfNeeded() else { return drop(.noReader) }
        // The frame in flight goes first; while it is unfinished, a new one would tear it.
        guard try finishFrameInFlight(out) else { return drop(.readerBusy) }
        let p = buffer.pixmap
        let written: Int
        do { written = try write(out, p.base, count: frameBytes) } catch {
            throw cutBackToWholeFrames(error)
        }
        if written < frameBytes {
            if pending.count != frameBytes { pending = [UInt8](repeating: 0, count: frameBytes) }
            pending.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: p.base, byteCount: frameBytes) }
            pendingStart = written
        }
        tokens -= 1
        framesPublished += 1
        if isRegularFile { fileSize += frameBytes }
        return .published
    }

    /// A frame in flight goes on when its pipe takes writes (the loop's `WritabilityWatch`),
    /// and at least every quarter of a second where that watch is missing.
    package var maintenanceIn: Double? { pendingWrite == nil ? nil : 0.25 }

    /// Goes on with the frame in flight, if any, whenever the loop wakes.
    package func maintain() {
        continueWriting()
    }

    package var pendingWrite: Int32? {
        guard !ended, bytesInFlight > 0 else { return nil }
        return output?.rawValue
    }

    package func continueWriting() {
        guard !ended, let out = output, bytesInFlight > 0 else { return }
        _ = try? finishFrameInFlight(out)
    }

    private func drop(_ why: DropReason) -> Delivery {
        framesSkipped += 1
        return .dropped(why)
    }

    /// Writes what the pipe takes of the frame in flight; true once none is left.
    private func finishFrameInFlight(_ out: FileDescriptor) throws(SinkError) -> Bool {
        guard bytesInFlight > 0 else { return true }
        let start = pendingStart
        let result = pending.withUnsafeBytes { raw in
            Result { () throws(SinkError) in try write(out, raw.baseAddress! + start, count: raw.count - start) }
        }
        pendingStart += try result.get()
        return bytesInFlight == 0
    }

    /// One non-blocking attempt: the bytes written (0 when the pipe is full).
    private func write(_ out: FileDescriptor, _ bytes: UnsafeRawPointer, count: Int) throws(SinkError) -> Int {
        do {
            return try out.writeAvailable(bytes, count: count)
        } catch let error as SystemError where error.errno == EPIPE {
            // A frame the reader took only part of was counted when it was handed
            // over; it never arrived whole.
            let lost: UInt64 = bytesInFlight > 0 ? 1 : 0
            framesPublished -= lost
            ended = true
            output = nil
            var e = SinkError(
                sink: "raw",
                "the reader of \(out.path) went away (EPIPE) after \(framesPublished) frames; the raw sink has ended",
                permanent: true)
            e.lostFrames = lost
            endError = e
            throw e
        } catch let error as SystemError {
            throw SinkError(sink: "raw", "write \(out.path): \(error.reason)")
        } catch {
            throw SinkError(sink: "raw", "write \(out.path): \(error)")
        }
    }

    /// The output, opening a FIFO once a reader is there; nil while it has none.
    private func openFIFOIfNeeded() throws(SinkError) -> FileDescriptor? {
        if let output { return output }
        guard let fifo else { return nil }
        do {
            let fd = try fifo.reopen(O_WRONLY | O_NONBLOCK)
            try adopt(fd)
            return fd
        } catch let e as SystemError where e.errno == ENXIO {
            return nil  // no reader yet
        } catch let e as SinkError {
            throw e
        } catch {
            throw SinkError(sink: "raw", "\(error)")
        }
    }

    /// A regular file whose write failed part-way (a full disk) is cut back to its whole
    /// frames, so every later frame stays on a frame boundary; the error says so.
    private func cutBackToWholeFrames(_ error: SinkError) -> SinkError {
        guard isRegularFile, let out = output, !error.permanent else { return error }
        var e = error
        if (try? out.truncate(to: fileSize)) != nil {
            e.message += "; the partial frame was removed (\(fileSize / frameBytes) whole frames in the file)"
        } else {
            e.message += "; the partial frame could not be removed: \(String(cString: strerror(errno)))"
        }
        return e
    }

    /// Makes `fd` the output, non-blocking.
    private func adopt(_ fd: FileDescriptor) throws(SinkError) {
        let flags: Int32
        do {
            flags = try fd.statusFlags()
            try fd.setStatusFlags(flags | O_NONBLOCK)
        } catch {
            let why = (error as? SystemError)?.reason ?? "\(error)"
            throw SinkError(sink: "raw", "\(fd.path): cannot make writes non-blocking: \(why)", permanent: true)
        }
        originalFlags = flags
        output = fd
    }

    /// A file whose size is not a whole number of frames gets zeros up to the next one.
    private func padToFrameBoundary(_ fd: FileDescriptor) throws(SinkError) {
        let size: Int
        do { size = try fd.status().size } catch { throw SinkError(sink: "raw", "\(error)", permanent: true) }
        let partial = size % frameBytes
        fileSize = size
        guard partial > 0 else { return }
        let zeros = [UInt8](repeating: 0, count: frameBytes - partial)
        let (written, error) = FileSystem.writeAsMuchAsPossible(fd.rawValue, zeros)
        if let error {
            throw SinkError(
                sink: "raw", "\(path): cannot complete its partial last frame: \(String(cString: strerror(error)))",
                permanent: true)
        }
        paddedBytes = written
        fileSize = size + written
    }

    /// Gives a frame in flight at most `drainSeconds` to go out, restores the output's
    /// flags and closes it. `unfinishedBytes` says what a stalled reader did not take.
    package func close() {
        guard let out = output else { return }
        ReadinessPoll.drain(out.rawValue, forAtMost: Self.drainSeconds, while: { !ended && bytesInFlight > 0 }) {
            (try? finishFrameInFlight(out)) != nil
        }
        unfinishedBytes = bytesInFlight
        if unfinishedBytes > 0 {
            log.warning(
                "\(summary): the reader took \(frameBytes - unfinishedBytes) of the last frame's \(frameBytes) bytes within \(Self.drainSeconds) s of the stop; the stream ends in a partial frame"
            )
        }
        if let originalFlags { try? out.setStatusFlags(originalFlags) }
        output = nil
    }

    /// Bytes of the last frame that a stalled reader never took (set by `close`).
    package private(set) var unfinishedBytes = 0
}
