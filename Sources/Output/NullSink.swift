import Raster

/// Frames painted into memory and dropped: for measuring and for headless tests.
package final class NullSink: FrameSink {
    private let buffer: PixelBuffer
    package private(set) var framesPublished: UInt64 = 0

    package init(width: Int, height: Int) {
        buffer = PixelBuffer(width: width, height: height)
    }

    package var summary: String { "null" }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }
    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        framesPublished += 1
        return .published
    }
    package func close() {}
}
