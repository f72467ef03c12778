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
        let names: [String]
        do { names = try FileSystem.list(directory) } catch {
            throw SinkError(sink: "png", "cannot list \(directory): \(error)", permanent: true)
        }
        firstNumber = (names.compactMap(Self.number(ofFileName:)).max() ?? 0) + 1
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
        let path = directory + "/" + Self.fileName(nextNumber)
        do {
            let bytes = try PNGCodec.encode(CardImage.rgba(buffer.pixmap, coverage: coverage))
            try FileSystem.writeAtomically(bytes, to: path)
        } catch {
            throw SinkError(sink: "png", "cannot write \(path): \(error)")
        }
        nextNumber += 1
        framesPublished += 1
        return .published
    }

    package func close() {}
}
