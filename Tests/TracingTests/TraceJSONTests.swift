import FoundationEssentials
import Testing

@testable import Tracing

func decode<R: Decodable>(_ type: R.Type, _ line: [UInt8]) throws -> R {
    try JSONDecoder().decode(R.self, from: Data(line))
}

let awkwardNumbers: [Double] = [
    0, -0.0, 1, -1, 175, 233.33333333333334, 0.1, 1e-7, -3.0e-12, 123456789.123, 1e15, 2.5e300,
    Double.leastNonzeroMagnitude, -9.80665, 0.019154 * 504,
]

@Test func recordsDecodeToTheSameValuesBitForBit() throws {
    for v in awkwardNumbers {
        let sample = TraceRecord.Sample(
            t: v, seq: 42, accel: [v, -v, 9.81], dpitch: v, droll: -v, focal: [175 + v, v])
        let got = try decode(TraceRecord.Sample.self, TraceRecord.line(sample))
        #expect(got == sample)
        #expect(got.dpitch.bitPattern == sample.dpitch.bitPattern && got.droll.bitPattern == sample.droll.bitPattern)
        let frame = TraceRecord.Frame(t: v, frame: 7, focal: [v, 1], dots: 175, pixels: 56594, published: v + 1)
        #expect(try decode(TraceRecord.Frame.self, TraceRecord.line(frame)) == frame)
        let baseline = TraceRecord.Baseline(t: v, up: [0, 0.9659258262890685, v])
        #expect(try decode(TraceRecord.Baseline.self, TraceRecord.line(baseline)) == baseline)
        let reading = TraceRecord.Reading(t: v, accel: [v, 2, 3], use: "rejected", reason: "magnitude \"0\"\n\u{1}")
        #expect(try decode(TraceRecord.Reading.self, TraceRecord.line(reading)) == reading)
        let gyro = TraceRecord.Gyro(t: v, anglvel: [v, -v, 0.0174533])
        #expect(try decode(TraceRecord.Gyro.self, TraceRecord.line(gyro)) == gyro)
    }
}

/// Foundation's encoder with sorted keys: the reference the trace's own encoding is
/// checked against.
func referenceLine<R: Encodable>(_ record: R) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    return [UInt8](try encoder.encode(record)) + [0x0A]
}

@Test func everyRecordIsTheJSONFoundationWritesForOrdinaryValues() throws {
    let sample = TraceRecord.Sample(
        t: 1.25, seq: 3, accel: [0.5, -9.75, 1], dpitch: 0.1, droll: -0.2, focal: [175, 233.5])
    #expect(try TraceRecord.line(sample) == referenceLine(sample))
    let frame = TraceRecord.Frame(t: 2, frame: 9, focal: [100.5, 3], dots: 12, pixels: 3000, published: 2.0001)
    #expect(try TraceRecord.line(frame) == referenceLine(frame))
    let gyro = TraceRecord.Gyro(t: 0.01, anglvel: [0.5, -0.25, 0])
    #expect(try TraceRecord.line(gyro) == referenceLine(gyro))
    let reading = TraceRecord.Reading(t: 0.5, accel: [0, 1, 2], use: "baseline")
    #expect(try TraceRecord.line(reading) == referenceLine(reading))
    let recapture = TraceRecord.Recapture(t: 3, reason: "SIGUSR1")
    #expect(try TraceRecord.line(recapture) == referenceLine(recapture))
    let dropped = TraceRecord.Dropped(t: 4.5, focal: [1, 2], reason: "the reader is behind")
    #expect(try TraceRecord.line(dropped) == referenceLine(dropped))
}

/// The header, nested records, optionals and matrices included, reads back equal and is
/// Foundation's JSON.
@Test func aHeaderReadsBackEqual() throws {
    var sensor = TraceRecord.Sensor(selector: "auto", rate: 60)
    sensor.mountMatrix = [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]
    sensor.mountMatrixSource = "udev:ACCEL_MOUNT_MATRIX"
    let h = TraceRecord.Header(
        sensor: sensor,
        card: .init(width: 350, height: 350 * 2 / 3, scale: 2, origin: [175, 350 * 2 / 3]),
        mapper: .init(rollRange: 0.2, pitchRange: 0.1, maxOffset: 100, clamp: true),
        attitude: .init(baselineSamples: 10, filter: "none", minCutoff: 1, beta: 0.5, dCutoff: 1),
        sink: .init(type: "null", fps: 60), shimmerd: "0.1.0",
        run: .init(started: "2025-01-01T00:00:00Z", part: 0))
    #expect(try decode(TraceRecord.Header.self, TraceRecord.line(h)) == h)
    #expect(try TraceRecord.line(h) == referenceLine(h))
}

/// Control characters, C0, DEL and C1, are written as `\u00XX` (U+009B, CSI, among them);
/// the characters around them, and the text next to C1 in UTF-8 (U+00A0, U+00BF, U+0100),
/// are kept as they are; the literal reads back to the same string.
@Test(arguments: [
    ("a\u{9B}1m", "\"a\\u009b1m\""),
    ("\u{80}\u{9F}\u{85}", "\"\\u0080\\u009f\\u0085\""),
    ("\u{7F}\u{1B}[2J\u{7}\r\n", "\"\\u007f\\u001b[2J\\u0007\\u000d\\n\""),
    ("\u{A0}\u{BF}\u{100}é\u{2028}", "\"\u{A0}\u{BF}\u{100}é\u{2028}\""),
    ("q\"b\\", "\"q\\\"b\\\\\""),
])
func controlCharactersAreEscapedAndTheRestIsKept(text: String, literal: String) throws {
    var out: [UInt8] = []
    TraceJSON.appendString(text, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == literal)
    #expect(!out.contains { $0 < 0x20 || $0 == 0x7F })
    #expect(try JSONDecoder().decode(String.self, from: Data(out)) == text)
}
