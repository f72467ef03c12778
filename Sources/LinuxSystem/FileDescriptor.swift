import CLinux
import Glibc
import Synchronization

/// An open file descriptor, closed when the last reference goes away (`close(2)`).
/// Sendable: its state is the number, the path and whether it is still open, an atomic
/// flag, so that two threads that close it close it once.
package final class FileDescriptor: Sendable {
    package let rawValue: Int32
    /// What was opened, for error messages.
    package let path: String
    private let isOpen = Atomic<Bool>(true)

    package init(adopting fd: Int32, path: String) {
        rawValue = fd
        self.path = path
    }

    deinit { close() }

    /// `close(2)`, once. (EINTR is not retried: Linux has already released the descriptor.)
    package func close() {
        guard isOpen.exchange(false, ordering: .acquiringAndReleasing) else { return }
        _ = Glibc.close(rawValue)
    }

    /// `open(2)` with O_CLOEXEC; a failure is `SystemError(operation, path:)`.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0, operation: String = "open") throws
        -> FileDescriptor
    {
        let fd = try retryingEINTR(operation, path: path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return FileDescriptor(adopting: fd, path: path)
    }

    /// `openat(2)` of one name in `directory` with O_NOFOLLOW | O_CLOEXEC: a symbolic link
    /// in the last component fails with ELOOP instead of being followed.
    package static func openNoFollow(
        in directory: FileDescriptor, _ name: String, _ flags: Int32,
        mode: mode_t = 0
    ) throws -> FileDescriptor {
        let path = directory.entryPath(name)
        let fd = try retryingEINTR("open", path: path) {
            shim_openat_nofollow(directory.rawValue, name, flags, UInt32(mode))
        }
        return FileDescriptor(adopting: fd, path: path)
    }

    /// `open(2)` with O_PATH | O_NOFOLLOW | O_CLOEXEC: a handle on the inode `path` names
    /// now, opened for nothing (no device is woken, no FIFO waits for a peer). A symbolic
    /// link is not followed: the handle is the link itself (`status().kind` says so).
    /// `reopen` later opens that same inode, whatever the path has become meanwhile.
    package static func pin(_ path: String) throws -> FileDescriptor {
        let fd = try retryingEINTR("open", path: path) { shim_open_path_nofollow(path) }
        return FileDescriptor(adopting: fd, path: path)
    }

    /// Opens the inode this descriptor refers to again, with `flags`, through
    /// /proc/self/fd (proc(5): the magic link reopens the file itself, never what a path
    /// names now), and checks that the new descriptor is that same inode (ESTALE if not).
    package func reopen(_ flags: Int32) throws -> FileDescriptor {
        let pinned = try status()
        let fd = try retryingEINTR("open", path: path) { Glibc.open("/proc/self/fd/\(rawValue)", flags | O_CLOEXEC) }
        let again = FileDescriptor(adopting: fd, path: path)
        let st = try again.status()
        guard st.device == pinned.device, st.inode == pinned.inode else {
            throw SystemError("reopen", path: path, errno: ESTALE)
        }
        return again
    }

    /// `posix_fallocate(3)` of bytes 0..<size: the space is reserved now, so a later
    /// store into a mapping of it cannot fail (SIGBUS) for want of space. ENOSPC when
    /// the file system cannot hold it.
    package func reserve(_ size: Int) throws {
        while true {
            let e = posix_fallocate(rawValue, 0, off_t(size))
            if e == 0 { return }
            if e == EINTR { continue }
            throw SystemError("reserve \(size) bytes for", path: path, errno: e)
        }
    }

    /// `pread(2)` into `buffer` at `offset`, retrying EINTR and short reads: the bytes
    /// read (fewer than asked only at the end of the file, e.g. a file truncated under
    /// the reader).
    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try retryingEINTR("pread", path: path) {
                pread(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// `fstat(2)`.
    package func status() throws -> FileStatus {
        var st = stat()
        try retryingEINTR("fstat", path: path) { fstat(rawValue, &st) }
        return FileStatus(st)
    }

    /// The path of `name` in this directory, for error messages.
    private func entryPath(_ name: String) -> String { (path.hasSuffix("/") ? path : path + "/") + name }

    /// `fstatat(2)` of one name in this directory with AT_SYMLINK_NOFOLLOW: a symbolic
    /// link's own status (its owner), not its target's.
    package func status(ofEntry name: String) throws -> FileStatus {
        var st = stat()
        let path = entryPath(name)
        try retryingEINTR("lstat", path: path) { fstatat(rawValue, name, &st, AT_SYMLINK_NOFOLLOW) }
        return FileStatus(st)
    }

    /// `readlinkat(2)` of the symbolic link `name` in this directory: its target as written.
    package func linkTarget(ofEntry name: String) throws -> String {
        let path = entryPath(name)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = try retryingEINTR("readlink", path: path) { readlinkat(rawValue, name, &buffer, Int(PATH_MAX)) }
        guard n < Int(PATH_MAX) else { throw SystemError("readlink", path: path, errno: ENAMETOOLONG) }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `fchmod(2)`.
    package func setMode(_ mode: mode_t) throws {
        try retryingEINTR("fchmod", path: path) { fchmod(rawValue, mode) }
    }

    /// `fchown(2)` of the group alone (the owner stays): allowed to the owner for a group
    /// it is a member of, and to root.
    package func setGroup(_ group: gid_t) throws {
        try retryingEINTR("fchown", path: path) { fchown(rawValue, uid_t.max, group) }
    }

    /// `ftruncate(2)`.
    package func truncate(to size: Int) throws {
        try retryingEINTR("ftruncate", path: path) { ftruncate(rawValue, off_t(size)) }
    }

    /// `fcntl(F_GETFL)`: the file status flags (O_NONBLOCK, O_APPEND, the access mode).
    package func statusFlags() throws -> Int32 {
        try retryingEINTR("fcntl F_GETFL", path: path) { fcntl(rawValue, F_GETFL) }
    }

    /// `fcntl(F_SETFL)`: sets the file status flags (those F_SETFL may change).
    package func setStatusFlags(_ flags: Int32) throws {
        try retryingEINTR("fcntl F_SETFL", path: path) { fcntl(rawValue, F_SETFL, flags) }
    }

    /// `fcntl(F_SETFL)` with O_NONBLOCK set or cleared.
    package func setNonBlocking(_ on: Bool) throws {
        let flags = try retryingEINTR("fcntl F_GETFL", path: path) { fcntl(rawValue, F_GETFL) }
        try retryingEINTR("fcntl F_SETFL", path: path) {
            fcntl(rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
        }
    }

    /// `read(2)` of what is waiting on a non-blocking descriptor, retrying EINTR: the byte
    /// count (0 at the end of the file), or nil when nothing is waiting (EAGAIN).
    package func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        do {
            return try retryingEINTR("read", path: path) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        } catch let e as SystemError where e.errno == EAGAIN || e.errno == EWOULDBLOCK {
            return nil
        }
    }

    /// Writes what a non-blocking descriptor takes now of the `count` bytes at `bytes`,
    /// retrying short writes and EINTR: the bytes written, fewer than `count` when it
    /// takes no more (EAGAIN). Every other failure throws, after what was written.
    package func writeAvailable(_ bytes: UnsafeRawPointer, count: Int) throws -> Int {
        var done = 0
        while done < count {
            do {
                done += try retryingEINTR("write", path: path) { Glibc.write(rawValue, bytes + done, count - done) }
            } catch let e as SystemError where e.errno == EAGAIN {
                return done
            }
        }
        return done
    }

    /// Writes all `count` bytes at `bytes`, retrying short writes and EINTR. EPIPE and
    /// every other failure throw, with the bytes already written in the error's path text
    /// left to the caller.
    package func writeAll(_ bytes: UnsafeRawPointer, count: Int) throws {
        var done = 0
        while done < count {
            done += try retryingEINTR("write", path: path) { Glibc.write(rawValue, bytes + done, count - done) }
        }
    }
}

/// The `fstat(2)` facts the sinks check.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, directory, characterDevice, fifo, symbolicLink, other

        /// "a regular file", "a FIFO", ... for log lines.
        package var phrase: String {
            switch self {
            case .regular: "a regular file"
            case .directory: "a directory"
            case .characterDevice: "a character device"
            case .fifo: "a FIFO"
            case .symbolicLink: "a symbolic link"
            case .other: "a socket or block device"
            }
        }
    }

    package var kind: Kind
    package var ownerUID: uid_t
    package var groupID: gid_t
    /// Permission bits only (mode & 07777).
    package var permissions: mode_t
    package var size: Int
    package var device: UInt64
    package var inode: UInt64
    /// st_nlink: 0 once the file was unlinked while still open (a deleted shm object).
    package var linkCount: Int
    /// st_rdev of a device node: major and minor (`major(3)`, `minor(3)`).
    package var deviceMajor: UInt32
    package var deviceMinor: UInt32

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFCHR: kind = .characterDevice
        case S_IFIFO: kind = .fifo
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        ownerUID = st.st_uid
        groupID = st.st_gid
        permissions = st.st_mode & 0o7777
        size = Int(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        linkCount = Int(st.st_nlink)
        // glibc's gnu_dev_major / gnu_dev_minor encoding.
        let rdev = UInt64(st.st_rdev)
        deviceMajor = UInt32(((rdev >> 8) & 0xFFF) | ((rdev >> 32) & ~0xFFF))
        deviceMinor = UInt32((rdev & 0xFF) | ((rdev >> 12) & ~0xFF))
    }

    /// `stat(2)` (follows links) or, with `followLinks: false`, `lstat(2)`.
    package static func of(_ path: String, followLinks: Bool = true) throws -> FileStatus {
        var st = stat()
        if followLinks {
            try retryingEINTR("stat", path: path) { stat(path, &st) }
        } else {
            try retryingEINTR("lstat", path: path) { lstat(path, &st) }
        }
        return FileStatus(st)
    }
}

/// The effective user id (`geteuid(2)`), for ownership checks.
package func effectiveUserID() -> uid_t { geteuid() }

/// The login name of `uid` (`getpwuid_r(3)`), nil when it has none.
package func userName(of uid: uid_t) -> String? {
    var pw = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name else {
        return nil
    }
    return String(cString: name)
}

/// The uid of the user `name` (`getpwnam_r(3)`), nil when there is none.
package func userID(named name: String) -> uid_t? {
    var pw = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return pw.pw_uid
}

/// The gid of the group `name` (`getgrnam_r(3)`), nil when there is none.
package func groupID(named name: String) -> gid_t? {
    var gr = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getgrnam_r(name, &gr, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return gr.gr_gid
}

/// Whether this process may give a file it owns to group `gid` (chown(2)): it is root, or
/// `gid` is its effective group or one of its supplementary groups (`getgroups(2)`).
package func mayGiveFiles(toGroup gid: gid_t) -> Bool {
    if geteuid() == 0 || getegid() == gid { return true }
    let count = getgroups(0, nil)
    guard count > 0 else { return false }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let n = getgroups(count, &groups)
    return n > 0 && groups[..<Int(n)].contains(gid)
}

/// `unlink(2)`.
/// `rename(2)`.
package func renameFile(_ path: String, to newPath: String) throws {
    try retryingEINTR("rename", path: path) { rename(path, newPath) }
}

/// `access(2)` of `path` for `mode` (W_OK, X_OK, ...): nil when allowed, else why not (errno).
package func accessRefusal(_ path: String, _ mode: Int32) -> Int32? {
    access(path, mode) == 0 ? nil : errno
}

package func unlinkFile(_ path: String) throws {
    try retryingEINTR("unlink", path: path) { unlink(path) }
}
