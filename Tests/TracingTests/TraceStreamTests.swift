import Foundation
import TestSupport
import Testing

@testable import Tracing

private func sample(_ k: Int) -> String {
    #"{"type":"sample","t":\#(Double(k) / 100),"seq":\#(k),"accel":[0,-9.8,\#(k)],"dpitch":0,"droll":0,"focal":[175,233]}"#
}

private func streamed(_ path: String) throws(TraceReadError) -> (entries: [TraceEntry], stream: TraceStream) {
    let stream = try TraceStream(path: path)
    var entries: [TraceEntry] = []
    while let e = try stream.next() { entries.append(e) }
    return (entries, stream)
}

/// Read as it plays, a trace many chunks long gives the records `TraceReader.read` gives,
/// with the same line count, unknown types and partial last line, across chunk edges.
@Test func streamGivesWhatTheWholeReadGives() throws {
    var lines = (0..<3000).map(sample)  // about 300 KB: five chunks
    lines.insert(#"{"type":"future","t":1}"#, at: 700)
    lines.insert("", at: 1500)
    let text = lines.joined(separator: "\n") + "\n" + #"{"type":"sample","t":9"#  // a crash mid-write
    let scratch = ScratchDirectory("trace-stream")
    defer { scratch.remove() }
    let path = try scratch.write(text, to: "trace.jsonl")
    let whole = try TraceReader.read(path: path)
    let (entries, stream) = try streamed(path)
    #expect(entries == whole.entries && entries.count == 3000)
    #expect(stream.lineCount == whole.lineCount && stream.unknownTypes == ["future": 1])
    #expect(stream.truncatedLastLine && whole.truncatedLastLine && stream.isAtEnd)
}

/// A damaged line far into the file is the same error, with the same line number.
@Test func streamNamesADamagedLineAsTheWholeReadDoes() throws {
    var lines = (0..<2000).map(sample)
    lines[1234] = #"{"type":"sample","t":1e400}"#
    let scratch = ScratchDirectory("trace-stream")
    defer { scratch.remove() }
    let path = try scratch.write(lines.joined(separator: "\n") + "\n", to: "trace.jsonl")
    let whole = #expect(throws: TraceReadError.self) { try TraceReader.read(path: path) }
    let streamError = #expect(throws: TraceReadError.self) { try streamed(path) }
    #expect(whole != nil && streamError == whole && whole?.line == 1235)
}

/// A line longer than `maximumLineLength` is refused naming it, not read into memory whole.
@Test func streamRefusesALineLongerThanItsBound() throws {
    let scratch = ScratchDirectory("trace-stream")
    defer { scratch.remove() }
    let path = try scratch.write(
        sample(0) + "\n" + String(repeating: " ", count: TraceStream.maximumLineLength + 10) + "\n",
        to: "trace.jsonl")
    let error = #expect(throws: TraceReadError.self) { try streamed(path) }
    #expect(error?.line == 2 && error?.message.contains("longer than") == true)
}
