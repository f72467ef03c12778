import TestSupport
import Testing

@testable import Motion

private let g = standardGravity

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

/// docs/TILT.md, "With a gyroscope": with a perfect gyroscope and a perfect accelerometer
/// and no linear acceleration, fused dPitch and dRoll equal "The two angles"' within 1e-3 rad. The
/// device turns from the start, and its baseline is its first readings: it is followed
/// for all of its 6 s.
@Test(
    arguments: [AttitudeFilter.none, .oneEuro(.defaults)],
    [Vector3(0.4, -0.3, 0.1), Vector3(0, 0, 1.2), Vector3(-0.8, 0.2, 0.5)])
func perfectSensorsFuseToTheAccelerometersTilt(_ filter: AttitudeFilter, _ w: Vector3) throws {
    var fused = AttitudeEstimator(fusedConfiguration(filter))
    let up0 = Vector3(0, -0.8, -0.6)  // a laptop's screen leaned back
    let dt = 0.01
    var reference: TiltFrame?
    var compared = 0
    for i in 0..<600 {
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
    #expect(compared > 580)
    #expect(fused.isFusing)
}

@Test func aGyroscopeOffsetIsLearnedWhileStillAndCausesNoDrift() {
    var e = AttitudeEstimator(.defaults)
    var noise = Noise(seed: 7)
    let offset = Vector3(0.3, -0.25, 0.31) * degree / 0.5 * 0.5  // about 0.5 deg/s
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
                _ = e.update(
                    angularVelocity: Vector3(rate, 0, 0) + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian())
                        * (0.1 * degree), at: t)
            }
            let u = GyroFusion.rotate(Vector3(0, 0, 1), by: Vector3(-angle, 0, 0))
            let a = u * -g + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.02
            guard let now = tilt(e.update(acceleration: a, at: t)) else { continue }
            if t < 6 { before = now } else { after = now }
        }
        let b = try #require(before), a = try #require(after)
        #expect(e.gate.isAtRest, "gyroscope: \(withGyro)")
        // The whole half degree is shown (pitch: the top edge came toward the viewer).
        #expect(abs(abs(a.dPitchRadians - b.dPitchRadians) - tilted) < 0.1 * degree, "gyroscope: \(withGyro)")
    }
}

@Test func aStillNoisySensorSettlesToOneUnchangingTilt() {
    for lsb in [1.0, 2.0, 3.0] {
        var e = AttitudeEstimator(.defaults)
        var noise = Noise(seed: UInt64(lsb * 100))
        let quantum = 0.009582  // m/s^2 per count, a 12-bit +-2 g part
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

/// A push the gyroscope does not see (the device does not turn) hardly moves the fused
/// tilt, during the push and after it, where the accelerometer alone reads 17 degrees.
@Test func aPushThatDoesNotTurnTheDeviceHardlyMovesTheFusedTilt() throws {
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 10, filter: .none))
    var plain = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 10, filter: .none))
    var fused = Tilt.zero, alone = Tilt.zero
    var worstAfter = 0.0
    for i in 0..<1000 {
        let t = Double(i) * 0.01
        // A push sideways for 0.3 s, once the fusion has settled.
        let push = (t >= 5 && t < 5.3) ? Vector3(3, 0, 0) : .zero
        let a = Vector3(0, 0, -g) + push
        _ = e.update(angularVelocity: .zero, at: t)
        if let f = tilt(e.update(acceleration: a, at: t)) { fused = f }
        if let p = tilt(plain.update(acceleration: a, at: t)), t < 5.3 { alone = p }
        if t >= 5 && t < 5.3 {
            #expect(abs(fused.dRollRadians) < 0.02 * abs(alone.dRollRadians) + 1e-9)
        }
        if t >= 5.3 { worstAfter = max(worstAfter, abs(fused.dRollRadians)) }
    }
    #expect(abs(alone.dRollRadians) > 0.2)  // the accelerometer alone reads a 17 degree tilt
    #expect(worstAfter < 1.5 * degree)
}

/// Back and forth about x by 0.6 rad/s, 1 s each way after 1 s at rest: the angle at t.
private func backAndForth(_ t: Double) -> (angle: Double, rate: Double) {
    guard t >= 1 else { return (0, 0) }
    let phase = t - 1
    let up = Int(phase) % 2 == 0
    let f = phase.truncatingRemainder(dividingBy: 1)
    return ((up ? f : 1 - f) * 0.6, up ? 0.6 : -0.6)
}

@Test func aGyroscopeInTheWrongFrameIsDoubtedOnceWithTheFrameThatFitsAndTheAccelerometerGoesOn() throws {
    var e = AttitudeEstimator(.defaults)
    let up0 = Vector3(0, 0, 1)
    var verdicts: [String] = []
    var weighed = 0
    var last: Tilt?
    for i in 0..<3000 {
        let t = Double(i) * 0.01
        let m = backAndForth(t)
        // Turning about x, reported about y: a wrong matrix.
        switch e.update(angularVelocity: Vector3(0, m.rate, 0), at: t) {
        case .doubted(let why): verdicts.append(why)
        case .weighed(let w): weighed += w < 1 ? 1 : 0
        default: break
        }
        let u = GyroFusion.rotate(up0, by: Vector3(-m.angle, 0, 0))
        last = tilt(e.update(acceleration: u * -g, at: t)) ?? last
    }
    #expect(verdicts.count == 1)
    #expect(verdicts.first?.contains("matrix") == true)
    #expect(weighed > 0)
    // Weighed down: the accelerometer's error bounds what the gyroscope may add.
    #expect(e.gyroscopeDoubted && e.gyroscopeWeight < 0.5)
    // The frame that fits turns the reported axis onto the true one.
    guard case .doubted(let better, let own, let best, let seconds) = e.frameCheck.verdict else {
        Issue.record("no verdict")
        return
    }
    #expect(better * Vector3(0, 1, 0) == Vector3(1, 0, 0))
    #expect(best < 0.2 * own && seconds >= 12)
    // The accelerometer alone still gives the attitude.
    let final = try #require(last)
    #expect(abs(abs(final.dPitchRadians) - backAndForth(29.99).angle) < 0.05)
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
        n.add(u, at: Double(i) * 0.01)
    }
    let expected = sigma * 2.0.squareRoot()  // two directions across u
    #expect(abs(n.angle - expected) < 0.2 * expected)
}

@Test func restGateHoldsWithinTheBandAndLetsGoBeyondIt() {
    var gate = RestGate(settleTime: 0.3)
    let u = Vector3(0, 0, 1)
    let near = Vector3(0.001, 0, 1).normalized!
    var out = Vector3.zero
    for i in 0..<40 {
        out = gate.update(i % 2 == 0 ? u : near, reading: i % 2 == 0 ? u : near, band: 0.002, at: Double(i) * 0.01)
    }
    #expect(gate.isAtRest)
    #expect(gate.update(u, reading: u, band: 0.002, at: 0.5) == out)
    let far = Vector3(0.01, 0, 1).normalized!
    #expect(gate.update(far, reading: far, band: 0.002, at: 0.51) == far)
    #expect(!gate.isAtRest)
}

/// At rest, an input beyond half the band is held all the same but doubted; one within
/// half the band, or a new stretch, is not.
@Test func restGateDoubtsAnInputNearTheEdgeOfItsBand() {
    var gate = RestGate(settleTime: 0.3)
    let u = Vector3(0, 0, 1)
    for i in 0..<40 { _ = gate.update(u, reading: u, band: 0.002, at: Double(i) * 0.01) }
    #expect(gate.isAtRest && !gate.doubted)
    let edge = Vector3(0.0015, 0, 1).normalized!
    #expect(gate.update(edge, reading: edge, band: 0.002, at: 0.5) == u)
    #expect(gate.isAtRest && gate.doubted)
    let near = Vector3(0.0008, 0, 1).normalized!
    #expect(gate.update(near, reading: near, band: 0.002, at: 0.51) == u)
    #expect(!gate.doubted)
    let far = Vector3(0.003, 0, 1).normalized!
    _ = gate.update(edge, reading: edge, band: 0.002, at: 0.52)
    #expect(gate.update(far, reading: far, band: 0.002, at: 0.53) == far)
    #expect(!gate.isAtRest && !gate.doubted)
}

/// The share of one conversion's noise left in a one-pole low-pass's output, followed
/// reading by reading, against the weights of the conversions in the output written out.
@Test(arguments: [0.05, 0.2, 0.7])
func smoothedNoiseIsTheSumOfTheSquaredWeightsOfTheConversions(_ alpha: Double) {
    var tracked = SmoothedNoise()
    var weights = [1.0]  // the first output is the first reading
    var noise = Noise(seed: 11)
    for _ in 0..<200 {
        let repeated = noise.uniform() < 0.6  // the same conversion read again
        let a = alpha * (0.5 + 0.5 * noise.uniform())  // readings unevenly spaced
        tracked.add(alpha: a, repeated: repeated)
        weights = weights.map { $0 * (1 - a) }
        if repeated { weights[weights.count - 1] += a } else { weights.append(a) }
        let share = weights.reduce(0) { $0 + $1 * $1 }
        #expect(abs(tracked.share - share) < 1e-12)
    }
}

@Test func smoothedNoiseSettlesAtTheOnePoleFigureAndAReadingAfterAGapPassesNearlyWhole() {
    var s = SmoothedNoise()
    for _ in 0..<500 { s.add(alpha: 0.2, repeated: false) }
    #expect(abs(s.share - 0.2 / 1.8) < 1e-12)
    // A still device read once a second: the One Euro filter's gain at 4 Hz is 0.96.
    s.add(alpha: 0.96, repeated: false)
    #expect(s.share > 0.92)
    // One conversion read over and over is passed whole in the end.
    for _ in 0..<500 { s.add(alpha: 0.2, repeated: true) }
    #expect(abs(s.share - 1) < 1e-9)
}

/// A still sensor that converts slower than it is read, or whose reader stalls: its
/// readings repeat (here each conversion is read one to six times), so its noise passes
/// the low-pass as a slower noise, less smoothed. The rest band follows it: the device
/// comes to rest, and stays there, as one read at a steady pace does.
@Test(arguments: [false, true])
func aStillSensorReadFasterThanItConvertsComesToRest(_ repeats: Bool) {
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 3, filter: .oneEuro(.defaults)))
    var noise = Noise(seed: 5)
    let sigma = 0.0016 * g  // 0.09 degrees a direction, a bmc150's one count
    var reading = Vector3.zero
    var left = 0
    var restedAt: Double?
    var lettingGo = 0
    for i in 0..<1500 {
        let t = Double(i) * 0.01
        if left == 0 {
            reading = Vector3(
                noise.gaussian() * sigma, -g * 0.98 + noise.gaussian() * sigma, -g * 0.2 + noise.gaussian() * sigma)
            left = repeats ? 1 + Int(noise.uniform() * 6) : 1
        }
        left -= 1
        _ = e.update(acceleration: reading, at: t)
        if e.gate.isAtRest, restedAt == nil { restedAt = t }
        if restedAt != nil, !e.gate.isAtRest { lettingGo += 1 }
    }
    #expect(restedAt != nil && restedAt! < 5, "at rest from \(restedAt ?? .nan) s")
    #expect(lettingGo == 0)
}

/// A sensor whose readings stand still between moves (no noise at rest: its last bit
/// steady, or an input device's fuzz), read as the daemon reads it at rest: ten reads at
/// 100 Hz when it says it moved, then one a second until the next. Each of 30 moves of 0.05 rad (2.9
/// degrees) between two poses is drawn at its first reading, and the noise estimate stays
/// at most the prior's: the moves are not taken for its noise.
@Test func aQuietSensorMovedInStepsIsSeenAtEveryMove() {
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 3, filter: .oneEuro(.defaults)))
    let lean = 0.2
    let poses = [0.0, 0.05].map { roll in
        Vector3(g * sin(roll), -g * cos(roll) * cos(lean), -g * cos(roll) * sin(lean))
    }
    var t = 0.0
    var drawn: Tilt?
    func read(_ pose: Vector3) -> Tilt? {
        defer { t += 0.01 }
        if case .tilt(let tilt, _) = e.update(acceleration: pose, at: t) { return tilt }
        return nil
    }
    for _ in 0..<200 { drawn = read(poses[0]) ?? drawn }
    var missed: [Int] = []
    for k in 0..<30 {
        #expect(e.gate.isAtRest, "at rest before move \(k)")
        let first = read(poses[(k + 1) % 2])
        if first == nil || first == drawn { missed.append(k) }
        for _ in 0..<9 { drawn = read(poses[(k + 1) % 2]) ?? drawn }
        // One read a second until the rest, then the next move a second later: what the
        // moves leave of the readings is one or two repeats each.
        for _ in 0..<4 where !e.gate.isAtRest {
            t += 0.99
            drawn = read(poses[(k + 1) % 2]) ?? drawn
        }
        t += 0.99
        drawn = read(poses[(k + 1) % 2]) ?? drawn
    }
    #expect(missed.isEmpty, "moves not drawn at their first reading: \(missed)")
    #expect(e.noise.angle <= NoiseEstimator.prior)
}

/// With a gyroscope, the fused direction may walk slowly while held (its rate noise): the
/// held direction stays exactly the same; a turn the gyroscope sees at once lets go.
@Test func restGateFollowsTheFusedWalkAndLetsGoAtATurn() {
    var gate = RestGate(settleTime: 0.3)
    let u = Vector3(0, 0, 1)
    var changes = 0
    var last: Vector3?
    for i in 0..<600 {
        let t = Double(i) * 0.01
        // The fused direction walks 0.5 mrad/s; the readings alternate 1 mrad about u.
        let fused = Vector3(0.0005 * t, 0, 1).normalized!
        let reading = Vector3(i % 2 == 0 ? 0.001 : -0.0005, 0, 1).normalized!
        let out = gate.update(u, reading: reading, band: 0.002, at: t, fused: fused, fusedBand: 0.002)
        if let l = last, l != out, t > 0.31 { changes += 1 }
        last = out
    }
    #expect(gate.isAtRest && changes == 0)
    // A turn the gyroscope sees at once: the fused direction jumps 5 mrad.
    let turned = Vector3(0.0005 * 6 + 0.005, 0, 1).normalized!
    #expect(gate.update(u, reading: u, band: 0.002, at: 6.0, fused: turned, fusedBand: 0.002) == turned)
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
        let t = Double(k) * 0.005  // the gyroscope at 200 Hz
        if k == 400 { e.gyroscopeGone() }  // its device removed at 2 s
        if gyroOn(t) { #expect(e.update(angularVelocity: axis * rate(t), at: t) == .used) }
        guard k % 4 == 0 else { continue }  // the accelerometer at 50 Hz
        let u = truth(t)
        let step = e.update(acceleration: u * -g, at: t)
        if case .tilt(_, let b?) = step { reference = b }
        guard let frame = reference, let got = tilt(step) else { continue }
        let want = frame.tilt(up: u)
        worst = max(worst, abs(got.dPitchRadians - want.dPitchRadians), abs(got.dRollRadians - want.dRollRadians))
        if let p = previous {
            largestStep = max(
                largestStep, abs(got.dPitchRadians - p.dPitchRadians), abs(got.dRollRadians - p.dRollRadians))
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

@Test func theSelfChecksVerdictIsWithdrawnWhenTheEvidenceTurnsAndForgottenWithTheSensor() {
    var e = AttitudeEstimator(.defaults)
    let up0 = Vector3(0, 0, 1)
    var doubted: Double?
    var trusted: Double?
    for i in 0..<6000 where trusted == nil {
        let t = Double(i) * 0.01
        let m = backAndForth(t)
        // The wrong frame until it is doubted, then the right one (a matrix fixed by a
        // drop-in and a reload, say).
        let w = doubted == nil ? Vector3(0, m.rate, 0) : Vector3(m.rate, 0, 0)
        switch e.update(angularVelocity: w, at: t) {
        case .doubted: doubted = t
        case .trustedAgain: trusted = t
        default: break
        }
        _ = e.update(acceleration: GyroFusion.rotate(up0, by: Vector3(-m.angle, 0, 0)) * -g, at: t)
    }
    #expect(doubted != nil && trusted != nil)
    #expect(!e.gyroscopeDoubted)
    #expect(e.update(angularVelocity: .zero, at: 60) == .used)
    e.forgetGyroscope()
    #expect(e.update(angularVelocity: .zero, at: 60.01) == .used)
    #expect(e.frameCheck.secondsWeighed == 0)
}

/// A correct gyroscope in a shaking hand (linear acceleration of 2 m/s^2 RMS between 0.5
/// and 3 Hz, a 2 Hz step, with taps of 30 m/s^2 or without) while the device turns: never
/// doubted, never weighed down, and the fused tilt stays within a fraction of a degree
/// where the accelerometer alone is degrees off. Without taps the check weighs the
/// motion; a tap every 1.4 s leaves no 2 s group free of a spike, and no such group is
/// evidence.
@Test(arguments: [false, true])
func aCorrectGyroscopeInAShakingHandIsNeverDoubted(_ tapped: Bool) {
    var e = AttitudeEstimator(.defaults)
    var alone = AttitudeEstimator(.defaults)
    var noise = Noise(seed: 11)
    var u = Vector3(0, -0.5, -0.866)  // held 30 degrees from flat
    let waves = (0..<9).map { _ in (f: 0.5 + 2.5 * noise.uniform(), phase: 6.28 * noise.uniform()) }
    var doubted = 0, weighed = 0
    var squaredFused = 0.0, squaredAlone = 0.0, n = 0.0
    var reference: TiltFrame?, referenceAlone: TiltFrame?
    for i in 0..<9000 {
        let t = Double(i) * 0.01
        let k = min(1, max(0, t - 1))
        // Turning about changing axes; the up direction follows the rates exactly.
        let w = Vector3(0.6 * cos(2.5 * t), 0.5 * cos(1.45 * t + 1), 0.3 * sin(0.9 * t)) * k
        u = GyroFusion.rotate(u, by: w * -0.01)
        var lin = Vector3.zero
        for (n, wave) in waves.enumerated() {
            // Three waves an axis, 2 m/s^2 RMS as a vector.
            let v = 2.0 / 3.0 * sin(2 * Double.pi * wave.f * t + wave.phase)
            lin = lin + (n % 3 == 0 ? Vector3(v, 0, 0) : n % 3 == 1 ? Vector3(0, v, 0) : Vector3(0, 0, v))
        }
        lin = lin + Vector3(0, 0, 1.5 * sin(2 * Double.pi * 2 * t))  // a step
        // A tap: a 20 ms knock and its rebound (the device ends where it was).
        if tapped, i % 137 < 2 {
            lin = lin + Vector3(30, -20, 10)
        } else if tapped, i % 137 < 4 {
            lin = lin - Vector3(30, -20, 10)
        }
        let a = u * -g + lin * k
        let measured = w + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.002
        switch e.update(angularVelocity: measured, at: t) {
        case .doubted: doubted += 1
        case .weighed: weighed += 1
        default: break
        }
        let step = e.update(acceleration: a, at: t), stepAlone = alone.update(acceleration: a, at: t)
        if case .tilt(_, let b?) = step { reference = b }
        if case .tilt(_, let b?) = stepAlone { referenceAlone = b }
        guard t > 5, let f = reference, let fa = referenceAlone, let got = tilt(step), let gotAlone = tilt(stepAlone)
        else { continue }
        let want = f.tilt(up: u), wantAlone = fa.tilt(up: u)
        squaredFused += pow2(got.dPitchRadians - want.dPitchRadians) + pow2(got.dRollRadians - want.dRollRadians)
        squaredAlone +=
            pow2(gotAlone.dPitchRadians - wantAlone.dPitchRadians)
            + pow2(gotAlone.dRollRadians - wantAlone.dRollRadians)
        n += 1
    }
    #expect(doubted == 0 && weighed == 0)
    #expect(e.isFusing)
    if tapped {
        #expect(e.frameCheck.secondsWeighed == 0)
    } else {
        #expect(e.frameCheck.secondsWeighed >= 30)
    }
    #expect((squaredFused / n).squareRoot() < 0.5 * degree)
    #expect((squaredAlone / n).squareRoot() > 3 * degree)
}

private func pow2(_ x: Double) -> Double { x * x }

/// The offset is learnt in motion too: a device never at rest, turning about changing
/// axes, with a 1.5 deg/s offset the fusion was not told of.
@Test func aGyroscopeOffsetIsLearntInMotion() {
    var e = AttitudeEstimator(.defaults)
    let offset = Vector3(1.0, -0.8, 0.7) * degree
    let up0 = Vector3(0, 0, 1)
    var u = up0
    for i in 0..<12000 {
        let t = Double(i) * 0.01
        let w = Vector3(0.5 * sin(0.7 * t), 0.4 * cos(0.45 * t), 0.3 * sin(0.2 * t + 1))
        _ = e.update(angularVelocity: w + offset, at: t)
        u = GyroFusion.rotate(u, by: w * -0.01)
        _ = e.update(acceleration: u * -g, at: t)
    }
    let learnt = e.fusion?.offset ?? .zero
    #expect((learnt - offset).length < 0.3 * degree)
    #expect(e.fusion?.offsetKnown == false)  // never at rest: learnt in motion alone
}

/// A mirrored axis, swapped axes, every sign reversed: each is doubted within a minute of
/// turning about two axes, with a frame that turns the rates as read onto the true ones.
@Test(arguments: [
    Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)),
    Matrix3(rows: Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1)),
    Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, -1)),
])
func aWrongFrameIsFoundAndTheFrameThatFitsIsNamed(_ wrong: Matrix3) throws {
    var e = AttitudeEstimator(.defaults)
    var u = Vector3(0, -0.5, -0.866)
    var last = (read: Vector3.zero, truth: Vector3.zero)
    for i in 0..<6000 {
        let t = Double(i) * 0.01
        let k = min(1, max(0, t - 1))
        let w = Vector3(0.6 * cos(2.1 * t), 0.5 * cos(1.3 * t + 0.5), 0) * k
        u = GyroFusion.rotate(u, by: w * -0.01)
        let read = wrong * w
        _ = e.update(angularVelocity: read, at: t)
        _ = e.update(acceleration: u * -g, at: t)
        if w.length > 0.3 { last = (read, w) }
    }
    guard case .doubted(let better, _, _, _) = e.frameCheck.verdict else {
        Issue.record("no verdict")
        return
    }
    #expect((better * last.read - last.truth).length < 1e-9)
    #expect(e.gyroscopeWeight < 1)
}

/// Lying still with 0.02 m/s^2 of accelerometer noise (a 12-bit part, quantised) and a
/// noisy gyroscope (0.3 or 0.6 deg/s RMS an axis, a 0.6 deg/s offset): the fused direction
/// walks with the rate noise, but the tilt stays put from 4 s on, as it does without a
/// gyroscope.
@Test(arguments: [UInt64(1), 2, 3, 4, 5], [0.3, 0.6])
func aStillDeviceWithANoisyGyroscopeKeepsOneTilt(_ seed: UInt64, _ rateNoise: Double) {
    var e = AttitudeEstimator(.defaults)
    var noise = Noise(seed: seed)
    let quantum = 0.009582, lsb = 0.02 / 0.009582
    let offset = Vector3(0.6, -0.5, 0.62).normalized! * (0.6 * degree)
    var last: Tilt?
    var changes = 0, largest = 0.0
    for i in 0..<2600 {
        let t = Double(i) * 0.01
        let w = offset + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (rateNoise * degree)
        _ = e.update(angularVelocity: w, at: t)
        let raw = Vector3(noise.gaussian() * lsb, noise.gaussian() * lsb, -g / quantum + noise.gaussian() * lsb)
        let a = Vector3(raw.x.rounded(), raw.y.rounded(), raw.z.rounded()) * quantum
        guard let now = tilt(e.update(acceleration: a, at: t)), t >= 4 else { continue }
        if let l = last, l != now {
            changes += 1
            largest = max(largest, abs(now.dPitchRadians - l.dPitchRadians), abs(now.dRollRadians - l.dRollRadians))
        }
        last = now
    }
    #expect(e.isFusing)
    #expect(changes <= 2 && largest < 2e-4, "\(changes) changes, the largest \(largest) rad")
}

/// A hand's sweep (pitch +-4 degrees at 0.5 Hz, roll +-8 at 0.3 Hz, 30 degrees from flat)
/// with 0.87 m/s^2 of hand acceleration: the up direction, the body rate and the hand's
/// acceleration at t (motion from 1.5 s).
private func handSweep(_ t: Double, waves: [(f: Double, phase: Double)]) -> (up: Vector3, rate: Vector3, hand: Vector3)
{
    func up(_ t: Double) -> Vector3 {
        let s = max(0, t - 1.5)
        let pitch = 30 * degree + 4 * degree * sin(Double.pi * s)
        let roll = 8 * degree * sin(0.6 * Double.pi * s)
        return GyroFusion.rotate(
            GyroFusion.rotate(Vector3(0, 0, 1), by: Vector3(-pitch, 0, 0)), by: Vector3(0, -roll, 0))
    }
    let u = up(t), h = 1e-4
    let du = (up(t + h) - up(t - h)) / (2 * h)
    // du/dt = -w x u: the rate across u (a turn about u itself does not show).
    let rate = u.cross(du) * -1
    var hand = Vector3.zero
    for (n, wave) in waves.enumerated() where t >= 1.5 {
        // Three waves an axis: 0.87 m/s^2 RMS as a vector.
        let v = 0.87 / 3.0.squareRoot() * (2.0 / 3.0).squareRoot() * sin(2 * Double.pi * wave.f * t + wave.phase)
        hand = hand + (n % 3 == 0 ? Vector3(v, 0, 0) : n % 3 == 1 ? Vector3(0, v, 0) : Vector3(0, 0, v))
    }
    return (u, rate, hand)
}

/// A gyroscope read with x mirrored (a hwdb entry's mistake): until its frame is trusted
/// its weight follows the evidence, so the fused tilt is no worse than the accelerometer's
/// alone, and the mismatch is reported within 10 s of motion naming the frame that fits;
/// in the right frame the same path keeps the gyroscope's whole weight.
@Test(arguments: [UInt64(3), 8, 21])
func aMirroredGyroscopeIsWeighedByTheEvidenceAndNeverHurts(_ seed: UInt64) {
    var noise = Noise(seed: seed)
    let waves = (0..<9).map { _ in (f: 0.7 + 1.6 * noise.uniform(), phase: 6.28 * noise.uniform()) }
    let mirror = Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    var error = [0.0, 0.0, 0.0]  // squared: mirrored, alone, right frame
    var n = 0.0, reported: Double?, fitting: Matrix3?, rightWeight = 1.0
    var mirrored = AttitudeEstimator(.defaults), alone = AttitudeEstimator(.defaults),
        right = AttitudeEstimator(.defaults)
    var frames: [TiltFrame?] = [nil, nil, nil]
    for i in 0..<1550 {
        let t = Double(i) * 0.01
        let m = handSweep(t, waves: waves)
        let w = m.rate + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (0.1 * degree)
        if case .doubted = mirrored.update(angularVelocity: mirror * w, at: t), reported == nil {
            reported = t - 1.5
            if case .doubted(let better, _, _, _) = mirrored.frameCheck.verdict { fitting = better }
        }
        _ = right.update(angularVelocity: w, at: t)
        let a = m.up * -g + m.hand + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.015
        let steps = [
            mirrored.update(acceleration: a, at: t), alone.update(acceleration: a, at: t),
            right.update(acceleration: a, at: t),
        ]
        rightWeight = min(rightWeight, right.gyroscopeWeight)
        for k in 0..<3 { if case .tilt(_, let b?) = steps[k] { frames[k] = b } }
        guard t >= 2.5 else { continue }
        for k in 0..<3 {
            guard let f = frames[k], let got = tilt(steps[k]) else { continue }
            let want = f.tilt(up: m.up)
            error[k] += pow2(got.dPitchRadians - want.dPitchRadians) + pow2(got.dRollRadians - want.dRollRadians)
        }
        n += 1
    }
    let rms = error.map { ($0 / n).squareRoot() / degree }
    #expect(rms[0] <= rms[1], "mirrored \(rms[0]) degrees RMS, the accelerometer alone \(rms[1])")
    #expect(rms[1] > 2 && rms[2] < 0.5, "\(rms)")
    #expect(reported.map { $0 <= 10 } == true, "reported \(String(describing: reported)) s into the motion")
    // The frame that fits turns the rates as read back onto the device's.
    #expect(fitting.map { ($0 * mirror * Vector3(0.3, 0.2, 0.1) - Vector3(0.3, 0.2, 0.1)).length < 1e-12 } == true)
    #expect(rightWeight == 1)
}
