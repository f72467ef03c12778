import Foundation
import Testing

@testable import Tracing

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

private let header =
    #"{"type":"header","version":1,"sensor":{"rate":60},"card":{"width":350,"height":233.33333333333334,"scale":2,"origin":[175,233.33333333333334]},"mapper":{"roll_range":0.2,"pitch_range":0.1,"max_offset":100,"clamp":true}}"#
private let sample0 =
    #"{"type":"sample","t":0.5,"seq":0,"accel":[0,-9.8,0.1],"dpitch":0.01,"droll":-0.02,"focal":[165,243.33]}"#
private let sample1 =
    #"{"type":"sample","t":0.6,"seq":1,"accel":[0,-9.8,0.2],"dpitch":0.02,"droll":-0.03,"focal":[160,253.33]}"#

@Test func readsWhatTheWriterWrites() throws {
    let h = TraceRecord.Header(
        sensor: .init(selector: "auto", rate: 60),
        card: .init(width: 350, height: 350 * 2 / 3, scale: 2, origin: [175, 350 * 2 / 3]),
        mapper: .init(rollRange: 0.2, pitchRange: 0.1, maxOffset: 100, clamp: true),
        attitude: .init(baselineSamples: 10, filter: "none", minCutoff: 1, beta: 0.5, dCutoff: 1),
        sink: .init(type: "null", fps: 60), shimmerd: "0.1.0", run: .init(started: "2025-01-01T00:00:00Z", part: 0))
    let records: [[UInt8]] = [
        TraceRecord.line(h),
        TraceRecord.line(TraceRecord.Reading(t: 0.1, accel: [0, -9.8, 0], use: "baseline")),
        TraceRecord.line(TraceRecord.Baseline(t: 0.2, up: [0, 1, 0])),
        TraceRecord.line(
            TraceRecord.Sample(t: 0.2, seq: 0, accel: [0, -9.8, 0], dpitch: 0, droll: 0, focal: [175, 233.3])),
        TraceRecord.line(TraceRecord.Frame(t: 0.21, frame: 1, focal: [175, 233.3], dots: 175, pixels: 1000)),
        TraceRecord.line(TraceRecord.Gyro(t: 0.22, anglvel: [0.01, -0.02, 0.5])),
    ]
    let c = try TraceReader.parse(records.flatMap { $0 }, path: "t.jsonl")
    #expect(c.header == h)
    #expect(c.readings.count == 1 && c.baselines.count == 1 && c.samples.count == 1 && c.frames.count == 1)
    #expect(c.gyros == [TraceRecord.Gyro(t: 0.22, anglvel: [0.01, -0.02, 0.5])])
    #expect(c.timeSpan == 0.1...0.22)
    #expect(!c.truncatedLastLine && c.unknownTypes.isEmpty && c.lineCount == 6)
}

@Test(arguments: [
    0.1, 1.0 / 3.0, 233.33333333333334, -0.0123456789012345678, Double.leastNonzeroMagnitude, 1.7976931348623157e308,
    0.30000000000000004,
])
func numbersSurviveTheRoundTripBitForBit(_ v: Double) throws {
    let line = TraceRecord.line(
        TraceRecord.Sample(t: v, seq: 0, accel: [v, -v, v], dpitch: v, droll: -v, focal: [v, v]))
    let c = try TraceReader.parse(line, path: "t")
    let s = try #require(c.samples.first)
    #expect(
        s.t.bitPattern == v.bitPattern && s.dpitch.bitPattern == v.bitPattern && s.droll.bitPattern == (-v).bitPattern)
    #expect(s.accel.map(\.bitPattern) == [v, -v, v].map(\.bitPattern))
}

@Test func toleratesTruncatedLastLineUnknownTypeAndUnknownFields() throws {
    let text =
        header + "\n"
        + #"{"type":"sample","t":0.5,"seq":0,"accel":[0,-9.8,0.1],"dpitch":0.01,"droll":-0.02,"focal":[165,243.33],"gyro":[1,2,3],"note":{"x":1}}"#
        + "\n"
        + #"{"type":"temperature","t":0.55,"celsius":41.5}"# + "\n"
        + "\n"
        + sample1 + "\n"
        + #"{"type":"sample","t":0.7,"seq":2,"acc"#
    let c = try TraceReader.parse(bytes(text), path: "t.jsonl")
    #expect(c.samples.map(\.seq) == [0, 1])
    #expect(c.unknownTypes == ["temperature": 1])
    #expect(c.truncatedLastLine)
    #expect(c.lineCount == 6)
}

@Test func aCompleteLastLineWithoutNewlineIsKept() throws {
    let c = try TraceReader.parse(bytes(header + "\n" + sample0), path: "t")
    #expect(c.samples.count == 1 && !c.truncatedLastLine)
}

@Test(arguments: [
    ("{\"type\":\"sample\",\"t\":0.55,", "not a JSON object"),
    ("{\"type\":\"sample\",\"t\":0.55,\"seq\":1}", "record is missing \"accel\""),
    ("{\"t\":1}", "no \"type\""),
    ("[1,2,3]", "not a JSON object"),
    (
        "{\"type\":\"sample\",\"t\":\"soon\",\"seq\":1,\"accel\":[0,0,0],\"dpitch\":0,\"droll\":0,\"focal\":[0,0]}",
        "\"t\" is not a number"
    ),
    ("{\"type\":\"baseline\",\"t\":1,\"up\":[0,\"x\",1]}", "\"up[1]\" is not a number"),
])
func aMalformedMiddleLineIsAnErrorNamingTheLine(_ bad: String, _ why: String) {
    let text = header + "\n" + sample0 + "\n" + bad + "\n" + sample1 + "\n"
    #expect {
        try TraceReader.parse(bytes(text), path: "rec.jsonl")
    } throws: { error in
        guard let e = error as? TraceReadError else { return false }
        return e.line == 3 && e.description.hasPrefix("rec.jsonl:3: ") && e.message.contains(why)
    }
}

@Test func aMissingFileHasNoLine() {
    #expect {
        try TraceReader.read(path: "/nonexistent/trace.jsonl")
    } throws: { error in
        (error as? TraceReadError)?.line == nil
    }
}

@Test func aTraceToTheSpecAloneIsRead() throws {
    // Only the spec's fields: no attitude, sink, shimmerd or run in the header.
    let c = try TraceReader.parse(bytes(header + "\n" + sample0 + "\n"), path: "t")
    #expect(c.header?.card.width == 350 && c.header?.attitude == nil && c.header?.run == nil)
}

/// A `dropped` record as the frame publisher writes it (the daemon's raw sink to a FIFO
/// without a reader) reads back as itself, not as an unknown type.
@Test func readsADroppedFrame() throws {
    let dropped = TraceRecord.Dropped(t: 0.25, focal: [175, 233.3], reason: "no reader")
    let text =
        header + "\n" + #"{"type":"dropped","t":0.2,"focal":[160,240],"reason":"the reader is not taking frames"}"#
        + "\n"
    let c = try TraceReader.parse(bytes(text) + TraceRecord.line(dropped), path: "t.jsonl")
    #expect(
        c.dropped == [
            TraceRecord.Dropped(t: 0.2, focal: [160, 240], reason: "the reader is not taking frames"), dropped,
        ])
    #expect(c.unknownTypes.isEmpty && c.frames.isEmpty && c.timeSpan == 0.2...0.25)
}

/// One record of each kind, as the writer writes it.
private func example(_ kind: TraceRecord.Kind) -> any Encodable & Sendable {
    switch kind {
    case .header:
        TraceRecord.Header(
            sensor: .init(selector: "auto", rate: 60),
            card: .init(width: 350, height: 233, scale: 2, origin: [175, 233]),
            mapper: .init(rollRange: 0.2, pitchRange: 0.1, maxOffset: 100, clamp: true),
            attitude: nil, sink: nil, shimmerd: nil)
    case .baseline: TraceRecord.Baseline(t: 0.1, up: [0, 1, 0])
    case .recapture: TraceRecord.Recapture(t: 0.2, reason: "SIGUSR1")
    case .sample: TraceRecord.Sample(t: 0.3, seq: 0, accel: [0, -9.8, 0], dpitch: 0, droll: 0, focal: [175, 233])
    case .reading: TraceRecord.Reading(t: 0.4, accel: [0, -9.8, 0], use: "rejected", reason: "too far")
    case .gyro: TraceRecord.Gyro(t: 0.5, anglvel: [0, 0, 0.1])
    case .frame: TraceRecord.Frame(t: 0.6, frame: 1, focal: [175, 233], dots: 1, pixels: 1)
    case .dropped: TraceRecord.Dropped(t: 0.7, focal: [175, 233], reason: "no reader")
    case .demand: TraceRecord.Demand(t: 0.8, idle: true, reason: "nobody has claimed the frames")
    }
}

/// Every kind of record the writer writes is read back, under its own `type`, and written
/// again gives the same line: the writer and the reader know the same list.
@Test(arguments: TraceRecord.Kind.allCases)
func everyKindWrittenIsReadBack(_ kind: TraceRecord.Kind) throws {
    let line = TraceRecord.line(example(kind))
    let c = try TraceReader.parse(line, path: "t.jsonl")
    #expect(c.unknownTypes.isEmpty && c.entries.count == 1)
    let entry = try #require(c.entries.first)
    #expect(TraceRecord.line(entry.record) == line)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    #expect(object["type"] as? String == kind.rawValue)
}
