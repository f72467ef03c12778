import Glibc
import LinuxSystem
import Logging
import PNG
import Raster

/// Numbered PNG frames in a directory: `frame-000001.png`, ... Each is written
/// atomically, with the card's rounded corners transparent, by a `PNGFrameWriter` on a
/// thread of its own: `publish` only copies the frame. A frame that comes while the
/// writer's buffers are all taken is dropped (`DropReason.writerBehind`), or waited for
/// where every frame must be written (`waitsWhenBehind`, replay).
///
/// The sink never overwrites a frame: in a directory that already holds frames (an
/// earlier run, or this run before a reload), numbering continues after the highest
/// `frame-N.png` there. It keeps no list of what it wrote, so a run of any length uses
/// the same memory; the files are `fileName(firstNumber) ... fileName(nextNumber - 1)`.
package final class PNGSequenceSink: FrameSink {
    package let directory: String
    private let folder: FileDescriptor
    /// Frame numbers stop short of this (a trillion: 1000 years at 30 frames a second), so
    /// `+ 1` on a number read from a file name cannot overflow.
    package static let maximumNumber: UInt64 = 1_000_000_000_000
    private let buffer: PixelBuffer
    private let writer: PNGFrameWriter
    private var closed = false
    private let log: Logger?
    package private(set) var framesPublished: UInt64 = 0
    /// The number of the first frame this sink writes (1 in an empty directory).
    package let firstNumber: UInt64
    /// The number the next frame gets.
    package private(set) var nextNumber: UInt64

    package init(
        directory: String, width: Int, height: Int, coverage: [UInt8], waitsWhenBehind: Bool = false,
        log: Logger? = nil
    ) throws(SinkError) {
        self.directory = directory
        self.log = log
        do { try FileSystem.createDirectories(directory) } catch {
            throw SinkError(sink: "png", "cannot create \(directory): \(error)", permanent: true)
        }
        // Opened once, never through a symbolic link: every frame goes into this
        // directory (openat), whatever its name comes to point at.
        do { folder = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) } catch let e
            as SystemError
            where (e.errno == ELOOP || e.errno == ENOTDIR)
            && (try? FileStatus.of(directory, followLinks: false).kind) == .symbolicLink
        {
            throw SinkError(sink: "png", "\(directory) is a symbolic link; refusing to follow it", permanent: true)
        } catch {
            throw SinkError(sink: "png", "cannot open \(directory): \(error)", permanent: true)
        }
        let names: [String]
        do { names = try FileSystem.list(directory) } catch {
            throw SinkError(sink: "png", "cannot list \(directory): \(error)", permanent: true)
        }
        let highest = names.compactMap(Self.number(ofFileName:)).max() ?? 0
        guard highest < Self.maximumNumber else {
            throw SinkError(
                sink: "png",
                "\(directory) holds \(Self.fileName(highest)); numbering cannot go on after it "
                    + "(at most \(Self.fileName(Self.maximumNumber))); use another directory", permanent: true)
        }
        firstNumber = highest + 1
        nextNumber = firstNumber
        buffer = PixelBuffer(width: width, height: height)
        writer = try PNGFrameWriter(
            folder: folder, directory: directory, width: width, height: height,
            coverage: coverage, waitsWhenFull: waitsWhenBehind)
    }

    deinit { close() }

    package var summary: String { "png \(directory)" }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }
    /// The writer has no buffer free: the frames that come are dropped until it has, then
    /// the newest picture goes out.
    package var isBacklogged: Bool { !closed && writer.isFull }

    /// `frame-` and at least six digits, `.png`.
    package static func fileName(_ number: UInt64) -> String {
        let digits = String(number)
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".png"
    }

    /// The frame number of a name `fileName` gives; nil for any other name.
    package static func number(ofFileName name: String) -> UInt64? {
        guard name.hasPrefix("frame-"), name.hasSuffix(".png") else { return nil }
        let digits = name.dropFirst(6).dropLast(4)
        guard digits.count >= 6, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return UInt64(digits)
    }

    /// Hands the frame to the writer. A write that failed since the last call (the disk
    /// full, the directory gone) is reported here, with the frames it lost.
    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        try reportFailures()
        guard nextNumber <= Self.maximumNumber else {
            throw SinkError(
                sink: "png", "\(directory): frame numbers end at \(Self.fileName(Self.maximumNumber))", permanent: true)
        }
        guard writer.submit(buffer.pixmap, name: Self.fileName(nextNumber)) else { return .dropped(.writerBehind) }
        nextNumber += 1
        framesPublished += 1
        return .published
    }

    /// Returns once every frame handed over is in its file; throws for those that are not.
    package func flush() throws(SinkError) {
        writer.drain()
        try reportFailures()
    }

    private func reportFailures() throws(SinkError) {
        let failed = writer.takeFailures()
        guard let first = failed.first else { return }
        framesPublished -= UInt64(failed.count)
        var error = SinkError(sink: "png", first + (failed.count > 1 ? " (and \(failed.count - 1) more frames)" : ""))
        error.lostFrames = UInt64(failed.count)
        throw error
    }

    /// Writes the frames still queued, then ends the writer's thread; a write that failed
    /// meanwhile is logged.
    package func close() {
        guard !closed else { return }
        closed = true
        writer.finish()
        do { try reportFailures() } catch {
            log?.error("\(error)", ["sink": summary])
        }
    }
}
