import FoundationEssentials
import LinuxSystem

/// One record of a trace, as read back: the same `Codable` types the writer uses, one
/// case per `TraceRecord.Kind` (the switches below are exhaustive over both, so a kind
/// added to the list is a compile error until it is read).
package enum TraceEntry: Sendable, Equatable {
    /// Boxed: a header is many times larger than the other records, so every entry of a
    /// long trace would carry its size; unboxed, Swift 6.3's generated copy of this enum
    /// crashed once the header's sensor gained the gyroscope's fields.
    indirect case header(TraceRecord.Header)
    case baseline(TraceRecord.Baseline)
    case recapture(TraceRecord.Recapture)
    case sample(TraceRecord.Sample)
    case reading(TraceRecord.Reading)
    case gyro(TraceRecord.Gyro)
    case frame(TraceRecord.Frame)
    case dropped(TraceRecord.Dropped)
    case demand(TraceRecord.Demand)

    /// The record itself, as the writer takes it (`TraceRecord.line`).
    package var record: any Encodable & Sendable {
        switch self {
        case .header(let r): r
        case .baseline(let r): r
        case .recapture(let r): r
        case .sample(let r): r
        case .reading(let r): r
        case .gyro(let r): r
        case .frame(let r): r
        case .dropped(let r): r
        case .demand(let r): r
        }
    }

    /// The record's `t`, seconds (headers have none).
    package var t: Double? {
        switch self {
        case .header: nil
        case .baseline(let r): r.t
        case .recapture(let r): r.t
        case .sample(let r): r.t
        case .reading(let r): r.t
        case .gyro(let r): r.t
        case .frame(let r): r.t
        case .dropped(let r): r.t
        case .demand(let r): r.t
        }
    }
}

extension TraceEntry: Decodable {
    private enum TypeKey: String, CodingKey { case type }

    /// Reads `type` first, then the record of that kind from the same object. A type this
    /// version does not know is `UnknownRecordType` (the reader skips it).
    package init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        guard let kind = TraceRecord.Kind(rawValue: type) else { throw UnknownRecordType(type: type) }
        switch kind {
        case .header: self = .header(try .init(from: decoder))
        case .baseline: self = .baseline(try .init(from: decoder))
        case .recapture: self = .recapture(try .init(from: decoder))
        case .sample: self = .sample(try .init(from: decoder))
        case .reading: self = .reading(try .init(from: decoder))
        case .gyro: self = .gyro(try .init(from: decoder))
        case .frame: self = .frame(try .init(from: decoder))
        case .dropped: self = .dropped(try .init(from: decoder))
        case .demand: self = .demand(try .init(from: decoder))
        }
    }

    struct UnknownRecordType: Error {
        var type: String
    }
}

/// A trace read back: the records this version knows, in file order, and what was
/// skipped on the way.
package struct TraceContents: Sendable, Equatable {
    package var entries: [TraceEntry] = []
    /// Records of types this version does not know, by type: skipped (spec: readers
    /// ignore what they don't know).
    package var unknownTypes: [String: Int] = [:]
    /// The file ended in a partial line that did not parse (a crash mid-write): dropped.
    package var truncatedLastLine = false
    /// Lines in the file.
    package var lineCount = 0

    package init(entries: [TraceEntry] = []) {
        self.entries = entries
    }

    /// The first header: the run's.
    package var header: TraceRecord.Header? {
        for case .header(let h) in entries { return h }
        return nil
    }

    /// The records of one type, in file order (`records(TraceRecord.Sample.self)`).
    package func records<Record>(_ type: Record.Type) -> [Record] { entries.compactMap { $0.record as? Record } }

    package var samples: [TraceRecord.Sample] { records(TraceRecord.Sample.self) }
    package var baselines: [TraceRecord.Baseline] { records(TraceRecord.Baseline.self) }
    package var frames: [TraceRecord.Frame] { records(TraceRecord.Frame.self) }
    /// Frames rendered but not delivered (the sink was busy or had no reader).
    package var dropped: [TraceRecord.Dropped] { records(TraceRecord.Dropped.self) }
    package var readings: [TraceRecord.Reading] { records(TraceRecord.Reading.self) }
    package var gyros: [TraceRecord.Gyro] { records(TraceRecord.Gyro.self) }

    /// The first and last `t` of any record, seconds; nil when no record has one.
    package var timeSpan: ClosedRange<Double>? {
        var lo = Double.infinity, hi = -Double.infinity
        for e in entries {
            guard let t = e.t else { continue }
            lo = min(lo, t)
            hi = max(hi, t)
        }
        return lo <= hi ? lo...hi : nil
    }
}

/// A trace that cannot be read: where (file:line) and why. Commands exit 65 (bad input
/// data) with its description, or 66 when the file cannot be opened.
package struct TraceReadError: Error, CustomStringConvertible, Equatable {
    package var path: String
    /// 1-based; nil when the file itself could not be read.
    package var line: Int?
    package var message: String

    package var description: String {
        line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
    }
}

/// Reads JSON Lines traces (docs/TRACES.md, "Records").
///
/// Tolerant where a trace can legitimately be odd, strict where it is damaged:
/// - unknown fields are ignored (Codable skips them), unknown record types are skipped
///   and counted, blank lines are skipped;
/// - a last line without its newline that does not parse is what a crash mid-write
///   leaves: it is dropped and `truncatedLastLine` is set;
/// - any other line that is not a JSON object with a `type`, or a known record with a
///   missing or mistyped field, is an error naming the line.
package enum TraceReader {
    /// The latest `t` a record may have: seconds since the daemon started, so 10^10 s
    /// (317 years) is beyond any run, and every duration, frame count or plot coordinate
    /// derived from two times stays far from overflow.
    package static let maximumTime = 1e10

    /// Parses a whole trace from memory (pure). With `boundingTimes` (what `read` does), a
    /// record whose `t` is outside 0 ... `maximumTime` is an error naming its line.
    package static func parse(_ bytes: [UInt8], path: String, boundingTimes: Bool = false) throws(TraceReadError)
        -> TraceContents
    {
        var contents = TraceContents()
        let decoder = JSONDecoder()
        var start = 0
        var number = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline ?? bytes.count
            number += 1
            let line = bytes[start..<end]
            start = end + 1
            switch try parseLine(
                line, number: number, isLast: newline == nil, path: path, boundingTimes: boundingTimes,
                decoder: decoder, unknownTypes: &contents.unknownTypes)
            {
            case .entry(let entry): contents.entries.append(entry)
            case .skipped: continue
            case .partial: contents.truncatedLastLine = true
            }
        }
        contents.lineCount = number
        return contents
    }

    /// What one line of a trace holds.
    enum Line {
        case entry(TraceEntry)
        /// A blank line, or a record of a type this version does not know (counted).
        case skipped
        /// The last line, without its newline, did not parse: what a crash mid-write leaves.
        case partial
    }

    /// Parses line `number` (1-based, without its newline); `isLast`: the file ends in it
    /// without a newline. Shared by `parse` and `TraceStream`, so both say the same.
    static func parseLine(
        _ bytes: ArraySlice<UInt8>, number: Int, isLast: Bool, path: String, boundingTimes: Bool,
        decoder: JSONDecoder, unknownTypes: inout [String: Int]
    ) throws(TraceReadError) -> Line {
        var line = bytes
        if line.last == 0x0D { line = line.dropLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped }
        do {
            let entry = try decoder.decode(TraceEntry.self, from: Data(line))
            if boundingTimes, let t = entry.t, !(0...maximumTime).contains(t) {
                throw TraceReadError(path: path, line: number, message: "\"t\" = \(t) is outside 0 ... 1e10 s")
            }
            return .entry(entry)
        } catch let bad as TraceReadError {
            throw bad
        } catch let unknown as TraceEntry.UnknownRecordType {
            unknownTypes[unknown.type, default: 0] += 1
            return .skipped
        } catch {
            if isLast { return .partial }
            throw TraceReadError(path: path, line: number, message: unrepresentableNumber(in: line) ?? explain(error))
        }
    }

    /// The largest trace read whole, by `plot` and `replay` (about 5 million records;
    /// `Trace.max_size` rotates long recordings into files of a chosen size). A trace
    /// played as the sensor is read as it plays (`TraceStream`), so it has no such limit.
    package static let maximumFileSize = 1 << 30

    /// Reads and parses `path`. A file that cannot be read is an error without a line.
    package static func read(path: String) throws(TraceReadError) -> TraceContents {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readRegularFile(path, atMost: maximumFileSize) } catch {
            throw TraceReadError(path: path, line: nil, message: "cannot read: \(error)")
        }
        return try parse(bytes, path: path, boundingTimes: true)
    }

    /// Foundation only says "not valid JSON" of a line holding NaN, Infinity or 1e400: the
    /// first such token outside strings, named, or nil.
    static func unrepresentableNumber(in line: ArraySlice<UInt8>) -> String? {
        var inString = false, escaped = false
        var token: [UInt8] = []
        func verdict() -> String? {
            defer { token.removeAll(keepingCapacity: true) }
            guard !token.isEmpty else { return nil }
            let text = String(decoding: token, as: UTF8.self)
            if ["nan", "infinity", "-infinity", "+infinity", "inf", "-inf"].contains(text.lowercased()) {
                return "\(text) is not a JSON number (JSON has no NaN or infinity)"
            }
            if let v = Double(text), v.isInfinite { return "\(text) is beyond the range of a double" }
            return nil
        }
        for b in line {
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
                continue
            }
            let isTokenByte =
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == 0x2B || b == 0x2D || b == 0x2E
            if isTokenByte { token.append(b); continue }
            if let why = verdict() { return why }
            if b == 0x22 { inString = true }
        }
        return verdict()
    }

    /// One short phrase for a decoding error.
    static func explain(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return "not a trace record: \(error)" }
        func path(_ c: DecodingError.Context) -> String {
            c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
                .trimmingPrefix(".")
        }
        switch e {
        case .keyNotFound(let key, let c):
            let at = path(c)
            return key.stringValue == "type" && at.isEmpty
                ? "not a trace record: no \"type\""
                : "record is missing \"\(at.isEmpty ? "" : at + ".")\(key.stringValue)\""
        case .typeMismatch(let type, let c), .valueNotFound(let type, let c):
            return c.codingPath.isEmpty ? "not a JSON object" : "\"\(path(c))\" is not \(describe(type))"
        case .dataCorrupted(let c):
            guard c.codingPath.isEmpty else { return "\"\(path(c))\" is invalid: \(c.debugDescription)" }
            return "not a JSON object"
        @unknown default:
            return "not a trace record"
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type, is UInt64.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "of the expected type"
        }
    }
}

extension String {
    func trimmingPrefix(_ p: String) -> String { hasPrefix(p) ? String(dropFirst(p.count)) : self }
}
