import Glibc
import LinuxSystem
import PNG
import Raster

/// Numbered PNG frames in a directory: `frame-000001.png`, ... Each is written
/// atomically, with the card's rounded corners transparent.
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
    private let coverage: [UInt8]
    package private(set) var framesPublished: UInt64 = 0
    /// The number of the first frame this sink writes (1 in an empty directory).
    package let firstNumber: UInt64
    /// The number the next frame gets.
    package private(set) var nextNumber: UInt64

    package init(directory: String, width: Int, height: Int, coverage: [UInt8]) throws(SinkError) {
        self.directory = directory
        do { try FileSystem.createDirectories(directory) } catch {
            throw SinkError(sink: "png", "cannot create \(directory): \(error)", permanent: true)
        }
        // Opened once, never through a symbolic link: every frame goes into this
        // directory (openat), whatever its name comes to point at.
        do { folder = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) }
        catch let e as SystemError where (e.errno == ELOOP || e.errno == ENOTDIR)
                  && (try? FileStatus.of(directory, followLinks: false).kind) == .symbolicLink {
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
            throw SinkError(sink: "png", "\(directory) holds \(Self.fileName(highest)); numbering cannot go on after it "
                            + "(at most \(Self.fileName(Self.maximumNumber))); use another directory", permanent: true)
        }
        firstNumber = highest + 1
        nextNumber = firstNumber
        buffer = PixelBuffer(width: width, height: height)
        self.coverage = coverage
    }

    package var summary: String { "png \(directory)" }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

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

    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        let name = Self.fileName(nextNumber)
        let path = directory + "/" + name
        guard nextNumber <= Self.maximumNumber else {
            throw SinkError(sink: "png", "\(directory): frame numbers end at \(Self.fileName(Self.maximumNumber))", permanent: true)
        }
        do {
            let bytes = try PNGCodec.encode(CardImage.rgba(buffer.pixmap, coverage: coverage))
            try FileSystem.writeAtomically(bytes, named: name, in: folder)
        } catch {
            throw SinkError(sink: "png", "cannot write \(path): \(error)")
        }
        nextNumber += 1
        framesPublished += 1
        return .published
    }

    package func close() {}
}
