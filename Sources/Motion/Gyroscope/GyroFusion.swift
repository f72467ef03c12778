/// The up direction from a gyroscope and an accelerometer together (docs/TILT.md, "With a
/// gyroscope"), as VQF does it (D. Laidig and T. Seel, "VQF: Highly accurate IMU orientation estimation
/// with bias estimation and magnetic disturbance rejection", Information Fusion 91, 2023).
///
/// - The gyroscope alone turns a frame `I` (`gyro`: device to `I`): between two readings
///   it is rotated exactly by the newer rate minus the estimated offset. `I` is fixed in
///   the world but for the offset's error, a slow drift.
/// - The accelerometer's specific force `-a`, seen in `I`, is gravity plus the hand's
///   linear acceleration. The hand's part is the derivative of a velocity that stays
///   bounded, so a low-pass over seconds (`tau`, a second-order Butterworth) removes it,
///   while gravity, fixed in `I`, passes unchanged however the device turns. The filtered
///   vector is the up direction in `I`; seen from the device it is `u`. A turn is followed
///   at once (the gyroscope), a push, a tap, walking or a shaking hand hardly moves it:
///   nothing is thrown away as "disagreeing", so nothing can be fooled into it.
/// - `align` turns `I` so that the filtered up is the z axis (`V`, a vertical frame; the
///   heading is not observable without a magnetometer and is not needed).
/// - The offset is estimated by a Kalman filter: at rest (the rate and the acceleration
///   steady for `restTime`) from the rate itself; in motion from the filtered up's own
///   slow turning in `I`, which is the offset's error seen through the low-passed rotation
///   (the horizontal components; VQF's motion bias estimation). It is kept learnt in slow
///   motion, and a steady turn cannot be mistaken for an offset.
/// Pure; time is a parameter, seconds; rates rad/s, accelerations m/s^2, device frame.
package struct GyroFusion: Sendable {
    /// Seconds: the accelerometer's low-pass in `I` (VQF's `tauAcc`).
    package static let tau = 3.0
    /// Seconds: the low-pass of gravity starts from the mean of the readings of its first
    /// second, not of its first `tau` as VQF's: a hand that moves the device in its first
    /// seconds would move the mean of all of them, where the running filter hardly moves.
    /// (Much shorter, and the filter's own settling from a noisy start is taken for an
    /// offset and walks a device lying still out of its rest band.)
    package static let gravityStartTime = 1.0
    /// Rest detection: the rate and the acceleration low-passed over `restFilterTau`, and
    /// their departures from that at most `restRateDeviation` (rad/s) and
    /// `restAccelerationDeviation` (m/s^2) for `restTime` seconds. VQF waits 1.5 s; half a
    /// second learns the offset in a short pause (a device picked up after 1 s).
    package static let restFilterTau = 0.5
    package static let restRateDeviation = 2.0 * degree
    package static let restAccelerationDeviation = 0.5
    package static let restTime = 0.5
    /// rad/s: the largest offset believed (zero-rate offsets are 0.5-3 deg/s), and the
    /// largest correction of it in one step.
    package static let offsetLimit = 5.0 * degree
    /// rad/s: the offset's uncertainty at start, the uncertainty added per
    /// `offsetForgettingTime` seconds, the uncertainty of one measurement in motion and at
    /// rest, and how much less the vertical component is observed in motion (VQF's
    /// defaults, but for the measurement at rest: it is the mean of the quiet stretch, an
    /// average already, and is taken at `offsetSigmaRest` itself. VQF weighs each rest step
    /// as it weighs a step in motion, and after a pause of half a second has learnt 88 % of
    /// the offset: on a sweep that starts after one still second, the remaining 0.06 deg/s
    /// held the drawn point 2 pt off for the whole run.)
    package static let offsetSigmaStart = 0.5 * degree
    package static let offsetForgettingTime = 100.0
    package static let offsetSigmaMotion = 0.1 * degree
    package static let offsetSigmaRest = 0.03 * degree
    package static let verticalForgetting = 1e-4
    /// A knock (`KnockWindow`): the specific force more than `knockThreshold` (m/s^2, about
    /// 1 g) from gravity for at most `knockTime` seconds, its rebound included.
    package static let knockThreshold = 10.0
    package static let knockTime = 0.06
    /// Seconds: longer gaps between gyroscope readings are not integrated.
    package static let gap = 0.1

    private static let degree = Double.pi / 180
    private static let z = Vector3(0, 0, 1)

    /// The up direction, unit, device frame.
    package private(set) var up: Vector3
    /// rad/s, device frame: the estimated zero-rate offset.
    package private(set) var offset = Vector3.zero
    /// True once the offset has been measured at rest.
    package private(set) var offsetKnown = false
    /// True while the device is at rest (see `restTime`).
    package private(set) var atRest = false
    /// The time of the newest gyroscope reading.
    package private(set) var lastGyro: Double?

    private var gyro: Rotation
    private var align = Rotation.identity
    private var gravity = GravityLowPass(tau: GyroFusion.tau, startTime: GyroFusion.gravityStartTime)
    private var rotationRows = (
        GravityLowPass(tau: GyroFusion.tau), GravityLowPass(tau: GyroFusion.tau),
        GravityLowPass(tau: GyroFusion.tau)
    )
    private var rotatedOffset = GravityLowPass(tau: GyroFusion.tau)
    private var covariance = Matrix3.diagonal(
        Vector3(1, 1, 1) * (GyroFusion.offsetSigmaStart * GyroFusion.offsetSigmaStart))
    private var restRate = GravityLowPass(tau: GyroFusion.restFilterTau)
    private var restAcceleration = GravityLowPass(tau: GyroFusion.restFilterTau)
    private var restSince: Double?
    /// The rates since the device became quiet: their mean is the offset at rest (a mean
    /// rather than the low-pass, which still carries the last turn for a while).
    private var quietRates = (sum: Vector3.zero, count: 0)
    private var lastRate = Vector3.zero
    private var propagatedTo: Double
    private var lastAccel: Double?
    private var knocks = KnockWindow(threshold: GyroFusion.knockThreshold, longest: GyroFusion.knockTime)
    /// Seconds since the offset was last estimated (readings held back as a knock skip it).
    private var heldDt = 0.0

    /// Starts from the accelerometer's direction `up` (unit) at `t`.
    package init(up: Vector3, at t: Double) {
        self.up = up
        gyro = Rotation(from: up, to: Self.z)
        propagatedTo = t
    }

    /// Starts again from `up` (a new baseline), keeping the offset and what is known of it.
    package mutating func restart(up: Vector3, at t: Double) {
        let kept = (offset, offsetKnown, covariance)
        self = GyroFusion(up: up, at: t)
        (offset, offsetKnown, covariance) = kept
    }

    /// The fraction of the accelerometer's white noise amplitude that reaches `u`: the
    /// low-pass's equivalent noise bandwidth (1.11 fc for a second-order Butterworth)
    /// over the readings' Nyquist band.
    package var noisePasses: Double {
        let ts = gravity.interval > 0 ? gravity.interval : 0.01
        let fc = 2.0.squareRoot() / (2 * Double.pi * Self.tau)
        return min(1, (2 * 1.11 * fc * ts).squareRoot())
    }

    /// A gyroscope reading, rad/s in the device frame, at `t`.
    package mutating func gyroscope(_ w: Vector3, at t: Double) {
        if let last = lastGyro, t - last < Self.gap {
            let rate = restRate.update(w, dt: t - last)
            if (w - rate).length >= Self.restRateDeviation
                || max(abs(rate.x), abs(rate.y), abs(rate.z)) > Self.offsetLimit
            {
                restSince = nil
                quietRates = (.zero, 0)
            } else {
                quietRates = (quietRates.sum + w, quietRates.count + 1)
            }
            propagate(to: t, rate: w - offset)
        } else {
            _ = restRate.update(w, dt: 0)
            propagatedTo = max(propagatedTo, t)  // a gap: no rate is known for it
        }
        lastGyro = t
        lastRate = w
    }

    /// An accelerometer reading (m/s^2, device frame) at `t`; returns the fused `u`.
    package mutating func accelerometer(_ a: Vector3, at t: Double) -> Vector3 {
        let f = -a  // specific force: up at rest
        guard f.normalized != nil else { return up }
        if let last = lastGyro, t - last < Self.gap { propagate(to: t, rate: lastRate - offset) }
        propagatedTo = max(propagatedTo, t)
        let dt = lastAccel.map { min(max(t - $0, 0), 1) } ?? 0
        lastAccel = t
        detectRest(f, dt: dt, at: t)

        heldDt += dt
        guard knocks.feed(gyro.apply(f), dt: dt, at: t, into: &gravity) else {
            up = gyro.applyInverse(align.applyInverse(Self.z))
            return up
        }
        let filtered = gravity.output
        guard let upV = align.apply(filtered).normalized else { return up }
        // Turn `V` so that the filtered up is its z axis again; the turn, per second, is
        // how fast the filtered up drifts in `I`.
        align = Rotation(from: upV, to: Self.z) * align
        align.normalize()
        up = gyro.applyInverse(align.applyInverse(Self.z))
        estimateOffset(drift: Self.z.cross(upV), dt: heldDt)
        heldDt = 0
        return up
    }

    /// `v` rotated by the rotation vector `r` (axis * angle, radians), exactly.
    package static func rotate(_ v: Vector3, by r: Vector3) -> Vector3 { Rotation(rotationVector: r).apply(v) }

    private mutating func propagate(to t: Double, rate w: Vector3) {
        let dt = t - propagatedTo
        guard dt > 0 else { return }
        gyro = gyro * Rotation(rotationVector: w * dt)
        gyro.normalize()
        propagatedTo = t
    }

    private mutating func detectRest(_ f: Vector3, dt: Double, at t: Double) {
        let mean = restAcceleration.update(f, dt: dt)
        if (f - mean).length >= Self.restAccelerationDeviation || lastGyro == nil {
            restSince = nil
            quietRates = (.zero, 0)
            atRest = false
            return
        }
        let since = restSince ?? t
        restSince = since
        atRest = t - since >= Self.restTime && quietRates.count > 0
    }

    /// One Kalman update of the offset (VQF's bias estimation): at rest the mean rate is
    /// measured directly; in motion, `drift` (radians this step, vertical frame) is the
    /// horizontal part of `R (b - offset)` low-passed, `R` the rotation from the device to
    /// the vertical frame.
    private mutating func estimateOffset(drift: Vector3, dt: Double) {
        guard dt > 0 else { return }
        let r = (align * gyro).matrix
        let rows = Matrix3(
            rows: rotationRows.0.update(r.r0, dt: dt), rotationRows.1.update(r.r1, dt: dt),
            rotationRows.2.update(r.r2, dt: dt))
        let seenOffset = rotatedOffset.update(r * offset, dt: dt)

        let sigma2 = { (s: Double) in s * s }
        let start = sigma2(Self.offsetSigmaStart)
        let added = sigma2(0.1 * Self.degree) * dt / Self.offsetForgettingTime
        var p = covariance
        if p.r0.x < start { p.r0.x += added }
        if p.r1.y < start { p.r1.y += added }
        if p.r2.z < start { p.r2.z += added }

        let h: Matrix3, e: Vector3, w: Vector3
        if atRest {
            h = .identity
            e = quietRates.sum / Double(quietRates.count) - offset
            let rest = sigma2(Self.offsetSigmaRest)
            w = Vector3(1, 1, 1) * rest
            offsetKnown = true
        } else {
            h = rows
            let rate = drift / dt
            e = Vector3(rate.x + seenOffset.x, rate.y + seenOffset.y, 0) - rows * offset
            let motion = sigma2(Self.offsetSigmaMotion)
            let wm = motion * motion / added + motion
            w = Vector3(wm, wm, wm / Self.verticalForgetting)
        }
        let limit = Self.offsetLimit
        let clipped = Vector3(min(max(e.x, -limit), limit), min(max(e.y, -limit), limit), min(max(e.z, -limit), limit))
        guard let s = (Matrix3.diagonal(w) + h * p * h.transposed).inverse else {
            covariance = p
            return
        }
        let k = p * h.transposed * s
        let next = offset + k * clipped
        offset = Vector3(
            min(max(next.x, -limit), limit), min(max(next.y, -limit), limit), min(max(next.z, -limit), limit))
        covariance = p - k * h * p
    }
}
