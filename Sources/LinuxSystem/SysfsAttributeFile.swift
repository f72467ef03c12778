import Glibc

/// A failed file operation on a sysfs attribute: what, where, errno.
package struct SysfsError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let path: String
    package let code: Int32

    package var description: String {
        "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Direct reads and writes of sysfs attribute files, for the sensor driver that works
/// without libiio (libiio 0.24 refuses a whole local context over one bad channel) and
/// for permission checks. Each call opens, reads or writes once, and closes: sysfs
/// attributes are regenerated on every open.
package enum SysfsAttributeFile {
    /// Reads up to 4 KiB (a sysfs attribute is at most one page), retrying on EINTR.
    package static func read(_ path: String) -> Result<String, SysfsError> {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return .failure(SysfsError(operation: "open", path: path, code: errno)) }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = buf.withUnsafeMutableBytes { p in retrying { Glibc.read(fd, p.baseAddress, p.count) } }
        guard n >= 0 else { return .failure(SysfsError(operation: "read", path: path, code: errno)) }
        return .success(String(decoding: buf[0..<n], as: UTF8.self))
    }

    /// The attribute's value: its text without the trailing newline, blanks and NULs
    /// (libiio writes a terminating NUL, which sysfs ignores and a plain file keeps);
    /// nil when it cannot be read.
    package static func value(_ path: String) -> String? {
        guard case .success(let text) = read(path) else { return nil }
        let junk: Set<Character> = [" ", "\t", "\n", "\r", "\0"]
        var t = Substring(text)
        while let c = t.last, junk.contains(c) { t = t.dropLast() }
        while let c = t.first, junk.contains(c) { t = t.dropFirst() }
        return String(t)
    }

    /// Writes `value` in one `write(2)`, as sysfs expects (O_TRUNC is a no-op on sysfs
    /// and keeps a regular file, e.g. under umockdev, exact).
    package static func write(_ path: String, _ value: String) -> Result<Void, SysfsError> {
        let fd = retrying { open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) }
        guard fd >= 0 else { return .failure(SysfsError(operation: "open", path: path, code: errno)) }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        let n = bytes.withUnsafeBytes { p in retrying { Glibc.write(fd, p.baseAddress, p.count) } }
        guard n == bytes.count else {
            return .failure(SysfsError(operation: "write", path: path, code: n < 0 ? errno : EIO))
        }
        return .success(())
    }

    /// `access(path, W_OK)`: whether this process may write the file.
    package static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// `access(path, R_OK)`.
    package static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// `access(path, F_OK)`.
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A sysfs attribute read again and again (poll mode reads three of them 100 times a
    /// second): its path kept as a C string, each read an `open(2)`, one `read(2)` into a
    /// stack buffer and a `close(2)`, nothing allocated.
    ///
    /// Opened for every read, not kept open for `pread(2)`: an attribute file that is
    /// replaced (a device that goes away and comes back; umockdev's testbed, which writes
    /// every change to a new file renamed over the old one) is seen only by a new open.
    /// This is still two system calls and a heap block fewer than libiio's local backend
    /// spends on `iio_channel_attr_read` (`fopen`, an `fstat` for stdio's buffer, `read`
    /// until EOF, `fclose`).
    package struct Reader: Sendable {
        /// The file, for errors and logs.
        package let path: String
        private let cPath: [CChar]

        package init(path: String) {
            self.path = path
            cPath = Array(path.utf8CString)
        }

        /// Reads the attribute into `buffer` (a sysfs attribute is at most one page): the
        /// bytes read, perhaps none. Not generic, so that a caller in another module calls
        /// it without instantiating generic metadata at run time on every read.
        package func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SysfsError> {
            let fd = cPath.withUnsafeBufferPointer { p in retrying { open(p.baseAddress!, O_RDONLY | O_CLOEXEC) } }
            guard fd >= 0 else { return .failure(SysfsError(operation: "open", path: path, code: errno)) }
            defer { close(fd) }
            let n = retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            guard n >= 0 else { return .failure(SysfsError(operation: "read", path: path, code: errno)) }
            return .success(n)
        }
    }

    private static func retrying<T: BinaryInteger>(_ body: () -> T) -> T {
        while true {
            let r = body()
            if r < 0 && errno == EINTR { continue }
            return r
        }
    }
}
