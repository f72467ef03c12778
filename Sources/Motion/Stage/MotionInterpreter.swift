/// Readings -> attitude -> the mapper's target -> the drawn focal point: the one reader
/// of `MotionInput`, which the daemon and `shimmerd monitor` run (`shimmerd replay` runs
/// its drawn half, `FocalDrawing`, on a trace's recorded targets).
/// Pure: time is a parameter, and each input returns what became of it (`Outcome`) for
/// the caller to log, trace or print.
///
/// - What is drawn comes from `FocalDrawing`, which a replay of a trace runs alone.
/// - A device that rests `recaptureAfter` seconds farther than `recaptureAngle` from its
///   baseline (a convertible folded into tablet mode, a tablet laid on a table) gets a
///   new baseline there.
/// - A baseline is taken at once, except after a fold (the tablet-mode switch), when it
///   waits for the device to rest (`BaselineCapture`); while it is awaited the card eases
///   home.
package struct MotionInterpreter: Sendable {
    /// What one input did. Every field is empty unless that happened.
    package struct Outcome: Sendable {
        /// An acceleration: what the estimator made of it (a tilt, a reading taken for
        /// or refused by the baseline, a rejected reading).
        package var acceleration: AttitudeStep?
        /// The baseline this acceleration completed.
        package var baseline: TiltFrame?
        /// Set when that baseline is not from a device at rest: why (a line for the log).
        package var baselineNotAtRest: String?
        /// The sample this acceleration gave (its tilt and the mapper's target).
        package var sample: MotionSample?
        /// An angular velocity: what became of it.
        package var gyroscope: GyroStep?
        /// The baseline was dropped: the next readings capture a new one.
        package var recapture: Recapture?

        package init() {}

        /// The line for the log this input asks for, as the daemon and `monitor` both say
        /// it: a baseline recaptured by itself, a baseline not from a device at rest.
        package var notice: String? {
            if case .restedFar(let why)? = recapture { return "recapturing the baseline: \(why)" }
            return baselineNotAtRest.map { "baseline: \($0)" }
        }
    }

    /// Why a baseline was dropped.
    package enum Recapture: Sendable, Equatable {
        /// `MotionInput.recapture`: why.
        case asked(String)
        /// `MotionInput.recaptureAtRest`: why; the baseline waits for the device to rest.
        case askedAtRest(String)
        /// The sensor attached again after it went away.
        case sensorBack
        /// The device rested far from its baseline: how long, how far.
        case restedFar(String)

        package var reason: String {
            switch self {
            case .asked(let why), .askedAtRest(let why), .restedFar(let why): why
            case .sensorBack: "the accelerometer attached again"
            }
        }
    }

    /// Readings -> attitude (the baseline, the filter or the fusion, the rest gate).
    private var estimator: AttitudeEstimator
    /// Tilt -> the focal point the drawing moves toward.
    private let mapper: FocalMapper
    /// What is drawn (its queries are read here, not through copies of the whole state).
    package private(set) var drawing: FocalDrawing
    /// The angle of the last tilt from the baseline (the rest gate says since when the
    /// device has rested).
    private var lastAngle = 0.0
    private let recaptureAfter: Double
    private let recaptureAngle: Double
    /// The sensor went away; its return captures a new baseline.
    private var detached = false

    /// The focal point of an untilted device (the mapper's origin).
    package let origin: FocalPoint
    package private(set) var samples = 0
    /// The last sample's tilt (radians) and when the baseline was captured.
    package private(set) var lastTilt = (dPitch: 0.0, dRoll: 0.0)
    package private(set) var baselineAt: Double?

    /// - Parameter recaptureAfter: seconds (0: never); `recaptureAngle`: radians.
    /// - Parameter frameInterval: seconds between frames at most (`1 / Sink.fps`).
    package init(
        attitude: AttitudeConfiguration, mapper: FocalMapper, recaptureAfter: Double = 0,
        recaptureAngle: Double = 0, frameInterval: Double = 1.0 / 60
    ) {
        estimator = AttitudeEstimator(attitude)
        self.mapper = mapper
        origin = mapper.origin
        drawing = FocalDrawing(at: mapper.origin, frameInterval: frameInterval)
        self.recaptureAfter = recaptureAfter
        self.recaptureAngle = recaptureAngle
    }

    /// Takes one input.
    package mutating func take(_ input: MotionInput) -> Outcome {
        var out = Outcome()
        switch input {
        case .acceleration(let a, let t, _):
            take(acceleration: a, at: t, into: &out)
        case .angularVelocity(let w, let t):
            out.gyroscope = estimator.update(angularVelocity: w, at: t)
        case .attached(let t):
            if detached {
                recapture(at: t)
                out.recapture = .sensorBack
            }
            detached = false
            estimator.forgetGyroscope()  // a new sensor: its gyroscope is judged afresh
        case .detached(let t):
            detached = true
            drawing.retarget(origin, from: t)
        case .gyroscopeGone:
            estimator.gyroscopeGone()
        case .recapture(let why, let t):
            recapture(at: t)
            out.recapture = .asked(why)
        case .recaptureAtRest(let why, let t):
            recapture(at: t, untilRest: true)
            out.recapture = .askedAtRest(why)
        }
        return out
    }

    /// Drops the baseline: the readings from `t` on capture a new one, at once or once the
    /// device rests (`untilRest`, `BaselineCapture`); meanwhile the card eases home, where
    /// the new baseline will put it.
    private mutating func recapture(at t: Double, untilRest: Bool = false) {
        estimator.recapture(at: t, untilRest: untilRest)
        baselineAt = nil
        drawing.retarget(origin, from: t)
    }

    private mutating func take(acceleration a: Vector3, at t: Double, into out: inout Outcome) {
        let step = estimator.update(acceleration: a, at: t)
        out.acceleration = step
        guard case .tilt(let tilt, let baseline) = step else {
            drawing.reading(at: t, target: nil)
            return
        }
        let s = MotionSample(t: t, seq: samples, accel: a, tilt: tilt, focal: mapper.focalPoint(for: tilt))
        drawing.reading(at: t, target: s.focal)
        if let b = baseline {
            baselineAt = t
            out.baseline = b
            if !estimator.baselineRested {
                out.baselineNotAtRest =
                    "the device did not come to rest within "
                    + "\(BaselineCapture.restLimit.plainText) s; "
                    + "the baseline is the mean of its last \(BaselineCapture.settleTime.plainText) s of readings"
            }
        }
        out.sample = s
        samples += 1
        lastTilt = (s.tilt.dPitchRadians, s.tilt.dRollRadians)
        lastAngle = (s.tilt.dPitchRadians * s.tilt.dPitchRadians + s.tilt.dRollRadians * s.tilt.dRollRadians)
            .squareRoot()
        if let why = recaptureIfRestingFar(at: t) { out.recapture = .restedFar(why) }
    }

    /// A new baseline where the device has come to rest far from the old one: why.
    private mutating func recaptureIfRestingFar(at t: Double) -> String? {
        guard recaptureAfter > 0, let since = estimator.gate.restingSince else { return nil }
        guard t - since >= recaptureAfter, lastAngle >= recaptureAngle else { return nil }
        let degrees = (lastAngle * 180 / Double.pi).rounded()
        recapture(at: t)
        return "rested \(recaptureAfter.plainText) s at \(Int(degrees)) degrees from the baseline"
    }

    /// Where a frame at `t` draws the point (`FocalDrawing.point(at:)`).
    package func point(at t: Double) -> FocalPoint { drawing.point(at: t) }

    /// A frame published at `t`: the drawn point's clock moves on to it.
    @discardableResult
    package mutating func draw(at t: Double) -> FocalPoint { drawing.draw(at: t) }

    /// A frame at `t` that changed nothing on the picture.
    package mutating func unchanged(at t: Double) { drawing.unchanged(at: t) }

    /// Gyroscope readings are being fused.
    package var isFusing: Bool { estimator.isFusing }

    /// The point the picture shows (points).
    package var drawnFocal: FocalPoint { drawing.position }

    /// The drawn point has reached the target by `t` and the picture shows it: no frame
    /// is needed.
    package func isSettled(at t: Double) -> Bool { drawing.isSettled(at: t) }

    /// The device lies still and the picture has settled: the source may read slowly.
    package func isResting(at t: Double) -> Bool { drawing.isResting(at: t) }

    /// At rest, the last reading lay near the edge of the rest band (`RestGate.doubted`).
    package var restDoubted: Bool { estimator.gate.doubted }

}
