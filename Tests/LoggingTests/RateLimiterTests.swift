import Testing

@testable import Logging

@Test func aCauseIsAllowedAgainOnceItsIntervalHasPassed() {
    var limiter = RateLimiter(interval: 5)
    #expect(limiter.interval == 5)
    #expect(limiter.allow("bad sample", now: 100).allowed)
    #expect(!limiter.allow("bad sample", now: 104.999).allowed)
    let again = limiter.allow("bad sample", now: 105)
    #expect(again.allowed && again.suppressedSinceLast == 1, "exactly one interval later")
}

@Test func theSuppressedCountIsToldOnceAndStartsAgain() {
    var limiter = RateLimiter()
    #expect(limiter.allow("a", now: 0) == (true, 0))
    for t in [0.1, 0.2, 0.3] { #expect(limiter.allow("a", now: t) == (false, 0)) }
    #expect(limiter.allow("a", now: 1.5) == (true, 3))
    #expect(limiter.allow("a", now: 3) == (true, 0), "nothing was held back since the last line")
}

@Test func causesAreCountedApart() {
    var limiter = RateLimiter()
    #expect(limiter.allow("a", now: 0).allowed)
    #expect(limiter.allow("b", now: 0.1).allowed)
    #expect(!limiter.allow("b", now: 0.2).allowed)
    #expect(!limiter.allow("b", now: 0.3).allowed)
    #expect(!limiter.allow("a", now: 0.4).allowed)
    #expect(limiter.allow("a", now: 1).suppressedSinceLast == 1)
    #expect(limiter.allow("b", now: 1.1).suppressedSinceLast == 2)
}

@Test func aClockThatStepsBackDoesNotOpenTheGate() {
    // `now` earlier than the last line is less than an interval after it.
    var limiter = RateLimiter()
    #expect(limiter.allow("a", now: 10).allowed)
    #expect(!limiter.allow("a", now: 2).allowed)
}

@Test func aBurstLetsThatManyLinesThroughPerInterval() {
    var limiter = RateLimiter(interval: 1, burst: 3)
    #expect(limiter.burst == 3)
    for t in [0.0, 0.1, 0.2] { #expect(limiter.allow("a", now: t).allowed) }
    #expect(!limiter.allow("a", now: 0.3).allowed)
    #expect(!limiter.allow("a", now: 0.99).allowed)
    let again = limiter.allow("a", now: 1.0)
    #expect(again.allowed && again.suppressedSinceLast == 2, "one interval after the first of the three")
    #expect(!limiter.allow("a", now: 1.05).allowed, "the lines at 0.1 and 0.2 are still within the interval")
    #expect(limiter.allow("a", now: 1.1).allowed)
    // A cause that calls without pause gets `burst` lines per interval, never more.
    var lines = 0
    for i in 0..<3000 where limiter.allow("b", now: Double(i) / 1000).allowed { lines += 1 }
    #expect(lines == 9)
}
