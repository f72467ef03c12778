import Card
import LinuxSystem
import Logging
import Motion
import Output
import Tracing

/// Frames counted over the daemon's whole run, across reloads (each reload builds a new
/// pipeline): the stop line and the trace's frame numbers go on from where they were.
package final class RunCounters {
    package private(set) var published: UInt64 = 0
    package private(set) var dropped: UInt64 = 0
    /// Published while the sink showed them to no one (no display attached).
    package private(set) var unshown: UInt64 = 0
    package private(set) var samples = 0

    package init() {}

    /// A frame is out; `shown`: someone could see it.
    func published(shown: Bool) {
        published += 1
        if !shown { unshown += 1 }
    }

    /// A frame was dropped.
    func droppedOne() { dropped += 1 }

    /// Frames counted as published that never reached the output whole.
    func lost(_ frames: UInt64) { published -= min(frames, published) }

    /// Readings the motion stage used.
    func took(samples n: Int) { samples += n }
}

/// The output half of the loop: paints the card into the sink's memory and hands the
/// frame over, then records what became of it (`frame` or `dropped` in the trace, one
/// rate-limited log line per cause of failure or drop).
final class FramePublisher {
    let sink: any FrameSink
    let renderer: CardRenderer
    let counters: RunCounters
    private let log: Logger
    /// CLOCK_MONOTONIC nanoseconds, the time stamped on each frame.
    private let frameTime: () -> UInt64
    private var targets: [CardTarget]
    private var targetGeneration: Int
    private var limiter = RateLimiter()
    /// The sink failed for good (a raw reader went away): the run ends cleanly.
    private(set) var ended = false
    /// A frame was dropped because the sink was still busy with an earlier one: the
    /// picture it showed is owed to the reader once the sink has caught up.
    private(set) var owesNewest = false
    /// Called after each published frame (demo progress).
    private let onFrame: ((UInt64, Double) -> Void)?

    init(
        sink: any FrameSink, renderer: CardRenderer, counters: RunCounters, log: Logger,
        frameTime: @escaping () -> UInt64, onFrame: ((UInt64, Double) -> Void)?
    ) {
        self.sink = sink
        self.frameTime = frameTime
        self.onFrame = onFrame
        self.renderer = renderer
        self.counters = counters
        self.log = log
        targets = Self.targets(of: sink)
        targetGeneration = sink.targetGeneration
    }

    /// Lets the sink retry a missing device; true when its memory was replaced (a
    /// recreated shm object), so the next frame must be painted in full.
    func maintain() -> Bool {
        sink.maintain()
        guard sink.targetGeneration != targetGeneration else { return false }
        targets = Self.targets(of: sink)
        targetGeneration = sink.targetGeneration
        return true
    }

    /// Whether the picture owed to a reader that was busy goes out now: it has caught up
    /// (the sink is not `backlogged`). Owed no more once it does.
    func takeOwedNewest(backlogged: Bool) -> Bool {
        guard owesNewest, !backlogged else { return false }
        owesNewest = false
        return true
    }

    /// Colors for `focal`; true when some dot changed (a frame is worth publishing).
    func update(_ focal: FocalPoint) -> Bool {
        renderer.update(focalX: focal.x, focalY: focal.y) > 0
    }

    /// Paints the changed dots into the sink's next buffer and hands it over.
    func publish(_ focal: FocalPoint, at now: Double, trace: TraceWriter?, clock: () -> Double) {
        let slot = sink.nextSlot()
        let painted = renderer.paint(into: &targets[slot])
        let info = FrameInfo(
            number: counters.published + 1, timeNanoseconds: frameTime(),
            focalX: focal.x, focalY: focal.y)
        do {
            switch try sink.publish(slot: slot, info) {
            case .published:
                counters.published(shown: sink.isShowing)
                trace?.append(
                    TraceRecord.Frame(
                        t: now, frame: counters.published, focal: [focal.x, focal.y],
                        dots: painted.dotsRepainted, pixels: painted.pixelsWritten, published: clock()))
                onFrame?(counters.published, now)
            case .dropped(let why):
                counters.droppedOne()
                if why == .readerBusy || why == .writerBehind { owesNewest = true }
                trace?.append(TraceRecord.Dropped(t: now, focal: [focal.x, focal.y], reason: why.rawValue))
                reportDrop(why, at: now)
            }
        } catch {
            // The slot's contents are now unknown to the sink: repaint it fully next time.
            targets[slot].invalidate()
            counters.lost(error.lostFrames)
            if error.permanent {
                log.notice("\(error); stopping", ["sink": sink.summary])
                ended = true
                return
            }
            let (allowed, held) = limiter.allow("sink:" + error.message, now: now)
            if allowed {
                log.error(
                    "frame \(counters.published + 1) not published: \(error)"
                        + (held > 0 ? " (\(held) more since the last report)" : ""),
                    ["sink": sink.summary])
            }
        }
    }

    /// One line a second at most per cause; the rate limit alone is not news (it is
    /// `Sink.fps` doing its job), so it is logged at debug level.
    private func reportDrop(_ why: DropReason, at now: Double) {
        let (allowed, held) = limiter.allow(why.rawValue, now: now)
        guard allowed else { return }
        let line =
            "frame dropped: \(why.rawValue)" + (held > 0 ? " (\(held) more since the last report)" : "")
            + "; \(counters.dropped) dropped in all"
        if why == .rateLimit {
            log.debug(line, ["sink": sink.summary])
        } else {
            log.warning(line, ["sink": sink.summary])
        }
    }

    private static func targets(of sink: any FrameSink) -> [CardTarget] {
        (0..<sink.slotCount).map { slot in
            let t = sink.target(slot: slot)
            return CardTarget(pixmap: t.pixmap, originX: t.originX, originY: t.originY)
        }
    }
}
