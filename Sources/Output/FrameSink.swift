import Raster

/// What a published frame was.
package struct FrameInfo: Sendable, Equatable {
    /// 1, 2, 3, ... (0 means none yet, as in the shm header).
    package var number: UInt64
    /// CLOCK_MONOTONIC nanoseconds at publication.
    package var timeNanoseconds: UInt64
    /// Points.
    package var focalX: Double
    package var focalY: Double

    package init(number: UInt64, timeNanoseconds: UInt64, focalX: Double, focalY: Double) {
        self.number = number
        self.timeNanoseconds = timeNanoseconds
        self.focalX = focalX
        self.focalY = focalY
    }
}

/// A sink failure: which sink, what happened. `permanent` failures end the sink
/// (a raw reader that went away); others are retried.
package struct SinkError: Error, CustomStringConvertible {
    package var sink: String
    package var message: String
    package var permanent: Bool

    package init(sink: String, _ message: String, permanent: Bool = false) {
        self.sink = sink
        self.message = message
        self.permanent = permanent
    }

    package var description: String { "\(sink): \(message)" }
}

/// Where frames go. The sink owns the pixel memory; the renderer paints straight into
/// it. A sink may rotate through several buffers (`slotCount`); each keeps the frame it
/// last received, so the runtime keeps one renderer target per slot.
package protocol FrameSink: AnyObject {
    /// For logs and STATUS= ("png /tmp/frames", "shm /dev/shm/shimmer").
    var summary: String { get }
    var slotCount: Int { get }
    /// The buffer of `slot`, and where the card's top-left pixel goes in it.
    func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int)
    /// Which slot the next frame is painted into.
    func nextSlot() -> Int
    /// Makes the frame painted into `slot` visible.
    func publish(slot: Int, _ frame: FrameInfo) throws(SinkError)
    /// Frames published so far.
    var framesPublished: UInt64 { get }
    /// Called by the pipeline loop on every wake-up (at least four times a second), frames
    /// or not, so a sink can retry a device that was missing or busy. Never throws: a
    /// sink reports its own state changes through the report closure it was given.
    func maintain()
    /// Changes when the memory behind `target(slot:)` was replaced (the shm sink
    /// recreating a deleted object): the caller must fetch its targets again, and repaint
    /// them fully, before it paints the next frame.
    var targetGeneration: Int { get }
    /// Releases everything (restores the console, detaches from shared memory). Called
    /// once; deinit does the same if it was not.
    func close()
}

extension FrameSink {
    package func maintain() {}
    package var targetGeneration: Int { 0 }
}
