import Testing

@testable import Motion

/// The motion stage the daemon, `monitor` and `replay` share: what each input does, and
/// a drawn point that depends on the readings and the frames' times only.
struct MotionInterpreterTests {
    static let g = 9.80665
    static let origin = FocalPoint(x: 175, y: 233)

    func interpreter(recaptureAfter: Double = 0, filter: AttitudeFilter = .none) -> MotionInterpreter {
        MotionInterpreter(
            attitude: AttitudeConfiguration(baselineSamples: 1, filter: filter),
            mapper: FocalMapper(origin: Self.origin), recaptureAfter: recaptureAfter,
            recaptureAngle: 0.2)
    }

    /// Rolled by `roll` radians about the screen's normal, flat on its back.
    func reading(roll: Double, at t: Double) -> MotionInput {
        .acceleration(metersPerSecondSquared: Vector3(Self.g * sin(roll), 0, -Self.g * cos(roll)), at: t)
    }

    @Test func theFirstReadingIsTheBaselineAndLaterOnesAreSamples() {
        var m = interpreter()
        let first = m.take(reading(roll: 0, at: 0))
        #expect(first.baseline != nil && first.sample != nil && m.baselineAt == 0)
        let second = m.take(reading(roll: 0.1, at: 0.01))
        #expect(second.baseline == nil && second.sample?.seq == 1 && m.samples == 2)
        #expect(abs(m.lastTilt.dRoll - 0.1) < 1e-9)
    }

    @Test func aSensorBackAfterItWentAwayCapturesANewBaselineAndEasesHomeMeanwhile() {
        var m = interpreter()
        _ = m.take(reading(roll: 0, at: 0))
        _ = m.take(reading(roll: 0.1, at: 0.01))
        #expect(m.draw(at: 1) != Self.origin)
        _ = m.take(.detached(at: 1))
        #expect(m.draw(at: 3) == Self.origin && m.isSettled(at: 3))
        #expect(m.take(.attached(at: 3)).recapture == .sensorBack)
        let back = m.take(reading(roll: 0.1, at: 3.01))
        #expect(back.baseline != nil && abs(m.lastTilt.dRoll) < 1e-9)
        // The first attach is no recapture: there was nothing to recapture.
        var fresh = interpreter()
        #expect(fresh.take(.attached(at: 0)).recapture == nil)
    }

    @Test func aRecaptureIsSaidWithItsReason() {
        var m = interpreter()
        _ = m.take(reading(roll: 0, at: 0))
        #expect(m.take(.recapture("SIGUSR1", at: 1)).recapture == .asked("SIGUSR1"))
        #expect(m.baselineAt == nil)
        #expect(m.take(reading(roll: 0.2, at: 1.01)).baseline != nil)
    }

    @Test func aGyroscopeGoneStopsTheFusion() {
        var m = interpreter()
        for i in 0..<150 {
            let t = Double(i) * 0.01
            #expect(m.take(.angularVelocity(radiansPerSecond: .zero, at: t)).gyroscope != nil)
            _ = m.take(reading(roll: 0, at: t))
        }
        #expect(m.isFusing)
        _ = m.take(.gyroscopeGone(at: 1.5))
        _ = m.take(reading(roll: 0, at: 1.51))
        #expect(!m.isFusing)
    }

    /// A spring at rest is not moved by the time that passes, and a reading after a quiet
    /// spell takes over one frame before it (`FocalDrawing.lead`), not from the last one.
    @Test func stillTimeIsNotDrawnAndAPauseDoesNotJump() {
        var m = interpreter()
        _ = m.take(reading(roll: 0, at: 0))
        #expect(m.draw(at: 5) == Self.origin && m.isSettled(at: 5))
        _ = m.take(reading(roll: 0.1, at: 10))
        var spring = FocalSmoother(at: Self.origin)
        spring.target = FocalMapper(origin: Self.origin).focalPoint(for: Tilt(dPitchRadians: 0, dRollRadians: 0.1))
        spring.step(1.0 / 60 + 0.005)
        let drawn = m.draw(at: 10.005)
        #expect(abs(drawn.x - spring.position.x) < 1e-9 && abs(drawn.y - spring.position.y) < 1e-9)
        #expect(drawn != spring.target)
    }

    /// The same readings give the same published frames whatever frames in between
    /// changed nothing on the picture.
    @Test func theFramesDependOnTheReadingsAndThePublishedFramesOnly() {
        var sparse = interpreter(), dense = interpreter()
        var a: [FocalPoint] = [], b: [FocalPoint] = []
        for i in 0..<200 {
            let t = Double(i) * 0.01
            let input = reading(roll: 0.15 * sin(2 * Double.pi * t), at: t)
            _ = sparse.take(input)
            _ = dense.take(input)
            dense.unchanged(at: t)  // a frame that changed no dot
            if i % 3 == 0 {
                a.append(sparse.draw(at: t + 0.004))  // the frames that were published
                b.append(dense.draw(at: t + 0.004))
            }
        }
        #expect(a.count == 67)
        #expect(a == b)
        #expect(Set(a.map(\.x)).count > 50)
    }

    /// Readings move the spring on between frames (a display that takes a while to show
    /// one): it may settle meanwhile, but it is not settled until a frame shows it there.
    @Test func aSpringThatSettlesBetweenFramesStillOwesTheFrameThatShowsIt() {
        var m = interpreter()
        _ = m.take(reading(roll: 0, at: 0))
        _ = m.take(reading(roll: 0.1, at: 0.01))
        let first = m.draw(at: 0.01)
        for i in 2...300 { _ = m.take(reading(roll: 0.1, at: Double(i) * 0.01)) }
        #expect(!m.isSettled(at: 3) && m.drawnFocal == first && !m.isResting(at: 3))
        let last = m.draw(at: 3)
        #expect(m.isSettled(at: 3) && last != first && m.drawnFocal == last)
        // A frame that changes nothing on the picture settles it too.
        var n = interpreter()
        _ = n.take(reading(roll: 0, at: 0))
        _ = n.take(reading(roll: 0.1, at: 0.01))
        _ = n.draw(at: 0.01)
        for i in 2...300 { _ = n.take(reading(roll: 0.1, at: Double(i) * 0.01)) }
        n.unchanged(at: 3)
        #expect(n.isSettled(at: 3))
    }

    @Test func restingFarFromTheBaselineRecapturesThere() {
        // The rest gate, which says the device rests, holds behind the filter.
        var m = interpreter(recaptureAfter: 1, filter: .oneEuro(.defaults))
        for i in 0...50 { _ = m.take(reading(roll: 0, at: Double(i) * 0.01 - 0.5)) }  // the baseline, at rest
        #expect(m.baselineAt != nil)
        var said: [MotionInterpreter.Recapture] = []
        for i in 1...300 {
            if let r = m.take(reading(roll: 0.5, at: Double(i) * 0.01)).recapture { said.append(r) }
        }
        #expect(said.count == 1)
        if case .restedFar(let why)? = said.first {
            #expect(why == "rested 1 s at 29 degrees from the baseline")
        } else {
            Issue.record("no recapture: \(said)")
        }
    }

    /// The tablet-mode switch mid-fold: the card eases home at once, and the baseline
    /// comes once the device rests, from the pose it rests in.
    @Test func aRecaptureMidFoldEasesHomeAndTakesTheBaselineAtRest() {
        var m = interpreter(filter: .oneEuro(.defaults))
        for i in 0...50 { _ = m.take(reading(roll: 0, at: Double(i) * 0.01)) }
        for i in 51...80 { _ = m.take(reading(roll: 0.02 * Double(i - 50), at: Double(i) * 0.01)) }
        _ = m.draw(at: 0.8)
        #expect(m.drawnFocal != Self.origin)
        #expect(m.take(.recaptureAtRest("tablet-mode switch", at: 0.8)).recapture == .askedAtRest("tablet-mode switch"))
        #expect(m.draw(at: 1.0) == Self.origin)
        var baseline: (t: Double, up: Vector3)?
        for i in 81...200 {
            let roll = min(0.02 * Double(i - 50), 0.8)  // rests at 0.8 rad from 0.9 s
            let out = m.take(reading(roll: roll, at: Double(i) * 0.01))
            if let b = out.baseline { baseline = (Double(i) * 0.01, b.up) }
            #expect(out.baselineNotAtRest == nil)
        }
        #expect(baseline.map { $0.t >= 0.9 + BaselineCapture.tailTime + BaselineCapture.restMeanTime } == true)
        #expect(baseline.map { ($0.up - Vector3(-sin(0.8), 0, cos(0.8))).length < 1e-9 } == true)
        #expect(m.draw(at: 2) == Self.origin)
    }

    /// A device that never rests after the tablet-mode switch gets a baseline anyway, and
    /// that is said.
    @Test func aBaselineWithoutRestIsSaid() {
        var m = interpreter(filter: .oneEuro(.defaults))
        var said: [String] = []
        _ = m.take(.recaptureAtRest("tablet-mode switch", at: 0))
        for i in 0..<400 {
            let out = m.take(reading(roll: 0.1 * sin(Double(i) * 0.05), at: Double(i) * 0.01))
            if let why = out.baselineNotAtRest { said.append(why) }
        }
        #expect(
            said == [
                "the device did not come to rest within 3 s; the baseline is the mean of its last 0.4 s of readings"
            ])
        #expect(m.baselineAt.map { abs($0 - 3) < 0.015 } == true)
    }

    /// Started, claimed, recalibrated or back while the device moves: the baseline is the
    /// first readings, and the card follows the tilt from the first frames.
    @Test(arguments: [false, true])
    func aMovingDeviceGetsItsBaselineAtOnceAndIsFollowed(_ recalibrated: Bool) {
        var m = interpreter(filter: .oneEuro(.defaults))
        let start = recalibrated ? 1.0 : 0.0
        if recalibrated {
            for i in 0..<100 { _ = m.take(reading(roll: 0.3 * sin(Double(i) * 0.03), at: Double(i) * 0.01)) }
            _ = m.take(.recapture("SIGUSR1", at: start))
        }
        var baselineAt: Double?
        var rolls: [(t: Double, roll: Double)] = []
        for i in 0..<300 {
            let t = start + Double(i) * 0.01
            let roll = 0.1 * Double(i) * 0.01  // turning at 0.1 rad/s all along
            let out = m.take(reading(roll: roll, at: t))
            if out.baseline != nil { baselineAt = t }
            #expect(out.baselineNotAtRest == nil)
            if let s = out.sample { rolls.append((t, s.tilt.dRollRadians)) }
        }
        #expect(baselineAt.map { $0 - start < 0.1 } == true, "baseline at \(String(describing: baselineAt))")
        // The tilt against the first readings' mean follows the turn (the filter's lag
        // aside) from half a second on.
        for r in rolls where r.t - start >= 0.5 {
            #expect(abs(abs(r.roll) - 0.1 * (r.t - start)) < 0.03, "at \(r.t): \(r.roll)")
        }
        #expect(rolls.count > 280)
    }
}
