/// Hand-written JSON for the records written many times a second (sample, frame,
/// baseline, reading, gyro): JSONEncoder allocates and walks metadata per record, which at
/// 100 Hz costs more than the rest of the sample's path. The output is the same JSON as
/// the Codable encoding with sorted keys (numbers in Swift's shortest round-trip form,
/// so readers get the bits back); the decoder reads both.
protocol FastJSONRecord {
    func appendJSON(to out: inout [UInt8])
}

extension TraceRecord {
    static func appendNumber(_ v: Double, to out: inout [UInt8]) {
        if v == 0 && v.sign == .minus {
            out.append(contentsOf: "-0.0".utf8)   // keep the sign: replays are bit for bit
        } else if v == v.rounded(), abs(v) < 1e15 {
            out.append(contentsOf: String(Int64(v)).utf8)
        } else {
            out.append(contentsOf: v.description.utf8)
        }
    }

    static func appendArray(_ values: [Double], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendNumber(v, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    static func appendKey(_ key: StaticString, first: Bool = false, to out: inout [UInt8]) {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: "\":".utf8)
    }

    /// A JSON string literal (escapes quotes, backslashes and control characters).
    static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension TraceRecord.Sample: FastJSONRecord {
    func appendJSON(to out: inout [UInt8]) {
        TraceRecord.appendKey("accel", first: true, to: &out)
        TraceRecord.appendArray(accel, to: &out)
        TraceRecord.appendKey("dpitch", to: &out)
        TraceRecord.appendNumber(dpitch, to: &out)
        TraceRecord.appendKey("droll", to: &out)
        TraceRecord.appendNumber(droll, to: &out)
        TraceRecord.appendKey("focal", to: &out)
        TraceRecord.appendArray(focal, to: &out)
        TraceRecord.appendKey("seq", to: &out)
        out.append(contentsOf: String(seq).utf8)
        TraceRecord.appendKey("t", to: &out)
        TraceRecord.appendNumber(t, to: &out)
        TraceRecord.appendKey("type", to: &out)
        TraceRecord.appendString(type, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension TraceRecord.Frame: FastJSONRecord {
    func appendJSON(to out: inout [UInt8]) {
        TraceRecord.appendKey("dots", first: true, to: &out)
        out.append(contentsOf: String(dots).utf8)
        TraceRecord.appendKey("focal", to: &out)
        TraceRecord.appendArray(focal, to: &out)
        TraceRecord.appendKey("frame", to: &out)
        out.append(contentsOf: String(frame).utf8)
        TraceRecord.appendKey("pixels", to: &out)
        out.append(contentsOf: String(pixels).utf8)
        if let published {
            TraceRecord.appendKey("published", to: &out)
            TraceRecord.appendNumber(published, to: &out)
        }
        TraceRecord.appendKey("t", to: &out)
        TraceRecord.appendNumber(t, to: &out)
        TraceRecord.appendKey("type", to: &out)
        TraceRecord.appendString(type, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension TraceRecord.Baseline: FastJSONRecord {
    func appendJSON(to out: inout [UInt8]) {
        TraceRecord.appendKey("t", first: true, to: &out)
        TraceRecord.appendNumber(t, to: &out)
        TraceRecord.appendKey("type", to: &out)
        TraceRecord.appendString(type, to: &out)
        TraceRecord.appendKey("up", to: &out)
        TraceRecord.appendArray(up, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension TraceRecord.Reading: FastJSONRecord {
    func appendJSON(to out: inout [UInt8]) {
        TraceRecord.appendKey("accel", first: true, to: &out)
        TraceRecord.appendArray(accel, to: &out)
        if let reason {
            TraceRecord.appendKey("reason", to: &out)
            TraceRecord.appendString(reason, to: &out)
        }
        TraceRecord.appendKey("t", to: &out)
        TraceRecord.appendNumber(t, to: &out)
        TraceRecord.appendKey("type", to: &out)
        TraceRecord.appendString(type, to: &out)
        TraceRecord.appendKey("use", to: &out)
        TraceRecord.appendString(use, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension TraceRecord.Gyro: FastJSONRecord {
    func appendJSON(to out: inout [UInt8]) {
        TraceRecord.appendKey("anglvel", first: true, to: &out)
        TraceRecord.appendArray(anglvel, to: &out)
        TraceRecord.appendKey("t", to: &out)
        TraceRecord.appendNumber(t, to: &out)
        TraceRecord.appendKey("type", to: &out)
        TraceRecord.appendString(type, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
