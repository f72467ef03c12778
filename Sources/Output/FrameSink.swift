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
    /// Frames `publish` reported as published that never reached the output whole (a
    /// reader that left in the middle of one): the caller takes them off its count.
    package var lostFrames: UInt64 = 0

    package init(sink: String, _ message: String, permanent: Bool = false) {
        self.sink = sink
        self.message = message
        self.permanent = permanent
    }

    package var description: String { "\(sink): \(message)" }
}

/// What became of a frame handed to `publish`.
package enum Delivery: Equatable, Sendable {
    /// The frame is out (on screen, in the segment, written to the output).
    case published
    /// The frame was not delivered, and why; the run goes on.
    case dropped(DropReason)
}

/// Why a sink dropped a frame instead of delivering it.
package enum DropReason: String, Equatable, Sendable {
    /// The reader is not taking frames (a full pipe: a stalled ffmpeg, a paused pipeline).
    case readerBusy = "the reader is not taking frames"
    /// A FIFO has no reader yet.
    case noReader = "no reader"
    /// The png sink's writer has every buffer full of frames still to compress.
    case writerBehind = "the PNG writer is behind"
    /// More frames than `Sink.fps` in the last second.
    case rateLimit = "more than Sink.fps frames in a second"
}

/// Who sees a sink's frames, for `Sink.demand = auto`: whether painting them serves anyone.
package enum FrameAudience: Equatable, Sendable {
    /// The output is its own consumer (a raw reader, a png directory, null): always painted.
    case own
    /// Readers that say they look by a claim on the system bus (the shared-memory segment).
    case claimants
    /// A display: seen while it is on and its console is in front; otherwise why not.
    case display(unseenBecause: String?)
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
    /// Makes the frame painted into `slot` visible, or drops it (a reader that does not
    /// keep up) and says why. Never blocks: a stop signal is acted on at once whatever a
    /// reader does.
    @discardableResult
    func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery
    /// Frames published so far.
    var framesPublished: UInt64 { get }
    /// False while a published frame reaches no one: a display sink with no display
    /// attached keeps the frame for when one appears. The stop line counts those apart.
    var isShowing: Bool { get }
    /// Who sees the frames (`FrameAudience`); `.own` by default.
    var audience: FrameAudience { get }
    /// The kernel's console-switch signal came (VT_PROCESS, `ConsoleSwitchWatch`): a display
    /// sink gives the display up, or takes it back; others ignore it.
    func consoleSwitched()
    /// Called by the pipeline loop on every wake-up (not while nobody looks), frames or
    /// not, so a sink can retry a device that was missing or busy. Never throws: a
    /// sink logs its own state changes through the `Logger` it was given.
    func maintain()
    /// Seconds until `maintain` has something to do on a timer of its own (a retry, a
    /// check of the device); nil when nothing (descriptors wake the loop for the rest).
    /// The loop wakes for it, and for nothing else of the sink's, while frames are painted.
    var maintenanceIn: Double? { get }
    /// Changes when the memory behind `target(slot:)` was replaced (the shm sink
    /// recreating a deleted object): the caller must fetch its targets again, and repaint
    /// them fully, before it paints the next frame.
    var targetGeneration: Int { get }
    /// Releases everything (restores the console, detaches from shared memory). Called
    /// once; deinit does the same if it was not.
    func close()
    /// Descriptors the pipeline loop must watch for the sink (a display's page-flip
    /// events); none by default.
    func appendFileDescriptors(to fds: inout [Int32])
    /// Called after each wait with the descriptors that became readable (all of them:
    /// the sink picks its own).
    func handle(readable: [Int32])
    /// False while the sink cannot take a frame yet (a page flip still in flight): the
    /// loop keeps the newest picture and publishes it once this turns true.
    var isReadyForFrame: Bool { get }
    /// True while a frame handed over earlier is still going out and newer ones are
    /// dropped (a raw reader that does not keep up): once it turns false, the loop hands
    /// over the newest picture even if nothing moves any more.
    var isBacklogged: Bool { get }
    /// The descriptor a frame in flight waits to be written to (a raw reader's full
    /// pipe), nil while nothing waits. The loop wakes as soon as it takes writes
    /// (POLLOUT) and calls `continueWriting`, so a reader that resumes gets the rest of
    /// the frame at the pipe's speed, not at the loop's other wakeups.
    var pendingWrite: Int32? { get }
    /// Writes what `pendingWrite` takes now of the frame in flight. Never blocks, never
    /// throws: a reader gone is reported by the next `publish`.
    func continueWriting()
}

extension FrameSink {
    package var audience: FrameAudience { .own }
    package func consoleSwitched() {}
    package func maintain() {}
    package var maintenanceIn: Double? { nil }
    package var targetGeneration: Int { 0 }
    package func appendFileDescriptors(to fds: inout [Int32]) {}
    package func handle(readable: [Int32]) {}
    package var isReadyForFrame: Bool { true }
    package var isBacklogged: Bool { false }
    package var isShowing: Bool { true }
    package var pendingWrite: Int32? { nil }
    package func continueWriting() {}
}
