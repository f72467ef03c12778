import CLinux
import Glibc

/// A path opened one component at a time, from `/` down, each directory and the last
/// component checked on its own descriptor (`fstat`) before the next one is opened from
/// it (`openat` with O_NOFOLLOW): what is checked is what is read, whatever the path names
/// meanwhile, and a symbolic link put in the way fails (ELOOP) instead of being followed.
/// Symbolic links the path held when the walk began are resolved first (`realpath(3)`),
/// so their targets are walked and checked.
///
/// The caller says what it trusts (`check`: why an object is refused, nil to go on). The
/// configuration loader refuses, when it runs as root, what another user could change.
package enum PathWalk {
    /// A refused object: the walk's own words for where, the caller's for why.
    package struct Refused: Error, CustomStringConvertible {
        /// The object refused: a directory on the way, or the target itself.
        package var path: String
        /// The path the walk was asked for, as given.
        package var target: String
        package var reason: String

        /// `TARGET: why`, or `DIR (on the way to TARGET): why`.
        package var description: String {
            path == target ? "\(target): \(reason)" : "\(path) (on the way to \(target)): \(reason)"
        }
    }

    /// What `check` is asked about: the object's path (resolved; the target's as given)
    /// and its status.
    package typealias Check = (_ path: String, _ status: FileStatus) -> String?

    /// Opens the regular file `path` for reading (O_NONBLOCK: a FIFO does not wait for a
    /// writer; O_NOCTTY), after checking every directory above it; the file's own status
    /// is checked, then its type (`FileSystem.RefusedFile` for what is not a regular file).
    package static func openFile(_ path: String, check: Check) throws -> (FileDescriptor, FileStatus) {
        let (parent, name) = try walk(path, check: check)
        let fd = try FileDescriptor.openNoFollow(in: parent, name, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        let st = try fd.status()
        if let why = check(path, st) { throw Refused(path: path, target: path, reason: why) }
        guard st.kind == .regular else {
            throw FileSystem.RefusedFile(path: path, reason: "\(st.kind.phrase), not a regular file; refusing to read it")
        }
        return (fd, st)
    }

    /// Opens the directory `path` for reading (its names: `FileSystem.list(_:FileDescriptor)`),
    /// after checking every directory above it and itself.
    package static func openDirectory(_ path: String, check: Check) throws -> FileDescriptor {
        let (parent, name) = try walk(path, check: check)
        let fd = try FileDescriptor.openNoFollow(in: parent, name, O_RDONLY | O_DIRECTORY)
        if let why = check(path, try fd.status()) { throw Refused(path: path, target: path, reason: why) }
        return fd
    }

    /// The directory holding `path`'s last component, every directory from `/` to it
    /// checked, and that component's name.
    private static func walk(_ path: String, check: Check) throws -> (FileDescriptor, String) {
        let resolved = try realPath(path)
        let names = resolved.split(separator: "/").map(String.init)
        guard let last = names.last else { throw SystemError("open", path: path, errno: EISDIR) }
        var dir = try FileDescriptor.open("/", O_RDONLY | O_DIRECTORY)
        var at = ""
        for name in [""] + names.dropLast() {
            if !name.isEmpty {
                dir = try FileDescriptor.openNoFollow(in: dir, name, O_RDONLY | O_DIRECTORY)
                at += "/" + name
            }
            if let why = check(at.isEmpty ? "/" : at, try dir.status()) {
                throw Refused(path: at.isEmpty ? "/" : at, target: path, reason: why)
            }
        }
        return (dir, last)
    }

    /// `realpath(3)`: the absolute path without symbolic links, `.` or `..`.
    private static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw SystemError("realpath", path: path, errno: Glibc.errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
