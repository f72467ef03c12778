import Glibc
import LinuxSystem
import PNG
import Raster

/// Encodes and writes the png sink's frames on a thread of its own, so the loop that
/// draws them is never held by zlib: a frame of the card at scale 2 (1400 x 934) takes
/// tens of milliseconds to compress, longer than a frame interval at 30 fps.
///
/// The loop copies each frame (a memcpy) into one of a bounded set of buffers and goes
/// on; the writer turns it into straight RGBA, compresses it and writes it atomically
/// under the name it was given, in the order given. The buffers hold at most `capacity`
/// frames (`byteBudget` of pixels, at least two frames), so a writer that falls behind
/// costs a bounded amount of memory: the loop is then told the frame was not taken
/// (`submit` returns false, the sink drops it and says so) or, for an offline render
/// that must keep every frame, waits for a buffer (`waitsWhenFull`, `waitingCapacity`
/// buffers).
final class PNGFrameWriter: @unchecked Sendable {
    /// The pixels of frames waiting for the writer, at most (and two frames at least).
    static let byteBudget = 48 << 20
    /// The buffers of a writer that is waited for when they are all taken.
    static let waitingCapacity = 4

    private struct Job {
        let buffer: PixelBuffer
        let name: String
    }

    private let folder: FileDescriptor
    private let directory: String
    private let coverage: [UInt8]
    private let width: Int
    private let height: Int
    let capacity: Int
    let waitsWhenFull: Bool
    private let lock = ConditionLock()
    private var thread: WorkerThread?
    // Guarded by `lock`:
    private var queue: [Job] = []
    private var spare: [PixelBuffer] = []
    private var buffersMade = 0
    private var busy = false
    private var closing = false
    private var failures: [String] = []

    init(
        folder: FileDescriptor, directory: String, width: Int, height: Int, coverage: [UInt8],
        waitsWhenFull: Bool
    ) throws(SinkError) {
        self.folder = folder
        self.directory = directory
        self.width = width
        self.height = height
        self.coverage = coverage
        self.waitsWhenFull = waitsWhenFull
        // A run that waits for the writer gains nothing from a deep queue (the writer sets
        // the pace either way): a few buffers keep it busy, and its memory stays flat.
        capacity = waitsWhenFull ? Self.waitingCapacity : max(2, Self.byteBudget / max(1, width * height * 4))
        do {
            // The thread holds the writer until `finish` has let it end.
            thread = try WorkerThread { self.run() }
        } catch {
            throw SinkError(sink: "png", "cannot start the PNG writer thread: \(error)", permanent: true)
        }
    }

    /// Queues a copy of `pixmap` to be written as `name`. False when every buffer is
    /// taken and the writer is not to be waited for: the frame was not queued.
    func submit(_ pixmap: Pixmap, name: String) -> Bool {
        let buffer: PixelBuffer? = lock.withLock {
            while true {
                if let b = spare.popLast() { return b }
                if buffersMade < capacity {
                    buffersMade += 1
                    return PixelBuffer(width: width, height: height)
                }
                guard waitsWhenFull, !closing else { return nil }
                lock.wait()
            }
        }
        guard let buffer else { return false }
        for y in 0..<height {
            buffer.pixmap.row(y).update(from: pixmap.row(y), count: width)
        }
        lock.withLock {
            queue.append(Job(buffer: buffer, name: name))
            lock.signal()
        }
        return true
    }

    /// Every buffer holds a frame still to be written.
    var isFull: Bool {
        lock.withLock { spare.isEmpty && buffersMade == capacity }
    }

    /// The writes that failed since the last call: one message per failed frame.
    func takeFailures() -> [String] {
        lock.withLock {
            defer { failures = [] }
            return failures
        }
    }

    /// Returns once every queued frame is written (or has failed).
    func drain() {
        lock.withLock {
            while !queue.isEmpty || busy { lock.wait() }
        }
    }

    /// Writes what is queued, then ends the thread; once.
    func finish() {
        lock.withLock {
            closing = true
            lock.signal()
        }
        thread?.join()
        thread = nil
    }

    /// The writer thread: one job at a time, in order, until `finish` and the queue is empty.
    private func run() {
        while true {
            let job: Job? = lock.withLock {
                while queue.isEmpty && !closing { lock.wait() }
                guard !queue.isEmpty else { return nil }
                busy = true
                return queue.removeFirst()
            }
            guard let job else { return }
            let failure = write(job)
            lock.withLock {
                if let failure { failures.append(failure) }
                spare.append(job.buffer)
                busy = false
                lock.signal()
            }
        }
    }

    private func write(_ job: Job) -> String? {
        do {
            let bytes = try PNGCodec.encode(CardImage.rgba(job.buffer.pixmap, coverage: coverage))
            try FileSystem.writeAtomically(bytes, named: job.name, in: folder)
            return nil
        } catch {
            return "cannot write \(directory)/\(job.name): \(error)"
        }
    }
}
