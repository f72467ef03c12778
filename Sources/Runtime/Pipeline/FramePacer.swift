/// When the loop renders: at most `Sink.fps` frames a second, only while the drawn point
/// moves (or a full frame is owed), and lined up with the samples where that saves a
/// wakeup. Pure: time is a parameter.
struct FramePacer {
    /// Seconds between frames at most `Sink.fps`.
    let interval: Double
    private var lastFrame = -Double.infinity
    /// A frame is owed whatever moves: the first one (the card at rest, at once), or new
    /// sink memory to paint in full.
    var owesFrame = true

    init(fps: Double, now: Double) {
        interval = 1 / fps
    }

    /// Whether a frame is due now (the drawn point is then moved on to `now`:
    /// `MotionInterpreter.draw(at:)`). While nothing moves and nothing is owed, time
    /// passes without a frame.
    mutating func frame(at now: Double, moving: Bool, sinkReady: Bool) -> Bool {
        guard moving || owesFrame, sinkReady, now - lastFrame >= interval * 0.999 else { return false }
        lastFrame = now
        return true
    }

    /// How long the loop may sleep before the next frame is due, given when the next
    /// sample should come (`sampleIn`, seconds from now); nil when no frame is pending
    /// (nothing moves, or the sink wakes the loop itself once it can take one).
    ///
    /// A frame due before the next sample waits for it when it comes within one frame
    /// interval: one wakeup instead of two, and the frame shows the newer sample. With a
    /// 100 Hz sensor and 60 fps that gives 50 frames a second (`Sink.fps` is a maximum); a
    /// buffer delivering a batch per frame interval gets a frame per batch, and a frame
    /// the timer gave is realigned with the samples at the next one. A sensor slower than
    /// half the frame rate keeps the frame timer: the drawn point moves between samples.
    func frameIn(now: Double, moving: Bool, sinkReady: Bool, sampleIn: Double) -> Double? {
        guard moving || owesFrame, sinkReady else { return nil }
        let frameIn = max(0, lastFrame + interval - now)
        if !owesFrame && sampleIn >= frameIn && sampleIn - frameIn <= interval { return nil }
        return frameIn
    }
}
