import Glibc
import Testing
@testable import Logging

/// Reads what a handler wrote into a pipe.
func logged(_ body: (Logger) -> Void, journald: Bool) -> String {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]) }
    var st = stat()
    fstat(fds[1], &st)
    if journald {
        setenv("JOURNAL_STREAM", "\(st.st_dev):\(st.st_ino)", 1)
    } else {
        unsetenv("JOURNAL_STREAM")
    }
    let handler = LogHandler(minimumLevel: .info, fd: fds[1])
    unsetenv("JOURNAL_STREAM")
    body(Logger(label: "shimmerd", handler: handler))
    close(fds[1])
    var out = [UInt8](repeating: 0, count: 4096)
    let n = read(fds[0], &out, out.count)
    return String(decoding: out[0..<max(n, 0)], as: UTF8.self)
}

@Test(.serialized, arguments: [true, false])
func journaldGetsPriorityPrefixes(_ journald: Bool) {
    let text = logged({ log in
        log.warning("sensor value bad", ["sensor.device": "iio:device0"])
        log.debug("not shown at info")
        log.error("two\nlines")
    }, journald: journald)
    if journald {
        #expect(text == "<4>sensor value bad sensor.device=iio:device0\n<3>two lines\n")
    } else {
        #expect(text == "shimmerd: warning: sensor value bad sensor.device=iio:device0\nshimmerd: error: two lines\n")
    }
}

@Test func rateLimiterAllowsOnePerSecondPerCause() {
    var limiter = RateLimiter()
    #expect(limiter.allow("a", now: 0).allowed)
    #expect(!limiter.allow("a", now: 0.5).allowed)
    #expect(!limiter.allow("a", now: 0.9).allowed)
    #expect(limiter.allow("b", now: 0.9).allowed)
    let again = limiter.allow("a", now: 1.0)
    #expect(again.allowed && again.suppressedSinceLast == 2)
}
