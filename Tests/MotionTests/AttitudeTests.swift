import TestSupport
import Testing

@testable import Motion

private let g = standardGravity
private let t = 0.1

/// docs/TILT.md, "The two angles", filter off.
struct AttitudeVector: Sendable, CustomTestStringConvertible {
    let name: String
    let baseline: Vector3
    let sample: Vector3
    let dPitch: Double
    let dRoll: Double
    var testDescription: String { name }
}

private let specVectors: [AttitudeVector] = [
    AttitudeVector(
        name: "flat, top edge raised", baseline: Vector3(0, 0, -g),
        sample: Vector3(0, -g * _sin(t), -g * _cos(t)), dPitch: t, dRoll: 0),
    AttitudeVector(
        name: "flat, right edge lowered", baseline: Vector3(0, 0, -g),
        sample: Vector3(g * _sin(t), 0, -g * _cos(t)), dPitch: 0, dRoll: t),
    AttitudeVector(
        name: "upright, top edge toward viewer", baseline: Vector3(0, -g, 0),
        sample: Vector3(0, -g * _cos(t), g * _sin(t)), dPitch: t, dRoll: 0),
    AttitudeVector(
        name: "upright, turned clockwise", baseline: Vector3(0, -g, 0),
        sample: Vector3(g * _sin(t), -g * _cos(t), 0), dPitch: 0, dRoll: t),
    AttitudeVector(
        name: "flat, unchanged", baseline: Vector3(0, 0, -g),
        sample: Vector3(0, 0, -g), dPitch: 0, dRoll: 0),
]

// Taylor series are enough for the test inputs (|x| <= 0.8): the pure module has no sin.
func _sin(_ x: Double) -> Double {
    var term = x, sum = x
    for n in 1..<12 { term *= -x * x / Double((2 * n) * (2 * n + 1)); sum += term }
    return sum
}
func _cos(_ x: Double) -> Double {
    var term = 1.0, sum = 1.0
    for n in 1..<12 { term *= -x * x / Double((2 * n - 1) * (2 * n)); sum += term }
    return sum
}

private func estimator(baselineSamples: Int = 1) -> AttitudeEstimator {
    AttitudeEstimator(AttitudeConfiguration(baselineSamples: baselineSamples, filter: .none))
}

private func run(_ v: AttitudeVector, baselineFactor: Double = 1, sampleFactor: Double = 1) -> Tilt? {
    var e = estimator()
    _ = e.update(acceleration: v.baseline * baselineFactor, at: 0)
    guard case .tilt(let tilt, _) = e.update(acceleration: v.sample * sampleFactor, at: 0.1) else { return nil }
    return tilt
}

@Test(arguments: specVectors)
func specTestVector(_ v: AttitudeVector) throws {
    let tilt = try #require(run(v))
    #expect(abs(tilt.dPitchRadians - v.dPitch) < 1e-12)
    #expect(abs(tilt.dRollRadians - v.dRoll) < 1e-12)
}

@Test(arguments: specVectors, [0.01, 0.5, 2.0, 37.0, 1000.0])
func scalingASampleChangesNothing(_ v: AttitudeVector, factor: Double) throws {
    let tilt = try #require(run(v, sampleFactor: factor))
    #expect(abs(tilt.dPitchRadians - v.dPitch) < 1e-12)
    #expect(abs(tilt.dRollRadians - v.dRoll) < 1e-12)
    // The frame alone is scale invariant in the baseline too (the baseline magnitude
    // window of docs/TILT.md, "Baseline", is the estimator's business, not the geometry's).
    let frame = try #require(TiltFrame(baselineUp: -v.baseline * factor))
    let direct = frame.tilt(up: -v.sample * (1 / factor))
    #expect(abs(direct.dPitchRadians - v.dPitch) < 1e-12)
    #expect(abs(direct.dRollRadians - v.dRoll) < 1e-12)
}

@Test func baselineIsNormalizedMeanOfFirstSamples() throws {
    var e = estimator(baselineSamples: 3)
    #expect(
        e.update(acceleration: Vector3(0, 0, -g), at: 0) == .collectingBaseline(have: 1, need: 3, usedForBaseline: true)
    )
    #expect(
        e.update(acceleration: Vector3(0, -g, 0), at: 0.1)
            == .collectingBaseline(have: 2, need: 3, usedForBaseline: true))
    guard case .tilt(_, let frame?) = e.update(acceleration: Vector3(0, -g, -g) / 2.0.squareRoot(), at: 0.2) else {
        Issue.record("baseline not captured"); return
    }
    let r = 0.5.squareRoot()
    #expect(abs(frame.up.y - r) < 1e-12 && abs(frame.up.z - r) < 1e-12 && frame.up.x == 0)
}

@Test(arguments: [0.0, 0.3, 0.49, 1.51, 3.0])
func baselineIgnoresSamplesOutsideHalfToOneAndAHalfG(_ gs: Double) {
    var e = estimator(baselineSamples: 2)
    let step = e.update(acceleration: Vector3(0, 0, -g * gs), at: 0)
    if gs == 0 {
        #expect(step == .rejected(.zeroVector))
    } else {
        #expect(step == .collectingBaseline(have: 0, need: 2, usedForBaseline: false))
    }
    #expect(e.isCapturingBaseline)
}

@Test func badSamplesNeverReachTheAttitude() {
    var e = estimator()
    #expect(e.update(acceleration: Vector3(.nan, 0, -g), at: 0) == .rejected(.notFinite))
    #expect(e.update(acceleration: Vector3(.infinity, 0, -g), at: 0) == .rejected(.notFinite))
    #expect(e.update(acceleration: .zero, at: 0) == .rejected(.zeroVector))
    #expect(e.isCapturingBaseline)
    _ = e.update(acceleration: Vector3(0, 0, -g), at: 0)
    #expect(e.update(acceleration: .zero, at: 1) == .rejected(.zeroVector))
    #expect(e.update(acceleration: Vector3(0, 0, -g), at: 2) == .tilt(.zero, newBaseline: nil))
}

@Test func recaptureTakesANewBaseline() throws {
    var e = estimator()
    _ = e.update(acceleration: Vector3(0, 0, -g), at: 0)
    e.recapture()
    #expect(e.isCapturingBaseline)
    guard case .tilt(let tilt, let frame?) = e.update(acceleration: Vector3(0, -g, 0), at: 1) else {
        Issue.record("no new baseline"); return
    }
    #expect(tilt == .zero)
    #expect(frame.up == Vector3(0, 1, 0))
}

/// Section 5: a tablet in portrait (x within 45 degrees of vertical) takes e1 from Y.
@Test(arguments: [
    // (baseline, expected e1): left edge up reads +x (x points down) -> +Y;
    // right edge up reads -x (x points up) -> -Y.
    (Vector3(g, 0, 0), Vector3(0, 1, 0)),
    (Vector3(-g, 0, 0), Vector3(0, -1, 0)),
    (Vector3(g * _cos(0.5), 0, -g * _sin(0.5)), Vector3(0, 1, 0)),
])
func portraitFallback(_ baseline: Vector3, _ expectedE1: Vector3) throws {
    let frame = try #require(TiltFrame(baselineUp: -baseline))
    #expect(frame.portrait)
    #expect((frame.pitchAxis - expectedE1).length < 1e-12)
    #expect(abs(frame.rollAxis.dot(frame.up)) < 1e-12)
    #expect(abs(frame.pitchAxis.dot(frame.up)) < 1e-12)
}

@Test func portraitRollIsTheInPlaneTurn() throws {
    // Left edge up, upright: (g, 0, 0). Turning it clockwise in its own plane by t as the
    // viewer sees it lowers the viewer-right edge: dRoll = +t, dPitch = 0.
    var e = estimator()
    _ = e.update(acceleration: Vector3(g, 0, 0), at: 0)
    guard case .tilt(let tilt, _) = e.update(acceleration: Vector3(g * _cos(t), g * _sin(t), 0), at: 1) else {
        Issue.record("no tilt"); return
    }
    #expect(abs(tilt.dRollRadians - t) < 1e-12)
    #expect(abs(tilt.dPitchRadians) < 1e-12)
}

@Test(arguments: [0.70, 0.7071])
func noFallbackAtOrBelow45Degrees(_ xUp: Double) throws {
    let up = Vector3(xUp, (1 - xUp * xUp).squareRoot(), 0)
    let frame = try #require(TiltFrame(baselineUp: up))
    #expect(!frame.portrait)
}

@Test func oneEuroFilterSmoothsAndFollows() {
    var f = OneEuroFilter(.defaults)
    #expect(f.filter(1, at: 0) == 1)
    let step = f.filter(0, at: 0.1)
    #expect(step > 0 && step < 1)
    var last = step
    for i in 2...200 { last = f.filter(0, at: Double(i) * 0.1) }
    #expect(abs(last) < 1e-6)
    // Time that does not advance leaves the output alone.
    #expect(f.filter(5, at: 20.0) == last)
}

@Test func filterNoneIsPassThroughAndOneEuroLags() throws {
    var plain = estimator()
    var smooth = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 1, filter: .oneEuro(.defaults)))
    let base = Vector3(0, 0, -g)
    let tilted = Vector3(g * _sin(t), 0, -g * _cos(t))
    // Lying still for half a second: the filtered estimator's baseline comes from rest.
    for i in 0...50 {
        _ = plain.update(acceleration: base, at: Double(i) * 0.01)
        _ = smooth.update(acceleration: base, at: Double(i) * 0.01)
    }
    guard case .tilt(let a, _) = plain.update(acceleration: tilted, at: 0.516),
        case .tilt(let b, _) = smooth.update(acceleration: tilted, at: 0.516)
    else {
        Issue.record("no tilt"); return
    }
    #expect(abs(a.dRollRadians - t) < 1e-12)
    #expect(b.dRollRadians > 0 && b.dRollRadians < a.dRollRadians)
}
