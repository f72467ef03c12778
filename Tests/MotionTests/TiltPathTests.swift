import Testing

@testable import Motion

@Test func theDemoPathFollowsTheAttitudeConventions() {
    // Roll turns the device clockwise (dRoll > 0), pitch brings the top edge toward the viewer.
    let path = TiltPath(
        basePitchRadians: 0,
        keyframes: [
            .init(t: 0, rollRadians: 0, pitchRadians: 0), .init(t: 1, rollRadians: 0.1, pitchRadians: 0),
            .init(t: 2, rollRadians: 0, pitchRadians: 0.1), .init(t: 3, rollRadians: 0, pitchRadians: 0),
        ])
    var e = AttitudeEstimator(AttitudeConfiguration(baselineSamples: 1, filter: .none))
    _ = e.update(acceleration: path.acceleration(at: 0), at: 0)
    guard case .tilt(let roll, _) = e.update(acceleration: path.acceleration(at: 1), at: 1),
        case .tilt(let pitch, _) = e.update(acceleration: path.acceleration(at: 2), at: 2)
    else {
        Issue.record("no tilt"); return
    }
    #expect(abs(roll.dRollRadians - 0.1) < 1e-9 && abs(roll.dPitchRadians) < 1e-9)
    #expect(abs(pitch.dPitchRadians - 0.1) < 1e-9 && abs(pitch.dRollRadians) < 1e-9)
}

@Test func aPathIsStillUntilItsFirstChangeOfPose() {
    #expect(TiltPath.demo.stillUntil == 1)
    let moving = TiltPath(
        basePitchRadians: 0,
        keyframes: [
            .init(t: 0, rollRadians: 0, pitchRadians: 0), .init(t: 2, rollRadians: 0.1, pitchRadians: 0),
        ])
    #expect(moving.stillUntil == 0)
    let resting = TiltPath(
        basePitchRadians: 0,
        keyframes: [
            .init(t: 0, rollRadians: 0.1, pitchRadians: 0), .init(t: 0.5, rollRadians: 0.1, pitchRadians: 0),
            .init(t: 3, rollRadians: 0.1, pitchRadians: 0), .init(t: 4, rollRadians: 0.1, pitchRadians: 0.2),
        ])
    #expect(resting.stillUntil == 3)
}
