import CLinux
import Glibc

/// A path opened one component at a time, as given, from `/` down: each directory and the
/// last component checked on its own descriptor (`fstat`) before the next one is opened
/// from it (`openat` with O_NOFOLLOW), so what is checked is what is read, whatever the
/// path names meanwhile, and a symbolic link put in the way fails (ELOOP) instead of
/// being followed. A symbolic link the path holds is met where it is: its own status is
/// checked (`fstatat` with AT_SYMLINK_NOFOLLOW: its owner; it sits in a directory already
/// checked), then its target (`readlinkat`) is walked on from there, from `/` when the
/// target is absolute, each of its directories checked in turn; at most `maximumLinks`
/// links, as the kernel's ELOOP. A link gets the verdict its owner and its directory
/// give, as a file does: never one from what it points at alone (`realpath(3)` would
/// resolve every link in user space first, and only what it led to would be checked).
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

    /// What `check` is asked about: the object's path (as walked: a link's target's
    /// directories by where the link led; the target's as given) and its status (a
    /// symbolic link's own, `kind` `.symbolicLink`, whose mode means nothing).
    package typealias Check = (_ path: String, _ status: FileStatus) -> String?

    /// The most symbolic links one walk follows (the kernel's MAXSYMLINKS).
    package static let maximumLinks = 40

    /// Opens the regular file `path` for reading (O_NONBLOCK: a FIFO does not wait for a
    /// writer; O_NOCTTY), after checking every directory above it; the file's own status
    /// is checked, then its type (`FileSystem.RefusedFile` for what is not a regular file).
    package static func openFile(_ path: String, check: Check) throws -> (FileDescriptor, FileStatus) {
        let (parent, name) = try walk(path, check: check)
        let fd = try FileDescriptor.openNoFollow(in: parent, name, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        let st = try fd.status()
        if let why = check(path, st) { throw Refused(path: path, target: path, reason: why) }
        guard st.kind == .regular else {
            throw FileSystem.RefusedFile(
                path: path, reason: "\(st.kind.phrase), not a regular file; refusing to read it")
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

    /// The directory holding `path`'s last component (after every link on the way and in
    /// the last component itself), every directory from `/` to it and every link checked,
    /// and that component's name.
    private static func walk(_ path: String, check: Check) throws -> (FileDescriptor, String) {
        let root = try FileDescriptor.open("/", O_RDONLY | O_DIRECTORY)
        if let why = check("/", try root.status()) { throw Refused(path: "/", target: path, reason: why) }
        // The directories opened so far, from `/` (".." goes back one), with their paths.
        var stack: [(fd: FileDescriptor, path: String)] = [(root, "/")]
        var pending = components(path.hasPrefix("/") ? path : try currentDirectory() + "/" + path)
        var links = 0
        func joined(_ dir: String, _ name: String) -> String { dir == "/" ? "/" + name : dir + "/" + name }
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                if stack.count > 1 { stack.removeLast() }
                continue
            }
            let dir = stack[stack.count - 1]
            let here = joined(dir.path, name)
            let st = try dir.fd.status(ofEntry: name)
            if st.kind == .symbolicLink {
                if let why = check(here, st) { throw Refused(path: here, target: path, reason: why) }
                links += 1
                guard links <= maximumLinks else { throw SystemError("open", path: path, errno: ELOOP) }
                let target = try dir.fd.linkTarget(ofEntry: name)
                if target.hasPrefix("/") { stack.removeLast(stack.count - 1) }
                pending = components(target) + pending
                continue
            }
            if pending.isEmpty { return (dir.fd, name) }
            let next = try FileDescriptor.openNoFollow(in: dir.fd, name, O_RDONLY | O_DIRECTORY)
            if let why = check(here, try next.status()) { throw Refused(path: here, target: path, reason: why) }
            stack.append((next, here))
        }
        // The path ends in a directory (`/`, `..`): it is opened by its name in its parent.
        guard stack.count > 1 else { throw SystemError("open", path: path, errno: EISDIR) }
        let last = stack.removeLast()
        return (stack[stack.count - 1].fd, String(last.path.split(separator: "/").last ?? ""))
    }

    /// The names of a path, empty ones (`//`, a trailing `/`) left out.
    private static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// `getcwd(3)`: where a relative path starts.
    private static func currentDirectory() throws -> String {
        guard let cwd = getcwd(nil, 0) else { throw SystemError("getcwd", errno: Glibc.errno) }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}
