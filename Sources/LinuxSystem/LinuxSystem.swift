// LinuxSystem: the typed wrapper of the kernel and libc interfaces shimmerd uses:
// file descriptors, errno, atomic file writes, monotonic time (and, for the sinks,
// mmap, shm_open and the fbdev ioctls through CLinux).
//
// Invariants: every C call that can fail goes through `retryingEINTR` / `SystemError`
// (this file), so callers see one error type naming the operation, the path and errno.
// Must not import: any other shimmerd module (layer 1a).
import CLinux
import Glibc

/// A failed system call: which operation, on what, and errno.
package struct SystemError: Error, CustomStringConvertible, Equatable {
    package var operation: String
    package var path: String
    package var errno: Int32

    package init(_ operation: String, path: String = "", errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    package var reason: String { String(cString: strerror(errno)) }

    package var description: String {
        path.isEmpty ? "\(operation): \(reason)" : "\(operation) \(path): \(reason)"
    }
}

/// Calls `body` until it does not fail with EINTR; a negative result becomes `SystemError`.
@discardableResult
package func retryingEINTR<T: BinaryInteger>(
    _ operation: @autoclosure () -> String, path: @autoclosure () -> String = "",
    _ body: () -> T
) throws -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let e = Glibc.errno
        if e == EINTR { continue }
        throw SystemError(operation(), path: path(), errno: e)
    }
}
