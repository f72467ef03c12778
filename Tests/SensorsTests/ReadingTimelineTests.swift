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
    #expect(line.time(ofNs: nil) == 10)  // polled: read now
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

/// A wakeup that comes late does not make its scans late: the device's clock is tied to
/// the caller's by the least delay seen, so scans keep the spacing they were taken at
/// however they are read; the tie may creep by the clocks' drift and is made again when
/// the device's clock jumps back.
@Test func scansReadLateKeepTheTimesTheyWereTakenAt() {
    var line = ReadingTimeline()
    line.begin(now: 10.001, newestNs: 5_000_000_000)  // read 1 ms after the scan
    #expect(abs(line.time(ofNs: 5_000_000_000) - 10.001) < 1e-9)
    // The next two scans read 120 ms late, in one burst (the tie may have crept by the
    // drift allowed, 1 ms a second: 0.14 ms here).
    line.begin(now: 10.140, newestNs: 5_020_000_000)
    #expect(abs(line.time(ofNs: 5_010_000_000) - 10.011) < 2e-4)
    #expect(abs(line.time(ofNs: 5_020_000_000) - 10.021) < 2e-4)
    // On time again: no gap, no pile-up.
    line.begin(now: 10.151, newestNs: 5_030_000_000)
    #expect(abs(line.time(ofNs: 5_030_000_000) - 10.031) < 2e-4)
    // Read sooner than ever: the tie follows at once.
    line.begin(now: 10.0405, newestNs: 5_040_000_000)
    #expect(abs(line.time(ofNs: 5_040_000_000) - 10.0405) < 1e-9)
    // A device clock that runs slow by 500 ppm over 100 s: its delay seems to grow, and
    // the tie creeps with it (at most 1 ms a second), so scans are not held back.
    line.begin(now: 110.0905, newestNs: 105_000_000_000)
    #expect(abs(line.time(ofNs: 105_000_000_000) - 110.0905) < 1e-6)
    // A clock that restarted: tied again at once.
    line.begin(now: 111, newestNs: 1_000_000_000)
    #expect(line.time(ofNs: 1_000_000_000) == 111)
    #expect(abs(line.time(ofNs: 1_000_000_000 + 10_000_000) - 111) < 1e-9)  // never past now
}

/// A device clock that stands still (every batch stamped alike) says nothing of when its
/// scans were taken: each wakeup's newest scan is placed at the wakeup, as without the tie.
@Test func aClockThatStandsStillIsTiedAtEveryWakeup() {
    var line = ReadingTimeline()
    line.begin(now: 10, newestNs: 5_010_000_000, accelerometerNs: 5_010_000_000)
    #expect(line.time(ofNs: 5_000_000_000) == 9.99 && line.time(ofNs: 5_010_000_000) == 10)
    line.begin(now: 10.5, newestNs: 5_010_000_000, accelerometerNs: 5_010_000_000)
    #expect(abs(line.time(ofNs: 5_000_000_000) - 10.49) < 1e-9)
    #expect(line.time(ofNs: 5_010_000_000) == 10.5)
    // A sibling gyroscope's scan read last time may be newer than this accelerometer
    // scan: that is no clock standing still, and the late wakeup keeps the scan's time.
    line.begin(now: 10.52, newestNs: 5_040_000_000, accelerometerNs: 5_030_000_000)
    line.begin(now: 10.68, newestNs: 5_040_000_000, accelerometerNs: 5_040_000_000)
    #expect(abs(line.time(ofNs: 5_040_000_000) - 10.52) < 1e-3)
}
