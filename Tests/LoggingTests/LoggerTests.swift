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

/// JOURNAL_STREAM is the process's, and `logged` sets it: these tests take turns.
@Suite(.serialized) struct LogLineTests {
    @Test(arguments: [true, false])
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

    @Test func aLoggersOwnMetadataIsOnEachLineAndALinesValueWins() {
        let text = logged({ log in
            let sink = log.with(["sink.kind": "shm", "sink.name": "shimmerd"])
            sink.notice("frames published", ["sink.name": "card", "frames": "3"])
            sink.info("message\nwith a newline", ["path": "a\nb"])
        }, journald: false)
        #expect(text == "shimmerd: frames published frames=3 sink.kind=shm sink.name=card\n"
            + "shimmerd: message with a newline path=a b sink.kind=shm sink.name=shimmerd\n")
    }

    @Test func aMessageBelowTheLevelIsNeverBuilt() {
        var built = false
        func message() -> String {
            built = true
            return "expensive"
        }
        let text = logged({ log in log.debug(message()) }, journald: false)
        #expect(text.isEmpty)
        #expect(!built)
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

@Test func levelsOrderAsSyslogPriorities() {
    #expect(Logger.Level.error > .warning && Logger.Level.warning > .notice)
    #expect(Logger.Level.info > .debug)
    #expect(Logger.Level.warning.rawValue == 4 && Logger.Level.debug.description == "debug")
}

@Test(arguments: [(0, "0 samples"), (1, "1 sample"), (2, "2 samples")])
func countsNameTheirNoun(_ n: Int, _ text: String) {
    #expect(counted(n, "sample") == text)
    #expect(counted(1, "matrix", plural: "matrices") == "1 matrix")
    #expect(counted(3, "matrix", plural: "matrices") == "3 matrices")
}
