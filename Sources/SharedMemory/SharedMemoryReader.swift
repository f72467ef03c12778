import Glibc
import LinuxSystem

/// The reading side of the shared-memory frames object (docs/SHM.md, "The object"
/// and "Reading"). It never writes: the object is opened O_RDONLY |
/// O_NOFOLLOW, so a bug here cannot disturb the daemon or other readers.
///
/// Whoever creates NAME first chooses what its readers get, so the object is trusted
/// only when it is a regular file owned by root, by this user or by the `shimmerd` user
/// (the service's, `trustedOwners`), and writable by its owner alone. Every header field
/// is bounded (`SharedMemoryHeader(bytes:)`) before any arithmetic on it, so the memory
/// a reader takes is bounded too (one frame of at most 8192 x 8192 px).
///
/// No pixel or header word is loaded from a mapping: they are read with pread(2) from
/// the open object, so an owner that truncates it under the reader gives a short read
/// (`Read.gone`), never SIGBUS. Only the futex word is mapped (FUTEX_WAIT on a page the
/// truncation took fails with EFAULT inside the kernel, also no signal).
///
/// The layout is read once, at open: a writer never changes the layout of an object in
/// place (another card size means a new object under the same name, see `replaced()`).
package final class SharedMemoryReader: @unchecked Sendable {
    package enum OpenError: Error, Equatable, CustomStringConvertible {
        /// No object under that name (yet).
        case missing(String)
        /// It exists but is not ready: being created (short, no magic yet).
        case notReady(String)
        /// It cannot be used: a symbolic link, not a regular file, no permission, not
        /// a version 1 SHMR object, an owner not trusted, writable by others.
        case refused(String)

        package var description: String {
            switch self {
            case .missing(let s), .notReady(let s), .refused(let s): return s
            }
        }
    }

    /// The result of `readNewest`.
    package enum Read: Equatable {
        /// `frame` is 0: the writer has published nothing yet.
        case noFrame
        /// Frame `number` was handed to the body and the copy is good.
        case frame(number: UInt64, focalX: Float, focalY: Float)
        /// The writer lapped the reader on every try (it never happens at sane rates).
        case torn
        /// The object is smaller than its layout now (its owner truncated it): reopen.
        case gone
    }

    /// Owners whose objects a reader shows: root, the reader's own user, and the
    /// service's user `shimmerd` where it exists.
    package static func defaultTrustedOwners() -> Set<uid_t> {
        var owners: Set<uid_t> = [0, effectiveUserID()]
        if let service = userID(named: "shimmerd") { owners.insert(service) }
        return owners
    }

    package let path: String
    /// The layout at open (the frame, time, focal point and writer fields are live: read
    /// them with the accessors below).
    package let header: SharedMemoryHeader
    /// st_ino of the mapped object, to notice a replacement under the same name.
    package let inode: UInt64
    private let file: FileDescriptor
    /// The header's first page, mapped only for FUTEX_WAIT on the frame word.
    private let futexPage: MemoryMapping
    /// Where `readNewest` copies a frame (`header.stride * header.height` bytes), freed
    /// with the reader.
    private let pixels: UnsafeMutableRawBufferPointer

    /// Opens /dev/shm/NAME (`directory`/`name`) read-only and checks it.
    package init(
        name: String, directory: String = "/dev/shm",
        trustedOwners: Set<uid_t> = SharedMemoryReader.defaultTrustedOwners()
    ) throws(OpenError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw .refused("invalid segment name \"\(name)\"")
        }
        path = directory + "/" + name
        let fd: FileDescriptor
        do {
            let dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
            fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDONLY | O_NONBLOCK)
        } catch let e as SystemError where e.errno == ENOENT {
            throw .missing("\(path) does not exist")
        } catch let e as SystemError where e.errno == ELOOP {
            throw .refused("\(path) is a symbolic link; refusing to follow it")
        } catch let e as SystemError where e.errno == EACCES {
            throw .refused(Self.permissionDenied(path))
        } catch {
            throw .refused("\(error)")
        }
        let st: FileStatus
        do { st = try fd.status() } catch { throw .refused("\(error)") }
        guard st.kind == .regular else { throw .refused("\(path) is not a regular file") }
        guard trustedOwners.contains(st.ownerUID) else {
            let trusted = trustedOwners.sorted().map { uid in
                userName(of: uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
            }
            throw .refused(
                "\(path) is owned by uid \(st.ownerUID)" + (userName(of: st.ownerUID).map { " (\($0))" } ?? "")
                    + ", not by " + trusted.joined(separator: ", ") + "; refusing to show it")
        }
        guard st.permissions & 0o022 == 0 else {
            throw .refused(
                "\(path) has mode 0\(String(st.permissions, radix: 8)): others "
                    + "may write it; refusing to show it")
        }
        guard st.size >= SharedMemoryHeader.size else {
            throw .notReady("\(path) is \(st.size) bytes, still being created")
        }
        var bytes = [UInt8](repeating: 0, count: SharedMemoryHeader.size)
        let got: Int
        do { got = try bytes.withUnsafeMutableBytes { try fd.read(at: 0, into: $0) } } catch {
            throw .refused("\(error)")
        }
        // The writer stores the magic last, so a header with the magic is complete.
        guard got == SharedMemoryHeader.size, Array(bytes[0..<4]) == SharedMemoryHeader.magic else {
            throw .notReady("\(path) has no SHMR header yet")
        }
        guard let h = SharedMemoryHeader(bytes: bytes) else {
            throw .refused("\(path) is not a version 1 SHMR object with a consistent layout within bounds")
        }
        guard h.fourcc == SharedMemoryHeader.xrgb8888 else {
            throw .refused("\(path) has pixel format 0x\(String(h.fourcc, radix: 16)), not XRGB8888")
        }
        guard st.size >= h.totalSize else {
            throw .refused("\(path) is \(st.size) bytes, too small for its \(h.bufferCount) buffers")
        }
        do { futexPage = try MemoryMapping(fd, byteCount: SharedMemoryHeader.alignment, writable: false) } catch {
            throw .refused("\(error)")
        }
        header = h
        inode = st.inode
        file = fd
        pixels = .allocate(byteCount: Int(h.stride) * Int(h.height), alignment: 16)
    }

    deinit { pixels.deallocate() }

    private var frameWord: UnsafeRawPointer { UnsafeRawPointer(futexPage.base + SharedMemoryHeader.Offset.frame) }

    /// A little-endian word of the header, read with pread; nil once the object shrank.
    private func word<T: FixedWidthInteger>(at offset: Int, _: T.Type) -> T? {
        var v = T.zero
        let n = withUnsafeMutableBytes(of: &v) { (try? file.read(at: offset, into: $0)) ?? 0 }
        return n == MemoryLayout<T>.size ? T(littleEndian: v) : nil
    }

    /// Number of the newest complete frame (offset 48); 0 = none yet (or the object shrank).
    package var frame: UInt64 { word(at: SharedMemoryHeader.Offset.frame, UInt64.self) ?? 0 }

    /// The writer's pid; 0 when no writer is attached (it exited, or retired the object).
    package var writerPID: UInt32 { word(at: SharedMemoryHeader.Offset.writerPID, UInt32.self) ?? 0 }

    /// Hands the newest frame's pixels (`header.height` rows of `header.stride` bytes,
    /// XRGB8888) to `body`, per docs/SHM.md: load `frame` as f1, copy buffer
    /// (f1 - 1) mod N, load `frame` again as f2; the copy is good when f2 - f1 <= N - 2,
    /// else it is retried. The focal point is read between the loads (informative when
    /// the writer raced it, docs/SHM.md). The copy is pread(2) into the reader's own
    /// buffer, so a truncation under it is `.gone`, not a signal.
    package func readNewest<E: Error>(tries: Int = 8, _ body: (UnsafeRawPointer) throws(E) -> Void) throws(E) -> Read {
        let n = UInt64(header.bufferCount)
        for _ in 0..<tries {
            guard let f1 = word(at: SharedMemoryHeader.Offset.frame, UInt64.self) else { return .gone }
            if f1 == 0 { return .noFrame }
            guard let fx = word(at: SharedMemoryHeader.Offset.focalX, UInt32.self),
                let fy = word(at: SharedMemoryHeader.Offset.focalY, UInt32.self)
            else { return .gone }
            let offset = header.offset(ofBuffer: Int((f1 - 1) % n))
            let got = (try? file.read(at: offset, into: pixels)) ?? 0
            guard got == pixels.count, let f2 = word(at: SharedMemoryHeader.Offset.frame, UInt64.self) else {
                return .gone
            }
            if f2 &- f1 <= n - 2 {
                try body(UnsafeRawPointer(pixels.baseAddress!))
                return .frame(number: f1, focalX: Float(bitPattern: fx), focalY: Float(bitPattern: fy))
            }
        }
        return .torn
    }

    /// Sleeps until `frame` moves on from `seen` (FUTEX_WAIT on the low 32 bits at
    /// offset 48, shared), a wake-up (a new frame, or the writer leaving), or
    /// `timeoutSeconds`. Returns at once when the frame is already past `seen`.
    package func waitForChange(from seen: UInt64, timeoutSeconds: Double) throws -> SharedWord.WaitOutcome {
        if frame != seen { return .changed }
        return try SharedWord.wait(
            at: frameWord, expected: UInt32(truncatingIfNeeded: seen), timeoutSeconds: timeoutSeconds)
    }

    /// True when NAME now names another object than the one mapped (or nothing): the
    /// writer replaced it (another layout) or it was removed. Readers then reopen.
    package func replaced() -> Bool {
        guard let st = try? FileStatus.of(path, followLinks: false) else { return true }
        return st.inode != inode
    }
}
