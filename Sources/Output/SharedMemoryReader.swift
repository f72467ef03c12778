import Glibc
import LinuxSystem

/// The reading side of the shared-memory frames object (spec/interfaces.md "Shared-memory
/// frames"; docs/SHM.md "Reading"). It never writes: the object is opened O_RDONLY |
/// O_NOFOLLOW and mapped PROT_READ, so a bug here cannot disturb the daemon or other
/// readers.
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
        /// a version 1 SHMR object.
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
    }

    package let path: String
    /// The layout at open (the frame, time, focal point and writer fields are live: read
    /// them with the accessors below).
    package let header: SharedMemoryHeader
    /// st_ino of the mapped object, to notice a replacement under the same name.
    package let inode: UInt64
    private let mapping: MemoryMapping

    /// Opens /dev/shm/NAME (`directory`/`name`) read-only and maps all of it.
    package init(name: String, directory: String = "/dev/shm") throws(OpenError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw .refused("invalid segment name \"\(name)\"")
        }
        path = directory + "/" + name
        let fd: FileDescriptor
        do {
            let dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
            fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDONLY)
        } catch let e as SystemError where e.errno == ENOENT {
            throw .missing("\(path) does not exist")
        } catch let e as SystemError where e.errno == ELOOP {
            throw .refused("\(path) is a symbolic link; refusing to follow it")
        } catch {
            throw .refused("\(error)")
        }
        let st: FileStatus
        do { st = try fd.status() } catch { throw .refused("\(error)") }
        guard st.kind == .regular else { throw .refused("\(path) is not a regular file") }
        guard st.size >= SharedMemoryHeader.size else { throw .notReady("\(path) is \(st.size) bytes, still being created") }
        let m: MemoryMapping
        do { m = try MemoryMapping(fd, byteCount: st.size, writable: false) } catch { throw .refused("\(error)") }
        // The writer stores the magic last, so a header with the magic is complete.
        guard SharedWord.loadAcquire32(at: m.base) == UInt32(littleEndian: 0x524D_4853) else {   // "SHMR"
            throw .notReady("\(path) has no SHMR header yet")
        }
        let bytes = Array(UnsafeRawBufferPointer(start: m.base, count: SharedMemoryHeader.size))
        guard let h = SharedMemoryHeader(bytes: bytes) else {
            throw .refused("\(path) is not a version 1 SHMR object with a consistent layout")
        }
        guard h.fourcc == SharedMemoryHeader.xrgb8888 else {
            throw .refused("\(path) has pixel format 0x\(String(h.fourcc, radix: 16)), not XRGB8888")
        }
        guard h.stride >= h.width * 4, st.size >= h.totalSize else {
            throw .refused("\(path) is \(st.size) bytes, too small for its \(h.bufferCount) buffers")
        }
        header = h
        inode = st.inode
        mapping = m
    }

    private var frameWord: UnsafeRawPointer { UnsafeRawPointer(mapping.base + SharedMemoryHeader.Offset.frame) }

    /// Number of the newest complete frame (acquire load of offset 48); 0 = none yet.
    package var frame: UInt64 { SharedWord.loadAcquire(at: mapping.base + SharedMemoryHeader.Offset.frame) }

    /// The writer's pid; 0 when no writer is attached (it exited, or retired the object).
    package var writerPID: UInt32 { SharedWord.loadAcquire32(at: mapping.base + SharedMemoryHeader.Offset.writerPID) }

    /// Hands the newest frame's pixels (`header.height` rows of `header.stride` bytes,
    /// XRGB8888) to `body`, per docs/SHM.md: load `frame` as f1, let `body` copy buffer
    /// (f1 - 1) mod N, load `frame` again as f2; the copy is good when f2 - f1 <= N - 2,
    /// else it is retried. The focal point is read between the loads (informative when
    /// the writer raced it, docs/SHM.md).
    package func readNewest<E: Error>(tries: Int = 8, _ body: (UnsafeRawPointer) throws(E) -> Void) throws(E) -> Read {
        let n = UInt64(header.bufferCount)
        for _ in 0..<tries {
            let f1 = frame
            if f1 == 0 { return .noFrame }
            let base = UnsafeRawPointer(mapping.base)
            let focalX = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: SharedMemoryHeader.Offset.focalX, as: UInt32.self)))
            let focalY = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: SharedMemoryHeader.Offset.focalY, as: UInt32.self)))
            try body(base + header.offset(ofBuffer: Int((f1 - 1) % n)))
            let f2 = frame
            if f2 &- f1 <= n - 2 { return .frame(number: f1, focalX: focalX, focalY: focalY) }
        }
        return .torn
    }

    /// Sleeps until `frame` moves on from `seen` (FUTEX_WAIT on the low 32 bits at
    /// offset 48, shared), a wake-up (a new frame, or the writer leaving), or
    /// `timeoutSeconds`. Returns at once when the frame is already past `seen`.
    package func waitForChange(from seen: UInt64, timeoutSeconds: Double) throws -> SharedWord.WaitOutcome {
        if frame != seen { return .changed }
        return try SharedWord.wait(at: frameWord, expected: UInt32(truncatingIfNeeded: seen), timeoutSeconds: timeoutSeconds)
    }

    /// True when NAME now names another object than the one mapped (or nothing): the
    /// writer replaced it (another layout) or it was removed. Readers then reopen.
    package func replaced() -> Bool {
        guard let st = try? FileStatus.of(path, followLinks: false) else { return true }
        return st.inode != inode
    }
}
