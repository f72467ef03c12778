import Logging
import Motion
import Sensors
import Tracing

/// The motion half of the loop: readings (and gyroscope readings) -> attitude -> the
/// mapper's target -> the drawn focal point, and the trace records that go with them
/// (`reading`, `gyro`, `baseline`, `sample`, `recapture`). No clock and no descriptors:
/// time is a parameter, so the loop's other concerns (signals, pacing, publishing) never
/// touch this state.
///
/// - The focal spring's half-life follows the sensor's sample interval while the device
///   moves (`FocalSmoother.halfLife(sampleInterval:)`): 6 ms at 100 Hz, where the samples
///   are dense and the spring would only add lag; 60 ms at 10 Hz.
/// - A device that rests for `Attitude.recapture_after` seconds farther than
///   `Attitude.recapture_angle` from its baseline (a convertible folded into tablet mode,
///   a tablet laid on a table) gets a new baseline there, logged and traced.
struct MotionStage {
    private var tracker: MotionTracker
    private var smoother: FocalSmoother
    private var still = StillnessDetector()
    /// Seconds between samples while moving (smoothed), and the last sample's time.
    private var sampleInterval: Double?
    private var lastSampleAt: Double?
    /// Since when the attitude has rested (the estimator's rest gate holds), and the
    /// angle of the last tilt from the baseline.
    private var restingSince: Double?
    private var lastAngle = 0.0
    private let recaptureAfter: Double
    private let recaptureAngle: Double
    /// The focal point of an untilted device (the mapper's origin).
    let origin: FocalPoint
    /// The sensor went away; its return captures a new baseline.
    private var detached = false
    private(set) var samples = 0
    /// The last sample's tilt (radians) and the mapper's target (points), and when the
    /// baseline was captured: what the bus shows (`StatusBus`).
    private(set) var lastTilt = (dPitch: 0.0, dRoll: 0.0)
    private(set) var baselineAt: Double?

    /// Points: target moves smaller than this are sensor noise (0.2 pt is 0.4 px at scale 2).
    static let deadBand = 0.2

    init(_ motion: MotionConfiguration) {
        tracker = MotionTracker(attitude: motion.attitude, mapper: motion.mapper)
        origin = motion.mapper.origin
        smoother = FocalSmoother(at: origin)
        recaptureAfter = motion.recaptureAfter
        recaptureAngle = motion.recaptureAngle
    }

    /// What a source event means to the rest of the loop.
    enum Change {
        case none
        /// The sensor attached, went away, or is being waited for: STATUS= changes.
        case sensorState
        case waiting(String)
        /// A line for the log: a baseline recaptured by itself.
        case log(Logger.Level, String)
        /// The self-check's evidence says the gyroscope's frame is wrong (a line for the
        /// log; its readings are still weighed): why.
        case gyroscopeDisagreed(String)
        /// The evidence turned: the gyroscope is fused again (a line for the log): why.
        case gyroscopeAgrees(String)
    }

    /// Takes one event of the sample source.
    mutating func take(_ event: AccelerometerService.Event, at now: Double, trace: TraceWriter?) -> Change {
        switch event {
        case .sample(let a, _, let t):
            return take(acceleration: a, at: t, trace: trace)
        case .gyro(let w, let t):
            let step = tracker.process(angularVelocity: w, at: t)
            switch step {
            case .used, .weighed, .doubted, .trustedAgain:
                trace?.append(TraceRecord.Gyro(t: t, anglvel: [w.x, w.y, w.z]))
            case .rejected:
                break
            }
            switch step {
            case .doubted(let why): return .gyroscopeDisagreed(why)
            case .trustedAgain(let why): return .gyroscopeAgrees(why)
            default: return .none
            }
        // The sensor service logs these itself (one line each, with the details); here
        // they only change the state and STATUS=.
        case .attached:
            if detached { recapture("the accelerometer attached again", at: now, trace: trace) }
            detached = false
            // A new sensor: the self-check judges its gyroscope afresh.
            tracker.forgetGyroscope()
            return .sensorState
        case .gyroAttached:
            return .none          // the fusion starts with its first reading
        case .gyroDetached:
            tracker.gyroscopeGone()
            return .none
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

    private mutating func take(acceleration a: Vector3, at now: Double, trace: TraceWriter?) -> Change {
        followSampleInterval(at: now)
        let r = tracker.process(acceleration: a, at: now)
        if let b = r.baseline {
            baselineAt = now
            trace?.append(TraceRecord.Baseline(t: now, up: [b.up.x, b.up.y, b.up.z]))
        }
        guard let s = r.sample else {
            if let reading = Self.reading(a, r.step, at: now) { trace?.append(reading) }
            return .none
        }
        samples += 1
        lastTilt = (s.tilt.dPitchRadians, s.tilt.dRollRadians)
        still.observe(s.focal, at: now)
        lastAngle = (s.tilt.dPitchRadians * s.tilt.dPitchRadians + s.tilt.dRollRadians * s.tilt.dRollRadians).squareRoot()
        // Dead band: sensor noise well under a pixel does not move the point.
        if abs(s.focal.x - smoother.target.x) > Self.deadBand || abs(s.focal.y - smoother.target.y) > Self.deadBand {
            smoother.target = s.focal
        }
        trace?.append(TraceRecord.Sample(t: s.t, seq: s.seq, accel: [s.accel.x, s.accel.y, s.accel.z],
                                         dpitch: s.tilt.dPitchRadians, droll: s.tilt.dRollRadians,
                                         focal: [s.focal.x, s.focal.y]))
        return recaptureIfRestingFar(at: now, trace: trace)
    }

    /// The spring's half-life from the time between samples, learnt while the device
    /// moves (a resting device is read slowly on purpose; that pace says nothing about
    /// the sensor).
    private mutating func followSampleInterval(at now: Double) {
        defer { lastSampleAt = now }
        guard let last = lastSampleAt, !isResting(at: now) else { return }
        let dt = now - last
        guard dt > 0, dt < 0.5 else { return }
        let interval = sampleInterval.map { dt < $0 ? dt : 0.8 * $0 + 0.2 * dt } ?? dt
        sampleInterval = interval
        smoother.setHalfLife(FocalSmoother.halfLife(sampleInterval: interval))
    }

    /// A new baseline where the device has come to rest far from the old one.
    private mutating func recaptureIfRestingFar(at now: Double, trace: TraceWriter?) -> Change {
        guard recaptureAfter > 0, tracker.estimator.gate.isAtRest else {
            restingSince = nil
            return .none
        }
        let since = restingSince ?? now
        restingSince = since
        guard now - since >= recaptureAfter, lastAngle >= recaptureAngle else { return .none }
        let degrees = (lastAngle * 180 / Double.pi).rounded()
        let why = "rested \(formatNumber(recaptureAfter)) s at \(Int(degrees)) degrees from the baseline"
        recapture(why, at: now, trace: trace)
        restingSince = nil
        return .log(.notice, "recapturing the baseline: \(why)")
    }

    /// Drops the baseline (the next readings capture a new one), and says so in the trace
    /// so that a replay recaptures at the same point.
    mutating func recapture(_ why: String, at now: Double, trace: TraceWriter?) {
        tracker.recapture()
        baselineAt = nil
        restingSince = nil
        trace?.append(TraceRecord.Recapture(t: now, reason: why))
    }

    /// Gyroscope readings are being fused.
    var isFusing: Bool { tracker.estimator.isFusing }

    /// The point the last frame was drawn around (points).
    var drawnFocal: FocalPoint { smoother.position }

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
