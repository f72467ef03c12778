/// The up direction from a gyroscope and an accelerometer together (attitude.md section 9).
///
/// - Propagation: a direction fixed in the world, seen from the device, turns as
///   `du/dt = -w x u`. Between two gyroscope readings `u` is rotated exactly (Rodrigues)
///   by the mean of their rates minus the estimated offset, so a perfect gyroscope keeps
///   `u` exact whatever the step.
/// - Correction: each accelerometer reading pulls `u` toward its `-a/|a|` at
///   `correctionRate` per second (a complementary filter: the gyroscope's short-term
///   precision, the accelerometer's long-term truth). The pull weakens while `|a|`
///   departs from g (a hand accelerating the device) and while the accelerometer's
///   direction disagrees with the gyroscope's by more than noise (hand motion looks like
///   degrees of tilt to an accelerometer, never to a gyroscope).
/// - Offset: while the device is still (the gyroscope's rate steady over `quietWindow`
///   and the accelerometer's direction within `quietTurn` of where it was), the mean
///   rate is the zero-rate offset (a steady turn keeps the rate steady too, but moves
///   the accelerometer's direction); in between, an integral of the correction keeps the
///   observable part of it estimated (Mahony's complementary filter).
/// - Self-check: while the device turns, the change of `u` the gyroscope predicts over a
///   window must agree with the change the accelerometer sees; a gyroscope that
///   disagrees `disagreementsToFail` windows in a row without one agreeing (a wrong
///   matrix) is given up (`failure` says why) and the caller goes on with the
///   accelerometer alone.
/// Pure; time is a parameter, seconds.
package struct GyroFusion: Sendable {
    /// 1/s: the accelerometer's pull at full trust.
    package static let correctionRate = 1.0
    /// 1/s^2: the integral gain on the offset. With `correctionRate` 1/s the loop is
    /// critically damped (Kp^2 = 4 Ki): an offset the still windows missed (a device held
    /// in the hand from the start) is learnt within a few seconds.
    package static let offsetGain = 0.25
    /// Radians: the disagreement between the accelerometer's direction and `u` at which
    /// the pull is halved.
    package static let disagreementScale = 0.05
    /// g: the departure of |a| from g at which the accelerometer is not trusted at all.
    package static let magnitudeTolerance = 0.15
    /// Seconds of steady rate that count as the gyroscope being quiet.
    package static let quietWindow = 0.25
    /// rad/s: largest spread of the rate inside a quiet window, and largest difference of
    /// its mean from the current offset (a zero-rate offset is a few degrees a second).
    package static let quietSpread = 0.02
    package static let quietOffsetChange = 0.06
    /// How much of a quiet window's mean goes into the offset after the first (about 10
    /// windows, 2.5 s, of memory: each window's mean carries the rate noise / sqrt(25)).
    package static let offsetBlend = 0.1
    /// Radians: how far the accelerometer's direction may move in a quiet window (a turn
    /// of 2 deg/s moves it 0.009 rad in 0.25 s; 2 LSB of noise about 0.003).
    package static let quietTurn = 0.01
    /// Self-check: window length (s), the least change of `u` (rad) the accelerometer must
    /// see in it for a verdict, and the verdicts in a row that give the gyroscope up.
    package static let checkWindow = 0.5
    package static let checkMinimumTurn = 0.12
    package static let disagreementsToFail = 3

    package private(set) var up: Vector3
    /// rad/s, device frame: the estimated zero-rate offset.
    package private(set) var offset = Vector3.zero
    package private(set) var offsetKnown = false
    /// Why the gyroscope was given up; nil while it is used.
    package private(set) var failure: String?
    /// The time of the newest reading of each sensor.
    package private(set) var lastGyro: Double?
    private var lastAccel: Double?
    private var lastRate = Vector3.zero
    private var propagatedTo: Double
    /// The accelerometer's pull applied by the last correction, as a fraction (0...1): the
    /// caller's noise band scales with it.
    package private(set) var lastPull = 0.0

    private var quiet = (start: 0.0, count: 0, sum: Vector3.zero, min: Vector3.zero, max: Vector3.zero)
    /// The accelerometer's direction when the quiet window started; nil until one came.
    private var quietUp: Vector3?
    private var check = (start: 0.0, accelStart: Vector3.zero, predicted: Vector3.zero, active: false)
    private var disagreements = 0

    /// Starts from the accelerometer's direction `up` (unit) at `t`.
    package init(up: Vector3, at t: Double) {
        self.up = up
        propagatedTo = t
    }

    /// Starts again from `up` (a new baseline), keeping the offset.
    package mutating func restart(up: Vector3, at t: Double) {
        self.up = up
        propagatedTo = t
        lastAccel = nil
        check.active = false
    }

    /// A gyroscope reading, rad/s in the device frame, at `t`.
    package mutating func gyroscope(_ w: Vector3, at t: Double) {
        guard failure == nil else { return }
        if let last = lastGyro, t - last < 0.1 {
            propagate(to: t, rate: (lastRate + w) * 0.5 - offset)
        } else {
            propagatedTo = max(propagatedTo, t)   // a gap: no rate is known for it
        }
        lastGyro = t
        lastRate = w
        learnOffset(w, at: t)
    }

    /// An accelerometer reading (m/s^2, device frame) at `t`; returns the fused `u`.
    package mutating func accelerometer(_ a: Vector3, at t: Double) -> Vector3 {
        guard let measured = (-a).normalized else { return up }
        if let last = lastGyro, t - last < 0.1 {
            propagate(to: t, rate: lastRate - offset)
        }
        propagatedTo = max(propagatedTo, t)
        // The correction acts over the time since the previous accelerometer reading.
        let dt = lastAccel.map { min(max(t - $0, 0), 0.1) } ?? 0
        lastAccel = t
        selfCheck(measured, at: t)
        if let q = quietUp, (measured - q).length > Self.quietTurn {
            quiet.count = 0     // it turns: not a window to learn the offset from
        }
        if quiet.count == 0 || quietUp == nil { quietUp = measured }

        let e = up.cross(measured)                       // rotates up toward measured
        let g = AttitudeConfiguration.standardGravity
        let magnitudeTrust = max(0, 1 - abs(a.length / g - 1) / Self.magnitudeTolerance)
        let d = e.length / Self.disagreementScale
        let agreementTrust = 1 / (1 + d * d)
        let k = min(1, Self.correctionRate * dt * magnitudeTrust * agreementTrust)
        lastPull = k
        if let next = (up + (measured - up) * k).normalized { up = next }
        if magnitudeTrust > 0 {
            offset = offset + e * (Self.offsetGain * dt * magnitudeTrust)
        }
        return up
    }

    private mutating func propagate(to t: Double, rate w: Vector3) {
        let dt = t - propagatedTo
        guard dt > 0 else { return }
        up = Self.rotate(up, by: w * -dt)
        propagatedTo = t
        if check.active { check.predicted = Self.rotate(check.predicted, by: w * -dt) }
    }

    /// `v` rotated by the rotation vector `r` (axis * angle, radians), exactly.
    package static func rotate(_ v: Vector3, by r: Vector3) -> Vector3 {
        let angle = r.length
        guard angle > 0 else { return v }
        let k = r / angle
        let c = cos(angle), s = sin(angle)
        return v * c + k.cross(v) * s + k * (k.dot(v) * (1 - c))
    }

    private mutating func learnOffset(_ w: Vector3, at t: Double) {
        if quiet.count == 0 {
            quiet = (t, 1, w, w, w)
            quietUp = nil
            return
        }
        quiet.count += 1
        quiet.sum = quiet.sum + w
        quiet.min = Vector3(min(quiet.min.x, w.x), min(quiet.min.y, w.y), min(quiet.min.z, w.z))
        quiet.max = Vector3(max(quiet.max.x, w.x), max(quiet.max.y, w.y), max(quiet.max.z, w.z))
        let spread = quiet.max - quiet.min
        if max(spread.x, spread.y, spread.z) > Self.quietSpread {
            quiet = (t, 1, w, w, w)
            quietUp = nil
            return
        }
        guard t - quiet.start >= Self.quietWindow, quiet.count >= 4, quietUp != nil else { return }
        let mean = quiet.sum / Double(quiet.count)
        if !offsetKnown {
            offset = mean
            offsetKnown = true
        } else if (mean - offset).length <= Self.quietOffsetChange {
            offset = offset + (mean - offset) * Self.offsetBlend
        }
        quiet.count = 0
        quietUp = nil
    }

    private mutating func selfCheck(_ measured: Vector3, at t: Double) {
        guard check.active else {
            check = (t, measured, measured, true)
            return
        }
        guard t - check.start >= Self.checkWindow else { return }
        let seen = measured - check.accelStart
        let predicted = check.predicted - check.accelStart
        check = (t, measured, measured, true)
        guard seen.length >= Self.checkMinimumTurn else { return }
        if (predicted - seen).length <= 0.5 * seen.length {
            disagreements = 0
            return
        }
        disagreements += 1
        if disagreements >= Self.disagreementsToFail {
            failure = "over \(Self.checkWindow) s the accelerometer's up direction turned by "
                + "\(Self.describe(seen)) but the gyroscope predicted \(Self.describe(predicted))"
        }
    }

    private static func describe(_ v: Vector3) -> String {
        func f(_ x: Double) -> String {
            let r = (x * 1000).rounded() / 1000
            return "\(r)"
        }
        return "(\(f(v.x)), \(f(v.y)), \(f(v.z)))"
    }
}
