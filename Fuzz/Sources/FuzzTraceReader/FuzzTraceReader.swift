// Fuzzes `TraceReader.parse` (JSON Lines traces, docs/TRACES.md, "Records").
//
// Properties, beyond returning:
// - `lineCount` is the number of lines of the input, and every line is accounted for at
//   most once: records kept plus unknown records skipped is at most `lineCount`;
// - an error names a line of the input (1...lines) and says something;
// - what was read writes back: every record encoded with the writer's own
//   `TraceRecord.line` reads back to the same records, with nothing unknown and nothing
//   truncated. (This is the trace's round trip: replay and trace-as-sensor rely on it.)
//   Every record also goes through Foundation's JSONEncoder, the reference `line`
//   (`TraceJSON`, the records' Codable conformance) claims to match, and must read back
//   the same.
import FoundationEssentials
import FuzzSupport
import Tracing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    // A final newline ends the last line rather than starting an empty one.
    let newlines = input.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    let lines = newlines + (input.last == 0x0A || input.isEmpty ? 0 : 1)

    let contents: TraceContents
    do {
        contents = try TraceReader.parse(input, path: "fuzz.jsonl")
    } catch {
        require(error.line.map { (1...max(lines, 1)).contains($0) } ?? false,
                "error outside the input's \(lines) lines: \(error)")
        require(!error.message.isEmpty, "error without a message at line \(error.line ?? 0)")
        return 0
    }
    require(contents.lineCount == lines,
            "lineCount \(contents.lineCount) for \(lines) lines")
    let skipped = contents.unknownTypes.values.reduce(0, +)
    require(contents.entries.count + skipped <= contents.lineCount,
            "\(contents.entries.count) records + \(skipped) skipped from \(contents.lineCount) lines")
    require(contents.unknownTypes.values.allSatisfy { $0 > 0 }, "an unknown type counted 0 times")

    var written: [UInt8] = []
    for entry in contents.entries {
        written += line(entry)
        if let codable = codableLine(entry) {
            let back = try? TraceReader.parse(codable, path: "codable.jsonl")
            require(back?.entries == [entry], "JSONEncoder's form of a record reads differently: "
                    + String(decoding: codable, as: UTF8.self))
        }
    }
    do {
        let again = try TraceReader.parse(written, path: "written.jsonl")
        require(again.entries == contents.entries, "records written back read differently:\n"
                + String(decoding: written, as: UTF8.self))
        require(again.unknownTypes.isEmpty && !again.truncatedLastLine && again.lineCount == contents.entries.count,
                "records written back: \(again.unknownTypes) unknown, truncated \(again.truncatedLastLine)")
    } catch {
        require(false, "records written back do not read: \(error)\n" + String(decoding: written, as: UTF8.self))
    }
    return 0
}

/// The writer's line for one record.
private func line(_ entry: TraceEntry) -> [UInt8] { TraceRecord.line(entry.record) }

/// JSONEncoder's line for a record.
private func codableLine(_ entry: TraceEntry) -> [UInt8]? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    let data = try? encoder.encode(entry.record)
    guard let data else {
        require(false, "JSONEncoder cannot encode a record that was read: \(entry)")
        return nil
    }
    return [UInt8](data) + [0x0A]
}
