import Testing

@testable import Motion

@Test func smootherClosesHalfTheDistanceInOneHalfLife() {
    var s = FocalSmoother(at: FocalPoint(x: 0, y: 0), halfLife: 0.1)
    s.target = FocalPoint(x: 100, y: -50)
    s.step(0.1)
    #expect(abs(s.position.x - 50) < 0.5)
    #expect(abs(s.position.y + 25) < 0.25)
}

@Test func smootherNeverOvershootsAndSettlesExactly() {
    var s = FocalSmoother(at: FocalPoint(x: 175, y: 233), halfLife: 0.06)
    s.target = FocalPoint(x: 275, y: 133)
    var previous = s.position
    for _ in 0..<200 {
        s.step(1.0 / 60)
        #expect(s.position.x >= previous.x - 1e-9 && s.position.x <= 275 + 1e-9)
        #expect(s.position.y <= previous.y + 1e-9 && s.position.y >= 133 - 1e-9)
        previous = s.position
    }
    #expect(s.isSettled)
    #expect(s.position == s.target)
}

@Test func smootherIsStableForLongSteps() {
    var s = FocalSmoother(at: FocalPoint(x: 0, y: 0), halfLife: 0.06)
    s.target = FocalPoint(x: 10, y: 10)
    s.step(5)  // a stalled loop must not fling the point
    #expect(s.isSettled && s.position == s.target)
}

@Test func stillnessNeedsQuietForTheWholeWindow() {
    var d = StillnessDetector(threshold: 0.5, after: 2)
    #expect(!d.isStill(at: 0))
    d.observe(FocalPoint(x: 100, y: 100), at: 0)
    d.observe(FocalPoint(x: 100.3, y: 99.8), at: 1)  // noise inside the threshold
    #expect(!d.isStill(at: 1.9))
    #expect(d.isStill(at: 2.0))
    d.observe(FocalPoint(x: 101, y: 100), at: 2.5)  // a real move
    #expect(!d.isStill(at: 4.4))
    #expect(d.isStill(at: 4.5))
}
