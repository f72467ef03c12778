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
    /// character of the sysfs text (the kernel's newline).
    static func readString(_ operation: String, _ target: @autoclosure () -> String,
                           _ body: (UnsafeMutablePointer<CChar>, Int) -> Int) throws(IIOError) -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = try buf.withUnsafeMutableBufferPointer { (p) throws(IIOError) -> Int in
            try check(operation, target(), { body(p.baseAddress!, p.count) })
        }
        _ = n
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func string(_ p: UnsafePointer<CChar>?) -> String? {
        p.map { String(cString: $0) }
    }
}
