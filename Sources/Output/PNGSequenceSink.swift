import LinuxSystem
import PNG
import Raster

/// Numbered PNG frames in a directory: `frame-000001.png`, ... Each is written
/// atomically, with the card's rounded corners transparent.
package final class PNGSequenceSink: FrameSink {
    package let directory: String
    private let buffer: PixelBuffer
    private let coverage: [UInt8]
    package private(set) var framesPublished: UInt64 = 0
    package private(set) var written: [String] = []

    package init(directory: String, width: Int, height: Int, coverage: [UInt8]) throws(SinkError) {
        self.directory = directory
        do { try FileSystem.createDirectories(directory) } catch {
            throw SinkError(sink: "png", "cannot create \(directory): \(error)", permanent: true)
        }
        buffer = PixelBuffer(width: width, height: height)
        self.coverage = coverage
    }

    package var summary: String { "png \(directory)" }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    package static func fileName(_ number: UInt64) -> String {
        let digits = String(number)
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".png"
    }

    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        let path = directory + "/" + Self.fileName(frame.number)
        do {
            let bytes = try PNGCodec.encode(CardImage.rgba(buffer.pixmap, coverage: coverage))
            try FileSystem.writeAtomically(bytes, to: path)
        } catch {
            throw SinkError(sink: "png", "cannot write \(path): \(error)")
        }
        framesPublished += 1
        written.append(path)
        return .published
    }

    package func close() {}
}
