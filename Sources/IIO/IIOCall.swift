import CIIO
import Glibc

/// The one place that turns libiio return conventions into `IIOError`.
enum IIOCall {
    /// For calls returning a negative errno on failure (int, ssize_t, long).
    @discardableResult
    static func check<T: SignedInteger & FixedWidthInteger>(
        _ operation: String, _ target: @autoclosure () -> String,
        _ body: () -> T
    ) throws(IIOError) -> T {
        while true {
            let r = body()
            if r >= 0 { return r }
            let code = Int32(truncatingIfNeeded: 0 - r)
            if code == EINTR { continue }
            throw IIOError(operation: operation, target: target(), code: code)
        }
    }

    /// For calls returning NULL and setting errno on failure.
    static func pointer<P>(
        _ operation: String, _ target: @autoclosure () -> String,
        _ body: () -> P?
    ) throws(IIOError) -> P {
        errno = 0
        if let p = body() { return p }
        let code = errno == 0 ? ENOENT : errno
        throw IIOError(operation: operation, target: target(), code: code)
    }

    /// Reads attribute `name` through a libiio `*_attr_read(..., const char *attr, char
    /// *dst, size_t len)`; `body` gets the name as a C string, the buffer and its length.
    /// libiio returns the byte count including the terminating NUL and drops the final
    /// character of the sysfs text (the kernel's newline). The text is what precedes the
    /// first NUL among the bytes libiio says it wrote.
    ///
    /// Nothing is allocated for a short name and value (up to 15 bytes, as `raw` and every
    /// `_raw` value are): the name goes through `withCString` (an implicit String-to-pointer
    /// conversion allocated a copy), the buffer is on the stack, and the text is stored
    /// inside the String. Poll mode reads three attributes 100 times a second.
    static func readString(
        _ operation: String, _ target: @autoclosure () -> String, name: String,
        _ body: (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>, Int) -> Int
    ) throws(IIOError) -> String {
        try name.withCString { cName in
            Result { () throws(IIOError) -> String in
                try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { (p) throws(IIOError) -> String in
                    let written = try p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) {
                        c throws(IIOError) -> Int in
                        try check(operation, target(), { body(cName, c, p.count) })
                    }
                    let bytes = UnsafeBufferPointer(rebasing: p[..<min(max(written, 0), p.count)])
                    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
        }.get()
    }

    static func string(_ p: UnsafePointer<CChar>?) -> String? {
        p.map { String(cString: $0) }
    }
}
