// Fuzzes `ConfigurationLoader.parse` (INI text, config/shimmerd.conf).
//
// Properties, beyond returning:
// - input that is not UTF-8 is refused before parsing, as `ConfigurationLoader.apply` does;
// - a failure is a configuration error (exit 78) naming `file:LINE` with LINE a line of
//   the input;
// - a configuration that parses renders (`check-config`'s output) to text that parses
//   again to the same value, and renders again to the same text;
// - line endings do not matter: the same text with CRLF line endings (a file written on
//   Windows; the parser trims CR like systemd's) gives the same configuration or the
//   same error.
import FuzzSupport
import Runtime

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = String(validating: bytes(data, size), as: UTF8.self) else { return 0 }
    let lines = text.unicodeScalars.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }

    let outcome = parse(text, file: "fuzz.conf")
    switch outcome {
    case .failure(let failure):
        require(failure.status == .configuration, "status \(failure.status) for \(quoted(failure.message))")
        let line = lineNumber(failure.message, file: "fuzz.conf")
        require(line.map { (1...lines).contains($0) } ?? false,
                "error does not name a line 1...\(lines) of the input: \(quoted(failure.message))")
    case .success(let config):
        let rendered = ConfigurationLoader.render(config)
        switch parse(rendered, file: "rendered.conf") {
        case .failure(let failure):
            require(false, "rendered configuration does not parse: \(quoted(failure.message))\n\(quoted(rendered))")
        case .success(let again):
            require(again == config, "rendered configuration parses to another value:\n\(quoted(rendered))")
            let twice = ConfigurationLoader.render(again)
            require(twice == rendered, "render is not stable:\n\(quoted(rendered))\n\(quoted(twice))")
        }
    }

    var crlf = ""
    crlf.unicodeScalars.reserveCapacity(text.unicodeScalars.count + lines)
    for u in text.unicodeScalars {
        if u == "\n" { crlf.unicodeScalars.append("\r") }
        crlf.unicodeScalars.append(u)
    }
    let crlfOutcome = parse(crlf, file: "fuzz.conf")
    require(crlfOutcome == outcome, "CRLF line endings change the outcome: \(describe(outcome)) vs \(describe(crlfOutcome))")
    return 0
}

private func parse(_ text: String, file: String) -> Result<Configuration, Failure> {
    var config = Configuration()
    do {
        try ConfigurationLoader.parse(text, file: file, into: &config)
        return .success(config)
    } catch {
        return .failure(error)
    }
}

/// LINE of a message that starts with "FILE:LINE: ".
private func lineNumber(_ message: String, file: String) -> Int? {
    guard message.hasPrefix(file + ":") else { return nil }
    let rest = message.utf8.dropFirst(file.utf8.count + 1)
    let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    guard !digits.isEmpty, rest.dropFirst(digits.count).first == UInt8(ascii: ":") else { return nil }
    return Int(String(decoding: digits, as: UTF8.self))
}

private func describe(_ r: Result<Configuration, Failure>) -> String {
    switch r {
    case .success(let c): "parsed: " + quoted(ConfigurationLoader.render(c))
    case .failure(let f): "failed: " + quoted(f.message)
    }
}
