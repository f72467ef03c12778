import Testing

@testable import Output

/// The retry policy of the framebuffer and drm sinks: a pure value over given times.
struct RetryBackoffTests {
    @Test func doublesToTheMaximumAndReportsEachCauseOnce() {
        var r = RetryBackoff(first: 0.5, max: 4)
        #expect(r.isDue(0))
        var reported: [Bool] = []
        var now = 0.0
        var waits: [Double] = []
        for i in 0..<6 {
            reported.append(r.failed(i < 3 ? "EBUSY" : "ENOENT", at: now))
            waits.append(r.retryAt - now)
            #expect(!r.isDue(now) && r.isDue(r.retryAt))
            now = r.retryAt
        }
        #expect(waits == [0.5, 1, 2, 4, 4, 4])
        #expect(reported == [true, false, false, true, false, false])
    }

    @Test func successAndRestartStartOver() {
        var r = RetryBackoff(first: 0.5, max: 8)
        _ = r.failed("EBUSY", at: 0)
        _ = r.failed("EBUSY", at: 1)
        r.succeeded()
        #expect(r.failed("EBUSY", at: 10) && r.retryAt == 10.5, "after a success the same cause is news again")
        r.restart()
        #expect(r.isDue(-1e9))
        r.restart(at: 20)
        #expect(!r.isDue(19.9) && r.isDue(20))
        #expect(r.failed("EBUSY", at: 20) && r.retryAt == 20.5)
    }
}
