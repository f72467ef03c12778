import CLinux
import Glibc

/// A shared read-write mapping of a file (`mmap(2)` with MAP_SHARED), unmapped with the
/// object (`munmap(2)`). It keeps its file descriptor alive, as a child keeps its parent.
package final class MemoryMapping: @unchecked Sendable {
    package let base: UnsafeMutableRawPointer
    package let byteCount: Int
    package let file: FileDescriptor

    /// Maps `byteCount` bytes of `file` from offset 0.
    package init(_ file: FileDescriptor, byteCount: Int, writable: Bool = true) throws {
        let prot = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard byteCount > 0 else { throw SystemError("mmap", path: file.path, errno: EINVAL) }
        let p = mmap(nil, byteCount, prot, MAP_SHARED, file.rawValue, 0)
        guard let p, p != MAP_FAILED else {
            throw SystemError("mmap \(byteCount) bytes of", path: file.path, errno: Glibc.errno)
        }
        base = p
        self.byteCount = byteCount
        self.file = file
    }

    deinit { munmap(base, byteCount) }
}
