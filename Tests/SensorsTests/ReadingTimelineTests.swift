import Testing
@testable import Sensors

/// ReadingTimeline: a wakeup's newest scan at `now`, the others before it by their
/// timestamps, times in order and never past `now`.
@Test func scansArePlacedBeforeTheWakeupByTheirTimestamps() {
    var line = ReadingTimeline()
    line.begin(now: 10, newestNs: 5_000_000_000)
    #expect(abs(line.time(ofNs: 4_980_000_000) - 9.98) < 1e-9)
    #expect(abs(line.time(ofNs: 4_990_000_000) - 9.99) < 1e-9)
    #expect(line.time(ofNs: 5_000_000_000) == 10)
    #expect(line.time(ofNs: nil) == 10)                 // polled: read now
}

@Test func timesNeverGoBackNorPassTheWakeup() {
    var line = ReadingTimeline()
    line.begin(now: 10, newestNs: 5_000_000_000)
    #expect(line.time(ofNs: 5_000_000_000) == 10)
    // An early wakeup: its oldest scan would fall before a time already given.
    line.begin(now: 10.005, newestNs: 5_030_000_000)
    #expect(line.time(ofNs: 5_010_000_000) == 10)
    #expect(line.time(ofNs: 5_020_000_000) == 10)
    #expect(line.time(ofNs: 5_030_000_000) == 10.005)
    // A scan 2 s or more before the newest: a clock that restarted, not a batch.
    line.begin(now: 10.5, newestNs: 9_000_000_000)
    #expect(line.time(ofNs: 6_000_000_000) == 10.5)
    // A timestamp newer than the newest, and nonsense that must not trap.
    line.begin(now: 11, newestNs: 6_000_000_000)
    #expect(line.time(ofNs: 7_000_000_000) == 11)
    line.begin(now: 12, newestNs: .max)
    #expect(line.time(ofNs: .min) == 12)
    #expect(line.time(ofNs: .max) == 12)
}
