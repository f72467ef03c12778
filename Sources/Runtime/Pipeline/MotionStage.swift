import Logging
import Motion
import Sensors
import Tracing

/// The motion half of the loop: the sample source's events into the `MotionInterpreter`
/// (readings -> attitude -> the mapper's target -> the drawn focal point), and what it
/// made of them into trace records (`reading`, `gyro`, `baseline`, `sample`,
/// `recapture`) and into what the loop says (`Change`). No clock and no descriptors: time
/// is a parameter, so the loop's other concerns (signals, pacing, publishing) never touch
/// this state.
///
/// A class: the interpreter's state is kilobytes (the knock window's and the frame
/// check's inline buffers), and the loop asks it several questions a wakeup; asked of a
/// struct held by the loop each question would copy it.
final class MotionStage {
    private(set) var interpreter: MotionInterpreter

    init(_ motion: MotionConfiguration) {
        interpreter = motion.interpreter
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

    /// Takes one event of the sample source, which came at `now`. The sensor service logs
    /// attach, detach and the gyroscope's coming and going itself (one line each, with
    /// the details); here they only change the state and STATUS=.
    func take(_ event: SensorEvent, at now: Double, trace: TraceWriter?) -> Change {
        if case .waiting(let why) = event { return .waiting(why) }
        guard let input = event.motionInput(at: now) else { return .none }
        // The outcome first: evaluated as an argument of a method of `self`, the
        // interpreter's take would run while a copy of `self` is alive, and its arrays
        // would be copied on write (an allocation per noise window).
        let outcome = interpreter.take(input)
        let change = Self.record(input, outcome, trace: trace)
        switch event {
        case .attached, .detached: return .sensorState
        default: return change
        }
    }

    /// Recaptures the baseline (SIGUSR1, D-Bus `Recalibrate()`), traced so that a replay
    /// recaptures at the same point.
    func recapture(_ why: String, at now: Double, trace: TraceWriter?) {
        let input = MotionInput.recapture(why, at: now)
        let outcome = interpreter.take(input)
        _ = Self.record(input, outcome, trace: trace)
    }

    /// The trace records of what `input` did, and the line it asks for.
    private static func record(_ input: MotionInput, _ out: MotionInterpreter.Outcome, trace: TraceWriter?) -> Change {
        switch input {
        case .acceleration(let a, let t, _):
            if let b = out.baseline { trace?.append(TraceRecord.Baseline(t: t, up: [b.up.x, b.up.y, b.up.z])) }
            if let s = out.sample {
                trace?.append(
                    TraceRecord.Sample(
                        t: s.t, seq: s.seq, accel: [s.accel.x, s.accel.y, s.accel.z],
                        dpitch: s.tilt.dPitchRadians, droll: s.tilt.dRollRadians,
                        focal: [s.focal.x, s.focal.y]))
            } else if let step = out.acceleration, let reading = Self.reading(a, step, at: t) {
                trace?.append(reading)
            }
        case .angularVelocity(let w, let t):
            switch out.gyroscope {
            case .used?, .doubted?, .trustedAgain?:
                trace?.append(TraceRecord.Gyro(t: t, anglvel: [w.x, w.y, w.z]))
            case .weighed(let weight)?:
                trace?.append(TraceRecord.Gyro(t: t, anglvel: [w.x, w.y, w.z], weight: weight))
            case .rejected?, nil:
                break
            }
        default:
            break
        }
        if let r = out.recapture {
            let rest: Bool? = if case .askedAtRest = r { true } else { nil }
            trace?.append(TraceRecord.Recapture(t: input.t, reason: r.reason, rest: rest))
        }
        switch (out.gyroscope, out.recapture) {
        case (.doubted(let why)?, _): return .gyroscopeDisagreed(why)
        case (.trustedAgain(let why)?, _): return .gyroscopeAgrees(why)
        default: return out.notice.map { .log(.notice, $0) } ?? .none
        }
    }

    /// The focal point of an untilted device (the mapper's origin).
    var origin: FocalPoint { interpreter.origin }
    /// Readings used so far.
    var samples: Int { interpreter.samples }
    /// The last sample's tilt (radians), and when the baseline was captured: what the
    /// bus shows (`StatusBus`).
    var lastTilt: (dPitch: Double, dRoll: Double) { interpreter.lastTilt }
    var baselineAt: Double? { interpreter.baselineAt }
    var isFusing: Bool { interpreter.isFusing }
    var drawnFocal: FocalPoint { interpreter.drawing.position }
    func isSettled(at now: Double) -> Bool { interpreter.drawing.isSettled(at: now) }
    func isResting(at now: Double) -> Bool { interpreter.drawing.isResting(at: now) }
    /// The last reading at rest lay near the edge of the rest band (`RestGate.doubted`).
    var restDoubted: Bool { interpreter.restDoubted }
    /// Where a frame at `now` draws the point.
    func point(at now: Double) -> FocalPoint { interpreter.drawing.point(at: now) }
    /// A frame published at `now`.
    func draw(at now: Double) -> FocalPoint { interpreter.draw(at: now) }
    /// A frame at `now` that changed nothing on the picture.
    func unchanged(at now: Double) { interpreter.unchanged(at: now) }

    /// The `reading` record of a reading that gave no sample (baseline collection or
    /// rejected), so the trace holds every reading; nil for non-finite values, which
    /// JSON cannot carry.
    static func reading(_ a: Vector3, _ step: AttitudeStep, at t: Double) -> TraceRecord.Reading? {
        guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { return nil }
        let accel = [a.x, a.y, a.z]
        switch step {
        case .collectingBaseline(_, _, let used):
            return TraceRecord.Reading(
                t: t, accel: accel, use: used ? "baseline" : "rejected",
                reason: used ? nil : "outside [0.5 g, 1.5 g] while collecting the baseline")
        case .rejected(let why):
            return TraceRecord.Reading(t: t, accel: accel, use: "rejected", reason: "\(why)")
        case .tilt:
            return nil
        }
    }
}
