import Glibc
import LinuxSystem
import Raster

/// Whole XRGB8888 frames, back to back, to stdout, a FIFO or a file
/// (spec/interfaces.md, "Raw frames"): width * 4 bytes per row, no header, at most
/// `fps` frames per second.
///
/// - A frame is written only when the pipeline publishes one, i.e. when the card
///   changed: the stream has no fixed rate. Timestamp it on arrival
///   (ffmpeg `-use_wallclock_as_timestamps 1`) for real-time playback, or give a nominal
///   rate (`-r 60`) for a compact recording. The pipeline already paces frames to
///   `Sink.fps`; the sink enforces it too with a token bucket (fps tokens a second, at
///   most 2 banked), so a frame that renders faster than the one before it is not
///   dropped for jitter, yet no second ever carries more than fps + 2 frames.
/// - Writes block: a slow reader slows the daemon down rather than getting torn frames.
/// - A FIFO is opened without blocking (O_NONBLOCK, then switched back to blocking):
///   until a reader opens it (ENXIO), frames are skipped and the open is retried on the
///   next frame, so SIGTERM is never stuck behind an open(2).
/// - A reader that goes away (EPIPE; SIGPIPE is ignored by the process) ends the sink:
///   `publish` throws a permanent `SinkError` naming the output and the frames written,
///   and the daemon stops cleanly with that one log line and exit status 0, as a filter
///   in a pipeline does when its reader exits (`shimmerd run | head -c ...`).
package final class RawFrameSink: FrameSink {
    package let path: String
    private let buffer: PixelBuffer
    private let clock: () -> Double
    private var output: FileDescriptor?
    /// Token bucket: frames that may be written now (at most `burst`).
    private var tokens: Double
    private var lastRefill: Double?
    private let fps: Double
    private static let burst = 2.0
    private var ended = false
    package private(set) var framesPublished: UInt64 = 0
    /// Frames dropped by the fps limit or while a FIFO had no reader.
    package private(set) var framesSkipped: UInt64 = 0

    /// - Parameter path: "-" for stdout, else a FIFO or a file (created or truncated, 0644,
///   never through a symbolic link).
    package init(path: String, width: Int, height: Int, fps: Double,
                 clock: @escaping () -> Double = MonotonicClock.seconds) throws(SinkError) {
        self.path = path
        buffer = PixelBuffer(width: width, height: height)
        self.fps = fps
        tokens = Self.burst
        self.clock = clock
        if path == "-" {
            let fd = dup(1)
            guard fd >= 0 else { throw SinkError(sink: "raw", "stdout: \(String(cString: strerror(errno)))", permanent: true) }
            output = FileDescriptor(adopting: fd, path: "stdout")
        } else {
            let isFIFO = (try? FileStatus.of(path).kind) == .fifo
            if !isFIFO {
                // Never through a symbolic link: a root daemon told to write /tmp/out.raw
                // must not truncate whatever a link there points at.
                do { output = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o644) }
                catch let e as SystemError where e.errno == ELOOP {
                    throw SinkError(sink: "raw", "\(path) is a symbolic link; refusing to follow it", permanent: true)
                } catch {
                    throw SinkError(sink: "raw", "\(error)", permanent: true)
                }
            }
        }
    }

    deinit { close() }

    package var summary: String { "raw " + (path == "-" ? "stdout" : path) }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        guard !ended else { throw SinkError(sink: "raw", "\(summary) has ended", permanent: true) }
        let now = clock()
        tokens = min(Self.burst, tokens + (now - (lastRefill ?? now)) * fps)
        lastRefill = now
        guard tokens >= 0.999, let out = try openFIFOIfNeeded() else {
            framesSkipped += 1
            return .dropped(tokens < 0.999 ? .rateLimit : .noReader)
        }
        let p = buffer.pixmap
        do {
            try out.writeAll(p.base, count: p.stride * p.height)
        } catch let e as SystemError where e.errno == EPIPE {
            ended = true
            output = nil
            throw SinkError(sink: "raw", "the reader of \(out.path) went away (EPIPE) after \(framesPublished) frames; the raw sink has ended",
                            permanent: true)
        } catch {
            throw SinkError(sink: "raw", "\(error)")
        }
        tokens -= 1
        framesPublished += 1
        return .published
    }

    /// The output, opening a FIFO once a reader is there; nil while it has none.
    private func openFIFOIfNeeded() throws(SinkError) -> FileDescriptor? {
        if let output { return output }
        do {
            let fd = try FileDescriptor.open(path, O_WRONLY | O_NONBLOCK)
            try fd.setNonBlocking(false)
            output = fd
            return fd
        } catch let e as SystemError where e.errno == ENXIO {
            return nil   // no reader yet
        } catch {
            throw SinkError(sink: "raw", "\(error)")
        }
    }

    package func close() {
        output = nil
    }
}
