/// Text from outside (a device's sysfs `name` or firmware `label`, what a remote `iiod`
/// says, a file name, a bus value) made safe for a terminal and for a log: every C0
/// control character (U+0000 to U+001F: ESC, BEL, CR, LF, TAB, ...), DEL (U+007F) and C1
/// control character (U+0080 to U+009F, among them CSI, which a terminal also obeys) is
/// written as `\xHH`, its code point in hex, so that no line can be split or forged and no
/// escape sequence reaches a terminal. Everything else, backslashes included, stays.
///
/// The one escaping of human-readable output: log lines (`LogHandler`), the lines of
/// `shimmerd sensors`, `monitor` and `monitor --dbus`, the error line a command exits
/// with, and the text of `plot`'s SVG. JSON output escapes for itself.
extension StringProtocol {
    package func escapingControlCharacters() -> String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return String(self) }
        var out = ""
        out.reserveCapacity(utf8.count + 16)
        for scalar in unicodeScalars {
            if scalar.isControlCharacter {
                let hex = String(scalar.value, radix: 16)
                out += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0, DEL or C1 (Unicode general category Cc).
    package var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
