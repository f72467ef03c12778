// Regression inputs of the configuration parser's properties under Fuzz/FuzzConfiguration
// (scripts/fuzz.sh, docs/RELIABILITY.md "Fuzzing"): each must keep them.
import Foundation
import Motion
import Testing

@testable import Runtime

/// The fuzzer's first seed: a CRLF file fails at line 2, or parses, like the same file
/// with LF. "\r\n" is one `Character`, so splitting lines on the `Character` "\n" would
/// read it as a single line ("malformed section header").
@Test func crlfLineEndingsReadLikeLF() throws {
    let crash = "[Card]\r\nwidth = -5\r\n"
    #expect(
        failure { _ = try parse(crash) }?.message == "test.conf:2: Card.width = \"-5\" is not a number from 1 to 10000")

    let lf =
        "# shimmerd\n[Sensor]\nrate = 100\nmount_matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1\n\n[Card]\nleft_label = Cash \n"
    let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
    let c = try parse(crlf)
    #expect(c == (try parse(lf)))
    #expect(
        c.sensor.rate == 100 && c.sensor.mountMatrix?.description == "0, 1, 0; -1, 0, 0; 0, 0, 1"
            && c.card.leftLabel == "Cash")
    #expect(failure { _ = try parse("[Card]\r\nwidth = 5\r\nbogus\r\n") }?.message.hasPrefix("test.conf:3: ") == true)
}

/// The round-trip property: a value starting with a combining mark after a tab reads
/// back from `check-config`'s `key = value`. A space followed by a combining mark is one
/// `Character`, which trimming by `Character` would keep, so the value would read back
/// with a leading space; trimming and `=` work on Unicode scalars.
@Test func renderedValueStartingWithCombiningMarkReadsBack() throws {
    let c = try parse("[Card]\nfont =\t\u{301}DejaVu\nleft_label = \u{301}\n")
    #expect(c.card.font == "\u{301}DejaVu" && c.card.leftLabel == "\u{301}")
    let again = try parse(ConfigurationLoader.render(c))
    #expect(again == c)
}
