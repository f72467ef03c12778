/// The drawn half of the motion stage: the mapper's targets -> the point each frame is
/// drawn around. The daemon runs it inside `MotionInterpreter`; `shimmerd replay` runs it
/// on a trace's recorded targets, so a replay draws what the daemon drew. Pure.
///
/// - The point is a critically damped spring (`FocalSmoother`) on the readings' clock.
///   A new target takes over one frame's worth of readings before the reading that set
///   it (`lead`): the newest reading is what the next frame should show, and a frame
///   lined up with the readings (`FramePacer`) shows it that far along. A frame asks
///   where the spring is at its time (`point(at:)`); only a published frame moves the
///   spring's clock on (`draw(at:)`). What is drawn is therefore a function of the
///   readings, the targets and the published frames' times, which a trace holds.
/// - The spring's half-life follows the time between readings while the device moves
///   (`FocalSmoother.halfLife(sampleInterval:)`): 6 ms at 100 Hz, 60 ms at 10 Hz.
/// - Targets that move less than `deadBand` points are sensor noise and move nothing.
package struct FocalDrawing: Sendable {
    /// Points: target moves smaller than this are sensor noise (0.2 pt is 0.4 px at scale 2).
    package static let deadBand = 0.2
    /// Seconds: the longest lead, whatever the frame rate.
    package static let maximumLead = 0.1

    /// Seconds between frames at most (`1 / Sink.fps`).
    package let frameInterval: Double
    private var smoother: FocalSmoother
    /// The point the picture shows: the last frame published, or a frame that changed
    /// nothing on it. The spring may settle between frames (readings move it on); the
    /// picture has settled only once it shows where the spring came to rest.
    private var shown: FocalPoint
    /// The time the spring has been moved on to.
    private var smoothedUntil = -Double.infinity
    private var still = StillnessDetector()
    /// Seconds between readings while moving (smoothed), and the last reading's time.
    private var sampleInterval: Double?
    private var lastReadingAt: Double?

    package init(at origin: FocalPoint, frameInterval: Double = 1.0 / 60) {
        smoother = FocalSmoother(at: origin)
        shown = origin
        self.frameInterval = frameInterval
    }

    /// How long before its reading a target takes over: the readings one frame spans
    /// (two at 100 Hz and 60 fps, where a frame comes every other reading), or one frame
    /// for a sensor slower than the frame rate.
    package var lead: Double {
        guard let s = sampleInterval, s > 0, s < frameInterval else { return min(frameInterval, Self.maximumLead) }
        return min(s * (frameInterval / s).rounded(.up), Self.maximumLead)
    }

    /// A reading at `t`; `target`, the mapper's target it gave (nil for a reading taken
    /// for the baseline or rejected).
    package mutating func reading(at t: Double, target: FocalPoint?) {
        advance(to: t - lead)  // what came before keeps its target and half-life
        followSampleInterval(at: t)
        guard let target else { return }
        still.observe(target, at: t)
        if abs(target.x - smoother.target.x) > Self.deadBand || abs(target.y - smoother.target.y) > Self.deadBand {
            smoother.target = target
        }
    }

    /// The spring heads for `target` from `t` (or from where it has been moved on to, if
    /// later): the sensor went away and the card eases home.
    package mutating func retarget(_ target: FocalPoint, from t: Double) {
        advance(to: t)
        smoother.target = target
    }

    /// Where the point is drawn at `t`; the spring's clock stays (`draw(at:)` moves it).
    package func point(at t: Double) -> FocalPoint { spring(at: t).position }

    /// A frame published at `t`: the spring's clock moves on to it. Returns the point.
    package mutating func draw(at t: Double) -> FocalPoint {
        advance(to: t)
        shown = smoother.position
        return shown
    }

    /// A frame at `t` that changed nothing on the picture (no dot's color moved): the
    /// picture shows `point(at: t)`, and the spring's clock stays where it was.
    package mutating func unchanged(at t: Double) {
        shown = point(at: t)
    }

    /// The point the picture shows (points).
    package var position: FocalPoint { shown }

    /// The spring has reached the target and stopped by `t`, and the picture shows it: no
    /// frame is needed.
    package func isSettled(at t: Double) -> Bool {
        let s = spring(at: t)
        return s.isSettled && s.position == shown
    }

    /// The targets have stayed put a while and the picture has settled.
    package func isResting(at t: Double) -> Bool { still.isStill(at: t) && isSettled(at: t) }

    private func spring(at t: Double) -> FocalSmoother {
        var s = smoother
        if t > smoothedUntil, smoothedUntil > -.infinity { s.step(t - smoothedUntil) }
        return s
    }

    private mutating func advance(to t: Double) {
        if smoothedUntil == -.infinity { smoothedUntil = t }
        guard t > smoothedUntil else { return }
        smoother.step(t - smoothedUntil)
        smoothedUntil = t
    }

    /// The spring's half-life from the time between readings, learnt while the device
    /// moves (a resting device is read slowly on purpose; that pace says nothing about
    /// the sensor).
    private mutating func followSampleInterval(at t: Double) {
        defer { lastReadingAt = t }
        // Resting as the readings tell it, whatever the frames drawn (a replay has only
        // the frames that were published).
        guard let last = lastReadingAt, !(still.isStill(at: t) && smoother.isSettled) else { return }
        let dt = t - last
        guard dt > 0, dt < 0.5 else { return }
        let interval = sampleInterval.map { dt < $0 ? dt : 0.8 * $0 + 0.2 * dt } ?? dt
        sampleInterval = interval
        smoother.setHalfLife(FocalSmoother.halfLife(sampleInterval: interval))
    }
}
