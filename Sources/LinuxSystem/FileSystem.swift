import CLinux
import Glibc

/// Whole-file operations.
package enum FileSystem {
    /// Writes `bytes` to `path` so that readers see either the old file or the whole new
    /// one: a temporary file in the same directory, fsync'd, then `rename(2)`. A failure
    /// leaves no partial file behind.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let dir = try FileDescriptor.open(parent, O_RDONLY | O_DIRECTORY)
        try writeAtomically(bytes, named: name, in: dir, mode: mode)
    }

    /// The same, as `name` in the open directory `dir` (openat, renameat): the file lands
    /// in the directory that was opened, whatever its path names by now.
    package static func writeAtomically(
        _ bytes: [UInt8], named name: String, in dir: FileDescriptor, mode: mode_t = 0o644
    ) throws {
        let tmp = name + ".tmp-\(getpid())"
        let path = dir.path + "/" + name
        let fd = try retryingEINTR("create", path: dir.path + "/" + tmp) {
            shim_openat_nofollow(dir.rawValue, tmp, O_WRONLY | O_CREAT | O_TRUNC, UInt32(mode))
        }
        var ok = false
        defer {
            close(fd)
            if !ok { unlinkat(dir.rawValue, tmp, 0) }
        }
        try writeAll(fd, bytes, path: dir.path + "/" + tmp)
        try retryingEINTR("fsync", path: dir.path + "/" + tmp) { fsync(fd) }
        try retryingEINTR("rename to", path: path) { renameat(dir.rawValue, tmp, dir.rawValue, name) }
        ok = true
    }

    /// Writes every byte, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        let (_, error) = writeAsMuchAsPossible(fd, bytes)
        if let error { throw SystemError("write", path: path, errno: error) }
    }

    /// Writes `bytes` until all are written or `write(2)` fails with something other
    /// than EINTR: how many bytes went out, and the errno that stopped it, if any.
    /// Callers that must not lose data keep the rest (the trace writer on ENOSPC).
    package static func writeAsMuchAsPossible(_ fd: Int32, _ bytes: [UInt8]) -> (written: Int, errno: Int32?) {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    return (done, Glibc.errno)
                }
                done += n
            }
            return (done, nil)
        }
    }

    /// Why `readRegularFile` refused a file.
    package struct RefusedFile: Error, CustomStringConvertible {
        package var path: String
        package var reason: String
        package var description: String { "\(path): \(reason)" }
    }

    /// Reads a whole regular file of at most `limit` bytes. The open never blocks
    /// (O_NONBLOCK: a FIFO does not wait for a writer) and the type is checked on the
    /// descriptor, so a FIFO, a device (/dev/zero) or a directory is refused at once,
    /// and a file larger than `limit` is refused after reading `limit` + 1 bytes at most.
    package static func readRegularFile(_ path: String, atMost limit: Int) throws -> [UInt8] {
        let (fd, st) = try openRegularFile(path)
        return try readRegularFile(fd, status: st, path: path, atMost: limit)
    }

    /// `readRegularFile` of a file the caller opened and checked (`PathWalk.openFile`).
    package static func readRegularFile(
        _ fd: FileDescriptor, status st: FileStatus, path: String,
        atMost limit: Int
    ) throws -> [UInt8] {
        guard st.size <= limit else {
            throw RefusedFile(path: path, reason: "\(st.size) bytes, more than the \(limit) read at most")
        }
        let bytes = try read(fd.rawValue, path: path, atMost: limit + 1)
        guard bytes.count <= limit else {
            throw RefusedFile(path: path, reason: "more than the \(limit) bytes read at most")
        }
        return bytes
    }

    /// Opens a regular file for reading, as `readRegularFile` does (O_NONBLOCK, the type
    /// checked on the descriptor), for a reader that takes it piece by piece.
    package static func openRegularFile(_ path: String) throws -> (FileDescriptor, FileStatus) {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        let st = try fd.status()
        guard st.kind == .regular else {
            throw RefusedFile(path: path, reason: "\(st.kind.phrase), not a regular file; refusing to read it")
        }
        return (fd, st)
    }

    /// Reads a whole file.
    package static func read(_ path: String) throws -> [UInt8] {
        let fd = try retryingEINTR("open", path: path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        return try read(fd, path: path, atMost: Int.max)
    }

    /// Reads until the end of the file or `limit` bytes.
    private static func read(_ fd: Int32, path: String, atMost limit: Int) throws -> [UInt8] {
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let want = min(chunk.count, limit - out.count)
            if want == 0 { return out }
            let n = try chunk.withUnsafeMutableBytes { buf in
                try retryingEINTR("read", path: path) { Glibc.read(fd, buf.baseAddress, want) }
            }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Creates `path` and missing parents (like `mkdir -p`): parents that exist are never
    /// touched, so a path through directories we may search but not list works.
    package static func createDirectories(_ path: String, mode: mode_t = 0o755) throws {
        if mkdir(path, mode) == 0 { return }
        switch Glibc.errno {
        case EEXIST:
            guard isDirectory(path) else { throw SystemError("mkdir", path: path, errno: ENOTDIR) }
        case ENOENT:
            let parent = path.split(separator: "/", omittingEmptySubsequences: true).dropLast().joined(separator: "/")
            guard !parent.isEmpty else { throw SystemError("mkdir", path: path, errno: ENOENT) }
            try createDirectories(path.hasPrefix("/") ? "/" + parent : parent, mode: mode)
            if mkdir(path, mode) != 0 && Glibc.errno != EEXIST {
                throw SystemError("mkdir", path: path, errno: Glibc.errno)
            }
        default:
            throw SystemError("mkdir", path: path, errno: Glibc.errno)
        }
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Names in a directory, sorted bytewise (the "lexical order" of drop-ins), without . and ..
    package static func list(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw SystemError("opendir", path: path, errno: Glibc.errno) }
        return names(dir)
    }

    /// `list` of a directory the caller opened (`PathWalk.openDirectory`): the names it
    /// holds, whatever its path names now.
    package static func list(_ directory: FileDescriptor) throws -> [String] {
        // fdopendir(3) takes the descriptor it is given: a duplicate, so the caller's stays.
        let copy = try retryingEINTR("dup", path: directory.path) { dup(directory.rawValue) }
        guard let dir = fdopendir(copy) else {
            let e = Glibc.errno
            Glibc.close(copy)
            throw SystemError("fdopendir", path: directory.path, errno: e)
        }
        return names(dir)
    }

    /// Reads the names of `dir` and closes it.
    private static func names(_ dir: OpaquePointer) -> [String] {
        defer { closedir(dir) }
        var names = [String]()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
