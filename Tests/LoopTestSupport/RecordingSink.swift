import Output
import Raster

/// A sink that keeps in memory what the loop handed it: every frame's `FrameInfo` (its
/// number, its CLOCK_MONOTONIC time, its focal point) and what became of it, and how often
/// it was maintained, switched or closed. What it answers is the test's to set: its
/// audience, whether it takes a frame now, what the next publications do.
package final class RecordingSink: FrameSink {
    private let buffer: PixelBuffer
    private let clock: ManualClock
    /// The frames published (delivered), in order, with the clock's time at publication.
    package private(set) var frames: [(info: FrameInfo, at: Double)] = []
    /// The frames handed over and dropped, with the reason and the clock's time.
    package private(set) var drops: [(reason: DropReason, at: Double)] = []
    /// Deliveries still to come, first to last: a failure thrown, or a frame dropped.
    private var script: [Result<Delivery, SinkError>] = []
    package private(set) var consoleSwitches = 0
    package private(set) var maintenanceCalls = 0
    package private(set) var closeCalls = 0

    package var summary = "recording"
    package var audience = FrameAudience.own
    package var isReadyForFrame = true
    package var isBacklogged = false
    package var isShowing = true
    package var maintenanceIn: Double?
    /// Raised by the test to say the sink's memory was replaced (`FrameSink.targetGeneration`).
    package var targetGeneration = 0

    package init(width: Int, height: Int, clock: ManualClock) {
        buffer = PixelBuffer(width: width, height: height)
        self.clock = clock
    }

    /// The next `count` publications end so (after those already scripted).
    package func willDeliver(_ delivery: Delivery, times count: Int = 1) {
        script += Array(repeating: .success(delivery), count: count)
    }

    /// The next `count` publications throw `error`.
    package func willFail(_ error: SinkError, times count: Int = 1) {
        script += Array(repeating: .failure(error), count: count)
    }

    package var framesPublished: UInt64 { UInt64(frames.count) }
    package var slotCount: Int { 1 }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (buffer.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        let next = script.isEmpty ? .success(.published) : script.removeFirst()
        switch next {
        case .success(.published):
            frames.append((frame, clock.now))
            return .published
        case .success(.dropped(let why)):
            drops.append((why, clock.now))
            return .dropped(why)
        case .failure(let error):
            throw error
        }
    }

    package func consoleSwitched() { consoleSwitches += 1 }
    package func maintain() { maintenanceCalls += 1 }
    package func close() { closeCalls += 1 }

    /// The clock's times of the frames published.
    package var frameTimes: [Double] { frames.map(\.at) }
}
