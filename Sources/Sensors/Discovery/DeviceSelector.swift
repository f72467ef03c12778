import Motion

/// `Sensor.device` (config/shimmerd.conf).
package enum DeviceSelector: Hashable, Sendable, CustomStringConvertible {
    /// The display accelerometer over the base one, then the lowest index.
    case auto
    /// `iio:deviceN`.
    case iioDevice(Int)
    /// `input:eventN`: the input device whose event node is /dev/input/eventN (an input
    /// accelerometer, a game controller's motion sensors).
    case inputEvent(Int)
    /// `name:NAME`, the sysfs `name` of an IIO device or an input device's name.
    case name(String)
    /// `label:LABEL`, the sysfs `label`.
    case label(String)
    /// `uri:LIBIIO-URI`: a libiio context, `auto` inside it.
    case uri(String)
    /// `trace:FILE`: replay a trace's readings (handled by the runtime, not here).
    case trace(String)

    package typealias ParseError = SelectorParseError

    package static func parse(_ text: String) -> Result<DeviceSelector, ParseError> {
        let t = String(text[...].trimmingASCIIWhitespace())
        let invalid = Result<DeviceSelector, ParseError>.failure(
            ParseError(key: "Sensor.device", value: text, expected: Self.forms))
        func rest(_ prefix: String) -> String? {
            guard t.hasPrefix(prefix) else { return nil }
            let r = String(t.dropFirst(prefix.count))
            return r.isEmpty ? nil : r
        }
        if t == "auto" { return .success(.auto) }
        if let n = rest("iio:device") {
            guard let i = Int(n), i >= 0, String(i) == n else { return invalid }
            return .success(.iioDevice(i))
        }
        if let n = rest("input:event") {
            guard let i = Int(n), i >= 0, String(i) == n else { return invalid }
            return .success(.inputEvent(i))
        }
        if let n = rest("name:") { return .success(.name(n)) }
        if let n = rest("label:") { return .success(.label(n)) }
        if let n = rest("uri:") { return .success(.uri(n)) }
        if let n = rest("trace:") { return .success(.trace(n)) }
        return invalid
    }

    /// The forms `parse` accepts.
    static let forms = "auto, iio:deviceN, input:eventN, name:NAME, label:LABEL, uri:LIBIIO-URI or trace:FILE"

    package var description: String {
        switch self {
        case .auto: "auto"
        case .iioDevice(let n): "iio:device\(n)"
        case .inputEvent(let n): "input:event\(n)"
        case .name(let n): "name:\(n)"
        case .label(let n): "label:\(n)"
        case .uri(let n): "uri:\(n)"
        case .trace(let n): "trace:\(n)"
        }
    }
}

/// A `Sensor.device` or `Sensor.gyro` text that names no device: the key, the text and the
/// forms the key accepts.
package struct SelectorParseError: Error, Sendable, CustomStringConvertible {
    package let key: String
    package let value: String
    package let expected: String
    package var description: String { "invalid \(key) \"\(value)\": expected \(expected)" }
}
