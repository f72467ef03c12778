import Testing

@testable import Logging

/// `FlapLimiter`: at most `burst` episodes (gone, then back) told per interval, each told
/// whole or not at all, the next told one counting the others. Time is passed in.
struct FlapLimiterTests {
    @Test func theFirstEpisodesAreToldWholeAndTheRestNotAtAll() {
        var flaps = FlapLimiter(interval: 60, burst: 3)
        var said: [String] = []
        for i in 0..<15 {
            let t = Double(i) * 1.5
            let gone = flaps.gone(now: t)
            if gone.say { said.append("gone \(gone.untold)") }
            if flaps.back() { said.append("back") }
        }
        #expect(said == ["gone 0", "back", "gone 0", "back", "gone 0", "back"])
    }

    @Test func afterTheIntervalTheNextEpisodeIsToldWithTheCountOfTheOthers() {
        var flaps = FlapLimiter(interval: 60, burst: 2)
        for t in [0.0, 1, 2, 3, 4] {
            _ = flaps.gone(now: t)
            _ = flaps.back()
        }
        let later = flaps.gone(now: 61)
        #expect(later.say && later.untold == 3)
        let back = flaps.back()
        #expect(back)
        let next = flaps.gone(now: 61.5)
        #expect(next.say && next.untold == 0, "the episode at 1 s is more than 60 s before: 2 within the interval")
    }

    @Test func aStateThatStaysGoneIsToldOnceAndItsReturnWithIt() {
        var flaps = FlapLimiter(interval: 60, burst: 1)
        let first = flaps.gone(now: 0), firstBack = flaps.back()
        #expect(first.say)
        #expect(firstBack, "its going was said, so its return is")
        let second = flaps.gone(now: 5), secondBack = flaps.back()
        #expect(!second.say)
        #expect(!secondBack, "its going was not said: neither is its return")
    }
}
