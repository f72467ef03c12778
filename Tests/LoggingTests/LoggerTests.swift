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
    let handler = DescriptorLogHandler(minimumLevel: .info, fd: fds[1])
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
        let text = logged(
            { log in
                log.warning("sensor value bad", ["sensor.device": "iio:device0"])
                log.debug("not shown at info")
                log.error("two\nlines")
            }, journald: journald)
        if journald {
            #expect(text == "<4>sensor value bad sensor.device=iio:device0\n<3>two\\x0alines\n")
        } else {
            #expect(
                text
                    == "shimmerd: warning: sensor value bad sensor.device=iio:device0\nshimmerd: error: two\\x0alines\n"
            )
        }
    }

    @Test func aLoggersOwnMetadataIsOnEachLineAndALinesValueWins() {
        let text = logged(
            { log in
                let sink = log.with(["sink.kind": "shm", "sink.name": "shimmerd"])
                sink.notice("frames published", ["sink.name": "card", "frames": "3"])
                sink.info("message\nwith a newline", ["path": "a\nb"])
            }, journald: false)
        #expect(
            text == "shimmerd: frames published frames=3 sink.kind=shm sink.name=card\n"
                + "shimmerd: message\\x0awith a newline path=a\\x0ab sink.kind=shm sink.name=shimmerd\n")
    }

    /// A device name from sysfs with a terminal escape, a bell, CR and LF: one line, and
    /// nothing a terminal obeys.
    @Test func controlCharactersInAMessageAndItsMetadataAreEscaped() {
        let name = "bmc150\u{1B}[2J\u{07}\r\nshimmerd: error: forged"
        let text = logged({ log in log.warning("using \(name)", ["sensor.name": name]) }, journald: true)
        let escaped = "bmc150\\x1b[2J\\x07\\x0d\\x0ashimmerd: error: forged"
        #expect(text == "<4>using \(escaped) sensor.name=\(escaped)\n")
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

@Test(arguments: [
    ("plain text, ümlaut, 日本, \\ stays", "plain text, ümlaut, 日本, \\ stays"),
    ("\u{1B}[31mred\u{07}", "\\x1b[31mred\\x07"),
    ("a\r\nb\tc\u{0}d", "a\\x0d\\x0ab\\x09c\\x00d"),
    ("del\u{7F} nel\u{85} csi\u{9B}2J", "del\\x7f nel\\x85 csi\\x9b2J"),
    ("\u{A0}nbsp and \u{2028} stay", "\u{A0}nbsp and \u{2028} stay"),
])
func controlCharactersAreWrittenAsHexEscapes(_ text: String, _ expected: String) {
    #expect(text.escapingControlCharacters() == expected)
    #expect(!expected.unicodeScalars.contains { $0.isControlCharacter })
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
