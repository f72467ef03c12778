/// Parses the numbers found in IIO sysfs attributes, udev properties and configuration
/// values with the C locale whatever the process locale is (docs/TILT.md, "Readings in
/// m/s^2"): an optional sign, digits with at most one `.`, an optional exponent. Leading and
/// trailing ASCII white space (the kernel's trailing newline) is ignored.
///
/// Rejected: empty text, `nan`, `inf`, hex floats, a decimal comma, anything else that
/// is not a number, and values whose magnitude exceeds `limit`.
package enum SysfsNumber {
    /// The largest magnitude accepted by default. A raw IIO value fits 32 bits of
    /// storage in every driver we know (hid-sensor-accel-3d: `le:s32/32`), so anything
    /// bigger than 2^31 is garbage rather than a reading.
    package static let defaultLimit: Double = 2_147_483_648

    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case notANumber(String)
        case notFinite(String)
        case tooLarge(String)

        package var description: String {
            switch self {
            case .empty: "empty value"
            case .notANumber(let t): "not a number: \"\(t)\""
            case .notFinite(let t): "not finite: \"\(t)\""
            case .tooLarge(let t): "out of range: \"\(t)\""
            }
        }
    }

    package static func parse(_ text: Substring, limit: Double = defaultLimit) -> Result<Double, Failure> {
        // The form of every `_raw` attribute, read 100 times a second per axis: no
        // allocation, no Unicode. Anything else takes the general path below.
        if let v = plainInteger(text.utf8) {
            return abs(v) <= limit ? .success(v) : .failure(.tooLarge(String(text.trimmingASCIIWhitespace())))
        }
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty { return .failure(.empty) }
        let s = String(trimmed)
        let lowered = s.lowercased()
        if lowered.contains("nan") || lowered.contains("inf") { return .failure(.notFinite(s)) }
        guard isDecimalSyntax(trimmed.utf8), let v = Double(s) else { return .failure(.notANumber(s)) }
        guard v.isFinite else { return .failure(.tooLarge(s)) }
        guard abs(v) <= limit else { return .failure(.tooLarge(s)) }
        return .success(v)
    }

    package static func parse(_ text: String, limit: Double = defaultLimit) -> Result<Double, Failure> {
        parse(text[...], limit: limit)
    }

    /// `\s* [+-]? digits{1,15} \s*` as its exact value (15 digits are exact in a Double).
    private static func plainInteger(_ bytes: Substring.UTF8View) -> Double? {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        while i < end, isSpace(bytes[i]) { i = bytes.index(after: i) }
        var negative = false
        if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i = bytes.index(after: i)
        }
        var value: Int64 = 0
        var digits = 0
        while i < end, bytes[i] >= 48, bytes[i] <= 57 {
            value = value * 10 + Int64(bytes[i] - 48)
            digits += 1
            if digits > 15 { return nil }
            i = bytes.index(after: i)
        }
        guard digits > 0 else { return nil }
        while i < end, isSpace(bytes[i]) { i = bytes.index(after: i) }
        guard i == end else { return nil }
        return negative ? -Double(value) : Double(value)  // "-0" stays -0.0, as Double("-0")
    }

    /// `[+-]? digits* ('.' digits*)? ([eE] [+-]? digits+)?` with at least one digit in
    /// the mantissa: exactly what C-locale strtod accepts for decimals, minus hex,
    /// nan and inf.
    private static func isDecimalSyntax(_ bytes: Substring.UTF8View) -> Bool {
        var i = bytes.startIndex
        func peek() -> UInt8? { i < bytes.endIndex ? bytes[i] : nil }
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i = bytes.index(after: i) }
        var mantissaDigits = 0
        while let c = peek(), c >= 48, c <= 57 { mantissaDigits += 1; i = bytes.index(after: i) }
        if peek() == UInt8(ascii: ".") {
            i = bytes.index(after: i)
            while let c = peek(), c >= 48, c <= 57 { mantissaDigits += 1; i = bytes.index(after: i) }
        }
        guard mantissaDigits > 0 else { return false }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            i = bytes.index(after: i)
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i = bytes.index(after: i) }
            var expDigits = 0
            while let c = peek(), c >= 48, c <= 57 { expDigits += 1; i = bytes.index(after: i) }
            guard expDigits > 0 else { return false }
        }
        return i == bytes.endIndex
    }
}

extension Substring {
    /// Drops spaces, tabs, CR and LF at both ends (the kernel ends attributes with "\n").
    ///
    /// Works on Unicode scalars, not `Character`s: "\r\n" is a single grapheme cluster,
    /// and so is a space followed by a combining mark, so a `Character` comparison would
    /// keep a CRLF ending (Fuzz/FuzzSysfsNumber checks it).
    package func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return self[endIndex...] }
        return Substring(scalars[first...last])
    }
}
