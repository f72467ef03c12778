// Fuzzes `SysfsNumber.parse` (docs/TILT.md, "Readings in m/s^2": C-locale numbers in
// sysfs attributes, udev properties and configuration values).
//
// Properties, beyond returning:
// - differential against C's strtod (this process never calls setlocale, so it runs in
//   the C locale): a parsed value is what strtod reads from the same trimmed text, which
//   it consumes whole; and text made only of digits, signs, '.', 'e' and 'E' that strtod
//   consumes whole as a finite number within the limit must parse;
// - a parsed value is finite and within the limit; the limit is respected for both the
//   default (2^31) and the mount matrix's (1e6);
// - ASCII white space around the text (the kernel's trailing newline, CRLF) changes
//   nothing.
import FuzzSupport
import Glibc
import Motion

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSysfsNumber(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let text = String(decoding: input, as: UTF8.self)
    for limit in [SysfsNumber.defaultLimit, 1e6] {
        let result = SysfsNumber.parse(text, limit: limit)
        check(text, limit: limit, result)
        for (before, after) in [(" ", "\n"), ("\t\r\n ", "\r\n"), ("", " \t")] {
            let wrapped = SysfsNumber.parse(before + text + after, limit: limit)
            require(wrapped == result, "white space \(quoted(before))...\(quoted(after)) around \(quoted(text)) "
                    + "changes \(result) to \(wrapped)")
        }
    }
    return 0
}

private func check(_ text: String, limit: Double, _ result: Result<Double, SysfsNumber.Failure>) {
    let core = trimmedASCII(Array(text.utf8))
    let reference = strtodWhole(Array(core))
    switch result {
    case .success(let v):
        require(v.isFinite && abs(v) <= limit, "\(v) from \(quoted(text)) is beyond \(limit)")
        require(reference.map { $0 == v } ?? false,
                "parsed \(quoted(text)) as \(v), strtod reads \(reference.map { "\($0)" } ?? "something else")")
    case .failure(let failure):
        let plain = !core.isEmpty && core.allSatisfy { "0123456789+-.eE".utf8.contains($0) }
        if plain, let r = reference, r.isFinite, abs(r) <= limit {
            require(false, "refused \(quoted(text)) (\(failure)) but strtod reads \(r)")
        }
        if case .empty = failure { require(core.isEmpty, "\(quoted(text)) is not empty") }
    }
}

/// The value strtod reads when it consumes all of `text` (no NUL inside), else nil.
private func strtodWhole(_ text: [UInt8]) -> Double? {
    guard !text.isEmpty, !text.contains(0) else { return nil }
    return (text + [0]).withUnsafeBufferPointer { buffer -> Double? in
        buffer.withMemoryRebound(to: CChar.self) { chars -> Double? in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(chars.baseAddress!, &end)
            guard let end, end - UnsafeMutablePointer(mutating: chars.baseAddress!) == text.count else { return nil }
            return v
        }
    }
}

/// Drops space, tab, CR and LF bytes at both ends.
private func trimmedASCII(_ b: [UInt8]) -> ArraySlice<UInt8> {
    let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    guard let first = b.firstIndex(where: { !space($0) }), let last = b.lastIndex(where: { !space($0) }) else { return [] }
    return b[first...last]
}
