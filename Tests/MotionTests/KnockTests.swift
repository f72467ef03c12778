import TestSupport
import Testing

@testable import Motion

private let g = standardGravity
private let gravity = Vector3(0, 0, g)

/// A knock (two readings 25 m/s^2 off, then its rebound) ends with the gravity low-pass
/// exactly where gravity alone would have left it: it was told that the time passed, not
/// what the knock read.
@Test func aKnockAndItsReboundLeaveTheGravityFilterWhereStillnessWould() {
    var alone = GravityLowPass(tau: 3, startTime: 1)
    var knocked = GravityLowPass(tau: 3, startTime: 1)
    var window = KnockWindow(threshold: 10, longest: 0.06)
    let knock = Vector3(25, 0, -4)
    var held = 0
    for i in 0..<400 {
        let dt = i == 0 ? 0 : 0.01
        let x = (200..<202).contains(i) ? gravity + knock : (202..<204).contains(i) ? gravity - knock : gravity
        _ = alone.update(gravity, dt: dt)
        if !window.feed(x, dt: dt, at: Double(i) * 0.01, into: &knocked) { held += 1 }
    }
    #expect(held == 4)
    #expect((alone.output - knocked.output).length < 1e-9)
}

/// An excursion longer than a knock is motion: once it is over the filter has had every
/// reading, in order, and is where a filter given them as they came is.
@Test func anExcursionLongerThanAKnockReachesTheFilterWhole() {
    var direct = GravityLowPass(tau: 3, startTime: 1)
    var windowed = GravityLowPass(tau: 3, startTime: 1)
    var window = KnockWindow(threshold: 10, longest: 0.06)
    var held = 0
    for i in 0..<500 {
        let dt = i == 0 ? 0 : 0.01
        let x = (200..<230).contains(i) ? gravity + Vector3(12, 3, 0) : gravity
        _ = direct.update(x, dt: dt)
        if !window.feed(x, dt: dt, at: Double(i) * 0.01, into: &windowed) { held += 1 }
        if !window.isHolding { #expect((direct.output - windowed.output).length < 1e-9) }
    }
    #expect((5...7).contains(held))  // about 0.06 s at 100 Hz
    #expect((direct.output - windowed.output).length < 1e-9)
}

/// In fast motion (here 8 m/s^2 swinging at 2 Hz) the specific force leaves gravity all
/// the time: an excursion of a knock's size and length is part of it and is not held.
@Test func inFastMotionAKnockSizedExcursionIsNotHeldBack() {
    var direct = GravityLowPass(tau: 3, startTime: 1)
    var windowed = GravityLowPass(tau: 3, startTime: 1)
    var window = KnockWindow(threshold: 10, longest: 0.06)
    for i in 0..<600 {
        let t = Double(i) * 0.01
        let swing = Vector3(8 * sin(2 * Double.pi * 2 * t), 0, 0)
        let x = gravity + swing + ((400..<403).contains(i) ? Vector3(0, 14, 0) : .zero)
        _ = direct.update(x, dt: i == 0 ? 0 : 0.01)
        #expect(window.feed(x, dt: i == 0 ? 0 : 0.01, at: t, into: &windowed))
    }
    #expect((direct.output - windowed.output).length < 1e-9)
}

/// One wild reading in each window (a knock read as a direction 0.5 rad away) leaves the
/// noise estimate within a fifth of the sensor's noise.
@Test func aWildReadingInEveryWindowDoesNotSetTheNoiseEstimate() {
    var n = NoiseEstimator()
    var noise = Noise(seed: 11)
    let sigma = 0.002
    for i in 0..<1600 {
        let wild = i % 100 == 50 ? 0.5 : 0
        n.add(Vector3(wild + noise.gaussian() * sigma, noise.gaussian() * sigma, 1).normalized!, at: Double(i) * 0.01)
    }
    let expected = sigma * 2.0.squareRoot()
    #expect(abs(n.angle - expected) < 0.2 * expected)
}

/// The first still second learns a 0.5 deg/s offset to within 0.03 deg/s (the mean of
/// 100 rates with 0.1 deg/s of noise is 0.017 deg/s off, as a vector), so a device picked
/// up after it does not drift. (Weighed as a step in motion is weighed, the rest would
/// have learnt 88 % of it, 0.06 deg/s off.)
@Test func theOffsetIsLearntInTheFirstStillSecond() {
    let offset = Vector3(0.3, -0.25, 0.31) * degree
    var noise = Noise(seed: 5)
    var fusion = GyroFusion(up: Vector3(0, 0, 1), at: 0)
    for i in 0...100 {
        let t = Double(i) * 0.01
        let w = offset + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (0.1 * degree)
        fusion.gyroscope(w, at: t)
        let a = Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.02 - gravity
        _ = fusion.accelerometer(a, at: t)
    }
    #expect(fusion.offsetKnown)
    #expect((fusion.offset - offset).length < 0.03 * degree)
}
