import Testing
@testable import Motion

private let g = 9.80665
private let degree = Double.pi / 180

/// A deterministic noise source: a 64-bit LCG, Gaussian by the sum of 12 uniforms.
struct Noise {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func uniform() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
    mutating func gaussian() -> Double {
        var s = 0.0
        for _ in 0..<12 { s += uniform() }
        return s - 6
    }
}

/// A device turning at a constant rate `w` (rad/s, device frame) from the up direction
/// `up0`: the up direction at t is `up0` rotated by `-w t` (du/dt = -w x u).
private func up(_ up0: Vector3, turning w: Vector3, at t: Double) -> Vector3 {
    GyroFusion.rotate(up0, by: w * -t)
}

private func tilt(_ step: AttitudeStep) -> Tilt? {
    if case .tilt(let t, _) = step { return t }
    return nil
}

private func fusedConfiguration(_ filter: AttitudeFilter) -> AttitudeConfiguration {
    AttitudeConfiguration(baselineSamples: 10, filter: filter)
}

/// attitude.md section 9: with a perfect gyroscope and a perfect accelerometer and no
/// linear acceleration, fused dPitch and dRoll equal section 6's within 1e-3 rad.
@Test(arguments: [AttitudeFilter.none, .oneEuro(.defaults)],
      [Vector3(0.4, -0.3, 0.1), Vector3(0, 0, 1.2), Vector3(-0.8, 0.2, 0.5)])
func perfectSensorsFuseToTheAccelerometersTilt(_ filter: AttitudeFilter, _ w: Vector3) throws {
    var fused = AttitudeEstimator(fusedConfiguration(filter))
    let up0 = Vector3(0, -0.8, -0.6)   // a laptop's screen leaned back
    let dt = 0.01
    var reference: TiltFrame?
    var compared = 0
    for i in 0..<300 {
        let t = Double(i) * dt
        let u = up(up0, turning: w, at: t)
        #expect(fused.update(angularVelocity: w, at: t) == .used)
        let step = fused.update(acceleration: u * -g, at: t)
        if case .tilt(_, let b?) = step { reference = b }
        guard let frame = reference, let got = tilt(step) else { continue }
        let expected = frame.tilt(up: u)
        #expect(abs(got.dPitchRadians - expected.dPitchRadians) <= 1e-3)
        #expect(abs(got.dRollRadians - expected.dRollRadians) <= 1e-3)
        compared += 1
    }
    #expect(compared > 250)
    #expect(fused.isFusing)
}

@Test func aGyroscopeOffsetIsLearnedWhileStillAndCausesNoDrift() {
    var e = AttitudeEstimator(.defaults)
    var noise = Noise(seed: 7)
    let offset = Vector3(0.3, -0.25, 0.31) * degree / 0.5 * 0.5   // about 0.5 deg/s
    var last: Tilt?
    var moves = 0
    for i in 0..<3000 {
        let t = Double(i) * 0.01
        let w = offset + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (0.1 * degree)
        _ = e.update(angularVelocity: w, at: t)
        let a = Vector3(noise.gaussian() * 0.02, noise.gaussian() * 0.02, -g + noise.gaussian() * 0.02)
        guard let now = tilt(e.update(acceleration: a, at: t)) else { continue }
        if t >= 4, let l = last, l != now { moves += 1 }
        if t >= 4 {
            // No drift: the device lies still, the tilt stays near zero.
            #expect(abs(now.dPitchRadians) < 0.1 * degree && abs(now.dRollRadians) < 0.1 * degree)
        }
        last = now
    }
    #expect(moves == 0)
    let learned = e.fusion?.offset ?? .zero
    #expect((learned - offset).length < 0.05 * degree)
}

@Test func aHalfDegreeTiltAfterRestIsShown() throws {
    for withGyro in [false, true] {
        var e = AttitudeEstimator(.defaults)
        var noise = Noise(seed: 11)
        let tilted = 0.5 * degree
        var before: Tilt?
        var after: Tilt?
        for i in 0..<800 {
            let t = Double(i) * 0.01
            let angle = t >= 6 ? tilted : 0
            if withGyro {
                let rate = (t >= 6 && t < 6.01) ? tilted / 0.01 : 0
                _ = e.update(angularVelocity: Vector3(rate, 0, 0) + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (0.1 * degree), at: t)
            }
            let u = GyroFusion.rotate(Vector3(0, 0, 1), by: Vector3(-angle, 0, 0))
            let a = u * -g + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.02
            guard let now = tilt(e.update(acceleration: a, at: t)) else { continue }
            if t < 6 { before = now } else { after = now }
        }
        let b = try #require(before), a = try #require(after)
        #expect(e.gate.isAtRest)
        // The whole half degree is shown (pitch: the top edge came toward the viewer).
        #expect(abs(abs(a.dPitchRadians - b.dPitchRadians) - tilted) < 0.1 * degree, "gyroscope: \(withGyro)")
    }
}

@Test func aStillNoisySensorSettlesToOneUnchangingTilt() {
    for lsb in [1.0, 2.0, 3.0] {
        var e = AttitudeEstimator(.defaults)
        var noise = Noise(seed: UInt64(lsb * 100))
        let quantum = 0.009582   // m/s^2 per count, a 12-bit +-2 g part
        var settled: Tilt?
        var changes = 0
        for i in 0..<2600 {
            let t = Double(i) * 0.01
            let raw = Vector3(noise.gaussian() * lsb, noise.gaussian() * lsb, -g / quantum + noise.gaussian() * lsb)
            let a = Vector3(raw.x.rounded(), raw.y.rounded(), raw.z.rounded()) * quantum
            guard let now = tilt(e.update(acceleration: a, at: t)), t >= 4 else { continue }
            if let s = settled, s != now { changes += 1 }
            settled = now
        }
        #expect(changes == 0, "\(lsb) LSB of noise")
        #expect(e.noise.angle > 0.5 * lsb * quantum / g && e.noise.angle < 2 * lsb * quantum / g)
    }
}

@Test func theAccelerometerIsTrustedLessWhileItsMagnitudeDepartsFromG() throws {
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 10, filter: .none))
    var plain = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 10, filter: .none))
    var fused = Tilt.zero, alone = Tilt.zero
    for i in 0..<200 {
        let t = Double(i) * 0.01
        // A push sideways for 0.3 s: the device does not turn.
        let push = (t >= 1 && t < 1.3) ? Vector3(3, 0, 0) : .zero
        let a = Vector3(0, 0, -g) + push
        _ = e.update(angularVelocity: .zero, at: t)
        if let f = tilt(e.update(acceleration: a, at: t)) { fused = f }
        if let p = tilt(plain.update(acceleration: a, at: t)), t < 1.3 { alone = p }
        if t >= 1 && t < 1.3 {
            #expect(abs(fused.dRollRadians) < 0.1 * abs(alone.dRollRadians) + 1e-9)
        }
    }
    #expect(abs(alone.dRollRadians) > 0.2)   // the accelerometer alone reads a 17 degree tilt
}

@Test func aGyroscopeInTheWrongFrameIsGivenUpOnceAndTheAccelerometerGoesOn() throws {
    var e = AttitudeEstimator(.defaults)
    let up0 = Vector3(0, 0, 1)
    let w = Vector3(0.6, 0, 0)             // turning about x...
    let reported = Vector3(0, 0.6, 0)      // ...reported about y: a wrong matrix
    var verdicts: [String] = []
    var ignored = 0
    var last: Tilt?
    for i in 0..<600 {
        let t = Double(i) * 0.01
        let phase = t < 1 ? 0.0 : t - 1
        // Back and forth by 0.6 rad/s, 1 s each way.
        let s = Int(phase) % 2 == 0 ? 1.0 : -1.0
        let angle = t < 1 ? 0 : (Int(phase) % 2 == 0 ? phase.truncatingRemainder(dividingBy: 1) : 1 - phase.truncatingRemainder(dividingBy: 1)) * 0.6
        switch e.update(angularVelocity: t < 1 ? .zero : reported * s, at: t) {
        case .disagreed(let why): verdicts.append(why)
        case .ignored: ignored += 1
        default: break
        }
        let u = GyroFusion.rotate(up0, by: w * (-angle / 0.6))
        last = tilt(e.update(acceleration: u * -g, at: t)) ?? last
    }
    #expect(verdicts.count == 1)
    #expect(ignored > 0)
    #expect(!e.isFusing && e.gyroFailure != nil)
    // The accelerometer alone still gives the attitude.
    let final = try #require(last)
    let phase = 5.99 - 1
    let angle = (Int(phase) % 2 == 0 ? phase.truncatingRemainder(dividingBy: 1) : 1 - phase.truncatingRemainder(dividingBy: 1)) * 0.6
    #expect(abs(abs(final.dPitchRadians) - angle) < 0.05)
}

@Test func badGyroscopeReadingsAreRejected() {
    var e = AttitudeEstimator(.defaults)
    #expect(e.update(angularVelocity: Vector3(.nan, 0, 0), at: 0) == .rejected(.notFinite))
    #expect(e.update(angularVelocity: Vector3(1e6, 0, 0), at: 0) == .rejected(.outOfRange))
    #expect(e.update(angularVelocity: .zero, at: 0) == .used)
}

@Test func aGyroscopeThatFallsSilentLeavesTheAccelerometerAlone() {
    var e = AttitudeEstimator(.defaults)
    for i in 0..<100 {
        let t = Double(i) * 0.01
        _ = e.update(angularVelocity: .zero, at: t)
        _ = e.update(acceleration: Vector3(0, 0, -g), at: t)
    }
    #expect(e.isFusing)
    for i in 100..<200 { _ = e.update(acceleration: Vector3(0, 0, -g), at: Double(i) * 0.01) }
    #expect(!e.isFusing)
}

@Test func noiseEstimateIgnoresWindowsWithMotion() {
    var n = NoiseEstimator()
    var noise = Noise(seed: 3)
    let sigma = 0.002
    for i in 0..<1000 {
        // A turn for the first half (0.3 rad/s at 100 Hz), then still.
        let turn = i < 500 ? Double(i % 100) * 0.003 : 0
        let u = Vector3(turn + noise.gaussian() * sigma, noise.gaussian() * sigma, 1).normalized!
        n.add(u)
    }
    let expected = sigma * 2.0.squareRoot()   // two directions across u
    #expect(abs(n.angle - expected) < 0.2 * expected)
}

@Test func restGateHoldsWithinTheBandAndLetsGoBeyondIt() {
    var gate = RestGate(settleTime: 0.3)
    let u = Vector3(0, 0, 1)
    let near = Vector3(0.001, 0, 1).normalized!
    var out = Vector3.zero
    for i in 0..<40 { out = gate.update(i % 2 == 0 ? u : near, reading: i % 2 == 0 ? u : near, band: 0.002, at: Double(i) * 0.01) }
    #expect(gate.isAtRest)
    #expect(gate.update(u, reading: u, band: 0.002, at: 0.5) == out)
    let far = Vector3(0.01, 0, 1).normalized!
    #expect(gate.update(far, reading: far, band: 0.002, at: 0.51) == far)
    #expect(!gate.isAtRest)
}

@Test(arguments: [(0.001, 0.005), (0.01, 0.006), (0.05, 0.03), (0.1, 0.06), (1.0, 0.06)])
func smootherHalfLifeFollowsTheSampleInterval(_ interval: Double, _ expected: Double) {
    #expect(abs(FocalSmoother.halfLife(sampleInterval: interval) - expected) < 1e-12)
}

/// A gyroscope taken up mid-run (one that appeared after the accelerometer, or came back
/// after it vanished) delivers several readings per accelerometer reading (a buffer's
/// scans): the fusion starts from the accelerometer's direction without a jump, integrates
/// every reading at its own time; once the gyroscope is gone the accelerometer goes on
/// alone at once, and the fusion starts again the same way when it comes back.
@Test func aGyroscopeThatStartsMidRunIsFusedFromWhereTheAttitudeIs() throws {
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 10, filter: .none))
    let up0 = Vector3(0, -0.8, -0.6)
    let axis = Vector3(0.6, 0, 0.8)
    // Turning about a fixed axis by a varying rate: the angle at t is the rate's integral.
    let rate = { (t: Double) in 0.5 + 0.3 * sin(3 * t) }
    let angle = { (t: Double) in 0.5 * t + 0.1 * (1 - cos(3 * t)) }
    let truth = { (t: Double) in GyroFusion.rotate(up0, by: axis * -angle(t)) }
    let gyroOn = { (t: Double) in (1.0..<2.0).contains(t) || t >= 2.5 }
    var reference: TiltFrame?
    var previous: Tilt?
    var worst = 0.0
    var largestStep = 0.0
    var fusedAt: [Double] = []
    for k in 0..<800 {
        let t = Double(k) * 0.005              // the gyroscope at 200 Hz
        if k == 400 { e.gyroscopeGone() }      // its device removed at 2 s
        if gyroOn(t) { #expect(e.update(angularVelocity: axis * rate(t), at: t) == .used) }
        guard k % 4 == 0 else { continue }     // the accelerometer at 50 Hz
        let u = truth(t)
        let step = e.update(acceleration: u * -g, at: t)
        if case .tilt(_, let b?) = step { reference = b }
        guard let frame = reference, let got = tilt(step) else { continue }
        let want = frame.tilt(up: u)
        worst = max(worst, abs(got.dPitchRadians - want.dPitchRadians), abs(got.dRollRadians - want.dRollRadians))
        if let p = previous {
            largestStep = max(largestStep, abs(got.dPitchRadians - p.dPitchRadians), abs(got.dRollRadians - p.dRollRadians))
        }
        previous = got
        if e.isFusing { fusedAt.append(t) }
    }
    #expect(worst <= 1e-3)
    // 0.8 rad/s at most, 20 ms between readings: no step of the attitude beyond the motion's.
    #expect(largestStep <= 0.8 * 0.02 + 1e-3)
    // Fused while the readings come, alone in the silence, fused again after it.
    #expect(fusedAt.contains { $0 > 1.1 && $0 < 2.0 } && fusedAt.contains { $0 > 2.6 })
    #expect(!fusedAt.contains { $0 >= 2.0 && $0 < 2.5 })
}

@Test func theSelfChecksVerdictStandsUntilTheGyroscopeIsForgotten() {
    var e = AttitudeEstimator(.defaults)
    let up0 = Vector3(0, 0, 1)
    var verdict = false
    for i in 0..<600 where !verdict {
        let t = Double(i) * 0.01
        let s = Int(t) % 2 == 0 ? 1.0 : -1.0
        let angle = (Int(t) % 2 == 0 ? t.truncatingRemainder(dividingBy: 1) : 1 - t.truncatingRemainder(dividingBy: 1)) * 0.6
        if case .disagreed = e.update(angularVelocity: Vector3(0, 0.6 * s, 0), at: t) { verdict = true }
        _ = e.update(acceleration: GyroFusion.rotate(up0, by: Vector3(-angle, 0, 0)) * -g, at: t)
    }
    #expect(verdict)
    #expect(e.update(angularVelocity: .zero, at: 7) == .ignored)
    e.forgetGyroscope()
    #expect(e.update(angularVelocity: .zero, at: 7.01) == .used)
}
