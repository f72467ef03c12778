/// accelerometer sample -> attitude -> focal point, with the sample counter: the part of
/// the pipeline that `shimmerd monitor` and the daemon share. Pure.
package struct MotionTracker: Sendable {
    package private(set) var estimator: AttitudeEstimator
    package let mapper: FocalMapper
    private var seq = 0

    package init(attitude: AttitudeConfiguration, mapper: FocalMapper) {
        estimator = AttitudeEstimator(attitude)
        self.mapper = mapper
    }

    /// A new baseline from readings at `t` or later: at once, or once the device rests
    /// (`untilRest`, after a fold).
    package mutating func recapture(at t: Double = -.infinity, untilRest: Bool = false) {
        estimator.recapture(at: t, untilRest: untilRest)
    }

    /// A new sensor: the gyroscope self-check's verdict and the fusion's offset start over.
    package mutating func forgetGyroscope() { estimator.forgetGyroscope() }

    /// The gyroscope went away: the accelerometer alone from the next reading.
    package mutating func gyroscopeGone() { estimator.gyroscopeGone() }

    /// A gyroscope reading (rad/s, device frame) at `t` (docs/TILT.md, "With a gyroscope").
    package mutating func process(angularVelocity w: Vector3, at t: Double) -> GyroStep {
        estimator.update(angularVelocity: w, at: t)
    }

    /// The sample (nil while the baseline is collected or when rejected) and the
    /// baseline captured by this call, if any.
    package mutating func process(acceleration a: Vector3, at t: Double)
        -> (sample: MotionSample?, baseline: TiltFrame?, step: AttitudeStep)
    {
        let step = estimator.update(acceleration: a, at: t)
        guard case .tilt(let tilt, let baseline) = step else { return (nil, nil, step) }
        let s = MotionSample(t: t, seq: seq, accel: a, tilt: tilt, focal: mapper.focalPoint(for: tilt))
        seq += 1
        return (s, baseline, step)
    }
}
