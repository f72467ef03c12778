/// The drawn half of the motion stage: the mapper's targets -> the point each frame is
/// drawn around. The daemon runs it inside `MotionInterpreter`; `shimmerd replay` runs it
/// on a trace's recorded targets, so a replay draws what the daemon drew. Pure.
///
/// - The point is a critically damped spring (`FocalSmoother`) on the readings' clock: a
///   new target takes over from the time of the reading before the one that set it (at
///   most `maximumLead` earlier), and
///   `draw(at:)` moves the point on to a frame's time. What is drawn at a time is a
///   function of the readings, the targets and the earlier frames' times only.
/// - The spring's half-life follows the time between readings while the device moves
///   (`FocalSmoother.halfLife(sampleInterval:)`): 6 ms at 100 Hz, 60 ms at 10 Hz.
/// - Targets that move less than `deadBand` points are sensor noise and move nothing.
package struct FocalDrawing: Sendable {
    /// Points: target moves smaller than this are sensor noise (0.2 pt is 0.4 px at scale 2).
    package static let deadBand = 0.2

    /// Seconds: the longest a target takes over before the reading that set it (the pace
    /// a still device is read at), so a reading after a pause does not jump.
    package static let maximumLead = 0.1

    private var smoother: FocalSmoother
    /// The point the last frame was drawn around. The readings move the spring on too, so
    /// it can settle between two frames; the picture has settled only once a frame shows
    /// where it settled.
    private var drawn: FocalPoint
    /// The time the spring has been moved on to.
    private var smoothedUntil = -Double.infinity
    private var still = StillnessDetector()
    /// Seconds between readings while moving (smoothed), and the last reading's time.
    private var sampleInterval: Double?
    private var lastReadingAt: Double?

    package init(at origin: FocalPoint) {
        smoother = FocalSmoother(at: origin)
        drawn = origin
    }

    /// A reading at `t`; `target`, the mapper's target it gave (nil for a reading taken
    /// for the baseline or rejected).
    package mutating func reading(at t: Double, target: FocalPoint?) {
        let previous = lastReadingAt
        followSampleInterval(at: t)
        guard let target else { return }
        still.observe(target, at: t)
        if abs(target.x - smoother.target.x) > Self.deadBand || abs(target.y - smoother.target.y) > Self.deadBand {
            retarget(target, from: max(previous ?? t, t - Self.maximumLead))
        }
    }

    /// The spring heads for `target` from time `t` (or from where it has been moved on
    /// to, if later): the sensor went away and the card eases home.
    package mutating func retarget(_ target: FocalPoint, from t: Double) {
        advance(to: t)
        smoother.target = target
    }

    /// Moves the drawn point on to `t` and returns it: a frame drawn at `t`.
    package mutating func draw(at t: Double) -> FocalPoint {
        advance(to: t)
        drawn = smoother.position
        return drawn
    }

    /// Where the point would be drawn at `t`, without drawing a frame there.
    package func point(at t: Double) -> FocalPoint {
        var copy = self
        return copy.draw(at: t)
    }

    /// The point the last frame was drawn around (points).
    package var position: FocalPoint { drawn }

    /// The spring has reached the target and stopped, and the last frame shows it: no
    /// frame is needed.
    package var isSettled: Bool { smoother.isSettled && drawn == smoother.position }

    /// The targets have stayed put a while and the picture has settled.
    package func isResting(at t: Double) -> Bool { still.isStill(at: t) && isSettled }

    private mutating func advance(to t: Double) {
        if smoothedUntil == -.infinity { smoothedUntil = t }
        guard t > smoothedUntil else { return }
        smoother.step(t - smoothedUntil)
        smoothedUntil = t
    }

    /// The spring's half-life from the time between readings, learnt while the device
    /// moves (a resting device is read slowly on purpose; that pace says nothing about
    /// the sensor). The steps before `t`'s predecessor keep the half-life they had.
    private mutating func followSampleInterval(at t: Double) {
        defer { lastReadingAt = t }
        guard let last = lastReadingAt else { return }
        advance(to: last)
        // Resting as the readings tell it, whatever the frames drawn (a replay has only
        // the frames that were published).
        guard !(still.isStill(at: t) && smoother.isSettled) else { return }
        let dt = t - last
        guard dt > 0, dt < 0.5 else { return }
        let interval = sampleInterval.map { dt < $0 ? dt : 0.8 * $0 + 0.2 * dt } ?? dt
        sampleInterval = interval
        smoother.setHalfLife(FocalSmoother.halfLife(sampleInterval: interval))
    }
}
