import Testing

@testable import PNG

@Test func delaysFollowTheTimesAndAddUpToTheRunToTheMillisecond() {
    let times = [0.0314, 0.0981, 0.1002, 2.5, 2.5666]
    let delays = APNG.delays(showingAt: times, until: 9)
    #expect(delays.map(\.numerator) == [67, 2, 2400, 67, 6433])
    #expect(delays.allSatisfy { $0.denominator == 1000 })
    #expect(delays.map { Int($0.numerator) }.reduce(0, +) == 9000 - 31)
}

@Test func aGapPastSixtyFiveSecondsIsGivenInSeconds() {
    #expect(
        APNG.delays(showingAt: [0, 100], until: 100.5) == [
            APNG.Delay(numerator: 100, denominator: 1),
            APNG.Delay(numerator: 500, denominator: 1000),
        ])
}
