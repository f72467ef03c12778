import Motion
import Tracing

/// A small JSON value for the reports of `shimmerd sensors --json` and
/// `shimmerd monitor --json`. Keys keep insertion order so output is stable.
package indirect enum SensorJSON: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case int(Int)
    case string(String)
    case array([SensorJSON])
    case object([(String, SensorJSON)])

    package static func vector(_ v: Vector3) -> SensorJSON { .array([.number(v.x), .number(v.y), .number(v.z)]) }

    package static func matrix(_ m: MountMatrix) -> SensorJSON { .array(m.rows.map(vector)) }

    package static func optional(_ s: String?) -> SensorJSON { s.map(SensorJSON.string) ?? .null }

    /// Compact JSON text (one line).
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let d):
            if !d.isFinite {
                out += "null"
            } else if d == d.rounded(), abs(d) < 1e15 {
                out += String(Int(d))
            } else {
                out += "\(d)"
            }
        case .string(let s): Self.quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += "," }
                Self.quote(k, into: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }

    /// Tracing's escaping, the one of every JSON shimmerd writes.
    private static func quote(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        TraceJSON.appendString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}
