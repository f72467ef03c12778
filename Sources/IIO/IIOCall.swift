import CIIO
import Glibc

/// The one place that turns libiio return conventions into `IIOError`.
enum IIOCall {
    /// For calls returning a negative errno on failure (int, ssize_t, long).
    @discardableResult
    static func check<T: SignedInteger & FixedWidthInteger>(_ operation: String, _ target: @autoclosure () -> String,
                                        _ body: () -> T) throws(IIOError) -> T {
        while true {
            let r = body()
            if r >= 0 { return r }
            let code = Int32(truncatingIfNeeded: 0 - r)
            if code == EINTR { continue }
            throw IIOError(operation: operation, target: target(), code: code)
        }
    }

    /// For calls returning NULL and setting errno on failure.
    static func pointer<P>(_ operation: String, _ target: @autoclosure () -> String,
                           _ body: () -> P?) throws(IIOError) -> P {
        errno = 0
        if let p = body() { return p }
        let code = errno == 0 ? ENOENT : errno
        throw IIOError(operation: operation, target: target(), code: code)
    }

    /// Reads an attribute through a libiio `*_attr_read(..., char *dst, size_t len)`.
    /// libiio returns the byte count including the terminating NUL and drops the final
    /// character of the sysfs text (the kernel's newline). The text is what precedes the
    /// first NUL among the bytes libiio says it wrote.
    ///
    /// The buffer is on the stack and a short text (up to 15 bytes, as every `_raw`
    /// value is) is stored inside the String: poll mode reads three attributes 100 times
    /// a second without allocating.
    static func readString(_ operation: String, _ target: @autoclosure () -> String,
                           _ body: (UnsafeMutablePointer<CChar>, Int) -> Int) throws(IIOError) -> String {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { (p) throws(IIOError) -> String in
            let base = p.baseAddress!
            let written = try base.withMemoryRebound(to: CChar.self, capacity: p.count) { c throws(IIOError) -> Int in
                try check(operation, target(), { body(c, p.count) })
            }
            let bytes = UnsafeBufferPointer(rebasing: p[..<min(max(written, 0), p.count)])
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func string(_ p: UnsafePointer<CChar>?) -> String? {
        p.map { String(cString: $0) }
    }
}
