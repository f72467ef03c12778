// FuzzSupport: what every fuzz target shares.
//
// A fuzz target checks properties of a parser's result, not only that it returns. A
// property that does not hold is reported like a crash: one line on stderr naming the
// property and the values, then abort(), which libFuzzer turns into a crash-* file
// holding the input (scripts/fuzz.sh; docs/RELIABILITY.md "Fuzzing").
// Must not import anything of shimmerd: each target imports the module it attacks.
import CLibFuzzer
import Glibc

/// Runs libFuzzer on the executable's `LLVMFuzzerTestOneInput` with the process's
/// arguments (`-runs=N`, corpus directories, ...; see `-help=1`) and exits with its
/// status: 0, or 1 with a crash-* file when the test crashed or a property failed.
public func runFuzzer() -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
}

/// Aborts with `message` unless `condition` holds.
public func require(_ condition: Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    let text = Array("property violated at \(file):\(line): \(message())\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// The fuzzer's input as bytes (libFuzzer passes a null pointer for the empty input).
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// `s` with control characters and non-ASCII shown as Swift escapes, for messages.
public func quoted(_ s: some StringProtocol) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case " "..."~": out.unicodeScalars.append(u)
        default: out += "\\u{\(String(u.value, radix: 16))}"
        }
    }
    return out + "\""
}
