import Motion
import Sensors
import Tracing

/// The motion half of the loop: readings -> attitude -> the mapper's target -> the drawn
/// focal point, and the trace records that go with them (`reading`, `baseline`,
/// `sample`, `recapture`). No clock and no descriptors: time is a parameter, so the
/// loop's other concerns (signals, pacing, publishing) never touch this state.
struct MotionStage {
    private var tracker: MotionTracker
    private var smoother: FocalSmoother
    private var still = StillnessDetector()
    /// The focal point of an untilted device (the mapper's origin).
    let origin: FocalPoint
    /// The sensor went away; its return captures a new baseline.
    private var detached = false
    private(set) var samples = 0

    /// Points: target moves smaller than this are sensor noise (0.2 pt is 0.4 px at scale 2).
    static let deadBand = 0.2

    init(_ motion: MotionConfiguration) {
        tracker = MotionTracker(attitude: motion.attitude, mapper: motion.mapper)
        origin = motion.mapper.origin
        smoother = FocalSmoother(at: origin)
    }

    /// What a source event means to the rest of the loop.
    enum Change {
        case none
        /// The sensor attached, went away, or is being waited for: STATUS= changes.
        case sensorState
        case waiting(String)
    }

    /// Takes one event of the sample source.
    mutating func take(_ event: AccelerometerService.Event, at now: Double, trace: TraceWriter?) -> Change {
        switch event {
        case .sample(let a, _):
            take(acceleration: a, at: now, trace: trace)
            return .none
        // The sensor service logs these itself (one line each, with the details); here
        // they only change the state and STATUS=.
        case .attached:
            if detached { recapture("the accelerometer attached again", at: now, trace: trace) }
            detached = false
            return .sensorState
        case .recapture(let why):
            recapture(why, at: now, trace: trace)
            return .none
        case .detached:
            detached = true
            smoother.target = origin
            return .sensorState
        case .waiting(let why):
            return .waiting(why)
        }
    }

    private mutating func take(acceleration a: Vector3, at now: Double, trace: TraceWriter?) {
        let r = tracker.process(acceleration: a, at: now)
        if let b = r.baseline {
            trace?.append(TraceRecord.Baseline(t: now, up: [b.up.x, b.up.y, b.up.z]))
        }
        guard let s = r.sample else {
            if let reading = Self.reading(a, r.step, at: now) { trace?.append(reading) }
            return
        }
        samples += 1
        still.observe(s.focal, at: now)
        // Dead band: sensor noise well under a pixel does not move the point.
        if abs(s.focal.x - smoother.target.x) > Self.deadBand || abs(s.focal.y - smoother.target.y) > Self.deadBand {
            smoother.target = s.focal
        }
        trace?.append(TraceRecord.Sample(t: s.t, seq: s.seq, accel: [s.accel.x, s.accel.y, s.accel.z],
                                         dpitch: s.tilt.dPitchRadians, droll: s.tilt.dRollRadians,
                                         focal: [s.focal.x, s.focal.y]))
    }

    /// Drops the baseline (the next readings capture a new one), and says so in the trace
    /// so that a replay recaptures at the same point.
    mutating func recapture(_ why: String, at now: Double, trace: TraceWriter?) {
        tracker.recapture()
        trace?.append(TraceRecord.Recapture(t: now, reason: why))
    }

    /// The drawn point has reached the target and stopped: no frame is needed.
    var isSettled: Bool { smoother.isSettled }

    /// The device lies still and the picture has settled: the source may read slowly.
    func isResting(at now: Double) -> Bool { still.isStill(at: now) && smoother.isSettled }

    /// Moves the drawn point `dt` seconds on toward the target and returns it.
    mutating func advance(by dt: Double) -> FocalPoint {
        smoother.step(dt)
        return smoother.position
    }

    /// The `reading` record of a reading that gave no sample (baseline collection or
    /// rejected), so the trace holds every reading; nil for non-finite values, which
    /// JSON cannot carry.
    static func reading(_ a: Vector3, _ step: AttitudeStep, at t: Double) -> TraceRecord.Reading? {
        guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { return nil }
        let accel = [a.x, a.y, a.z]
        switch step {
        case .collectingBaseline(_, _, let used):
            return TraceRecord.Reading(t: t, accel: accel, use: used ? "baseline" : "rejected",
                                       reason: used ? nil : "outside [0.5 g, 1.5 g] while collecting the baseline")
        case .rejected(let why):
            return TraceRecord.Reading(t: t, accel: accel, use: "rejected", reason: "\(why)")
        case .tilt:
            return nil
        }
    }
}
