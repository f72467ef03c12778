import Glibc
import LinuxSystem
import Logging
import Raster
import SharedMemory

/// Frames in a POSIX shared-memory object, /dev/shm/NAME, in the format of
/// docs/SHM.md ("The object"; "Reading" for readers).
///
/// - Rotation: frame f+1 is painted into buffer f mod N (N = 3), straight into the
///   shared memory (each buffer has its own renderer target, so only changed dots are
///   repainted). Then `frame_time_ns` and the focal point are written, `frame = f+1` is
///   stored with release ordering, and every FUTEX_WAIT on offset 48 is woken (a shared
///   futex: no FUTEX_PRIVATE_FLAG).
/// - Creation: `openat(/dev/shm, NAME, O_CREAT | O_EXCL | O_NOFOLLOW)`, then `fchown` to
///   `group` when one is given (the viewers' group, whose members read the frames: not the
///   daemon's own, which may write the sensors' attributes) and `fchmod` to `Sink.mode`
///   (so the umask does not change it); a reused or recreated object gets the same. An existing NAME is opened with
///   O_NOFOLLOW (a symbolic link fails with ELOOP and is refused), must be a regular file
///   owned by this user, and must not have a live writer (writer_pid alive): otherwise
///   the sink refuses to start.
/// - Exit: writer_pid is set to 0, waiters are woken, the object is kept, so readers
///   keep their mapping and the last frame.
/// - Restart: an existing object with the same layout is reused as it is: the frame
///   counter continues from its value (readers see frame numbers keep increasing and
///   need not reopen), writer_pid becomes the new pid. An object with another layout
///   (a different card size) is marked writer_pid 0, woken, unlinked and created anew:
///   readers holding the old mapping are never truncated under (no SIGBUS); they notice
///   the new object by reopening NAME (docs/SHM.md: compare st_ino).
/// - Deleted by someone else (`rm /dev/shm/NAME` while it runs): `maintain` checks once
///   a second whether the object is still linked (fstat st_nlink); when it is not, a new
///   object is created the same safe way (O_CREAT | O_EXCL | O_NOFOLLOW, fchmod), the
///   buffers are copied over and the frame counter continues, the old object gets
///   writer_pid 0 and a wake-up (its readers reopen NAME), and `targetGeneration`
///   changes so the pipeline repaints into the new memory. One line reports it. If NAME
///   was taken meanwhile (by anyone), nothing is taken over: frames go on into the
///   unlinked object, the line says why, and the check repeats.
package final class SharedMemorySink: FrameSink {
    package let name: String
    package let path: String
    package let header: SharedMemoryHeader
    /// True when an existing object was reused (restart), false when created.
    package let reused: Bool
    private var mapping: MemoryMapping
    private var mode: mode_t
    /// The group the object is given; nil: the process's own.
    private let group: gid_t?
    private let directory: String
    private let log: Logger
    /// The errno of the last failed wake-up, so that it is reported once.
    private var wakeFailure: Int32?
    private let clock: () -> Double
    private var nextLinkCheck = -Double.infinity
    private var lastRecreateFailure: String?
    package private(set) var targetGeneration = 0
    /// Objects created because the previous one was deleted while in use.
    package private(set) var recreations = 0
    /// Seconds between checks that the object is still linked (one fstat(2)).
    static let linkCheckInterval = 1.0
    /// Number of the newest frame in the object (continues across restarts).
    package private(set) var frame: UInt64
    package private(set) var framesPublished: UInt64 = 0
    private var closed = false
    /// Readers claim the frames on the system bus (`shimmerd view` does while its window is open).
    package var audience: FrameAudience { .claimants }

    /// - Parameters:
    ///   - group: the group that may read the frames (`Sink.mode`'s group bits); nil for
    ///     this process's own group. The process must be root or a member.
    ///   - directory: where POSIX shared memory lives (/dev/shm).
    ///   - log: one line for a notable decision (reused, replaced, recreated) or failure.
    ///   - clock: monotonic seconds, for the once-a-second link check.
    package init(
        name: String, mode: mode_t, group: gid_t? = nil, width: Int, height: Int, directory: String = "/dev/shm",
        log: Logger, clock: @escaping () -> Double = MonotonicClock.seconds
    ) throws(SinkError) {
        func fail(_ message: String) -> SinkError { SinkError(sink: "shm", message, permanent: true) }
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw fail("invalid segment name \"\(name)\"")
        }
        self.name = name
        self.mode = mode
        self.group = group
        self.directory = directory
        self.log = log
        self.clock = clock
        path = directory + "/" + name
        if let why = SharedMemoryHeader.unsupportedSize(width: width, height: height) { throw fail(why) }
        guard mode & 0o7022 == 0 else {
            throw fail(
                "mode 0\(String(mode, radix: 8)) would let others write \(path); use one without group or other write (0640)"
            )
        }
        let layout = SharedMemoryHeader(width: width, height: height)
        header = layout
        let (fd, existing, created) = try Self.openOrReplace(
            name, in: directory, path: path, mode: mode, layout: layout, log: log)
        mapping = try Self.map(
            fd, created: created, mode: mode, group: group, layout: layout, path: path, directory: directory)
        reused = existing != nil
        let base = mapping.base
        if let existing {
            frame = existing.frame
        } else {
            frame = 0
            Self.writeHeader(layout, at: base)
        }
        SharedWord.storeRelease32(UInt32(getpid()), at: base + SharedMemoryHeader.Offset.writerPID)
    }

    /// The object at `path`: created, or the one an earlier run left (its header then
    /// returned) when it may be reused; one another live process writes is refused, and
    /// any other is replaced by a new one.
    private static func openOrReplace(
        _ name: String, in directory: String, path: String, mode: mode_t,
        layout: SharedMemoryHeader, log: Logger
    )
        throws(SinkError) -> (fd: FileDescriptor, existing: SharedMemoryHeader?, created: Bool)
    {
        func fail(_ message: String) -> SinkError { SinkError(sink: "shm", message, permanent: true) }
        let dir: FileDescriptor
        do { dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY) } catch { throw fail("\(error)") }
        var fd: FileDescriptor
        do {
            fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDWR | O_CREAT | O_EXCL, mode: mode)
            return (fd, nil, true)
        } catch let e as SystemError where e.errno == EEXIST {
            do {
                fd = try openExisting(dir, name, path: path)
            } catch let e as SinkError {
                throw e
            } catch { throw fail("\(error)") }
        } catch { throw fail("\(error)") }

        let existing = readHeader(fd)
        if let h = existing, h.writerPID != 0, h.writerPID != UInt32(getpid()), kill(pid_t(h.writerPID), 0) == 0 {
            throw fail("\(path) is being written by process \(h.writerPID); refusing to share it (set Sink.name)")
        }
        let why = whyNotReusable(existing, fd, layout: layout)
        if let h = existing, why == nil {
            log.notice("shm \(path): reusing the existing object at frame \(h.frame)")
            return (fd, h, false)
        }
        // Another layout, a mode that let others write, a counter at its end, not
        // ours at all: whoever holds it keeps the old object; this run starts a new one.
        detachOld(fd, log: log)
        do {
            try unlinkFile(path)
            fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDWR | O_CREAT | O_EXCL, mode: mode)
        } catch { throw fail("cannot replace \(path): \(error)") }
        log.warning(
            "shm \(path): the existing object \(why ?? "had another layout"); replaced it (readers must reopen)")
        return (fd, nil, true)
    }

    /// The object's mode set and its memory mapped; a new one's pages reserved first, and
    /// a new one removed again when that fails.
    private static func map(
        _ fd: FileDescriptor, created: Bool, mode: mode_t, group: gid_t?, layout: SharedMemoryHeader,
        path: String, directory: String
    ) throws(SinkError) -> MemoryMapping {
        do {
            if let group { try fd.setGroup(group) }
            try fd.setMode(mode)
            if created { try reserve(fd, layout.totalSize, path: path, directory: directory) }
            return try MemoryMapping(fd, byteCount: layout.totalSize)
        } catch let e as SinkError {
            if created { try? unlinkFile(path) }
            throw e
        } catch {
            if created { try? unlinkFile(path) }
            throw SinkError(sink: "shm", "\(error)", permanent: true)
        }
    }

    /// A new object's header, with this process as its writer: every field first, the
    /// magic last, so a reader never accepts a half-written header.
    private static func writeHeader(_ layout: SharedMemoryHeader, at base: UnsafeMutableRawPointer) {
        var h = layout
        h.writerPID = UInt32(getpid())
        let bytes = h.bytes
        (base + 4).copyMemory(from: Array(bytes[4...]), byteCount: bytes.count - 4)
        SharedWord.storeRelease32(UInt32(littleEndian: bytes.withUnsafeBytes { $0.load(as: UInt32.self) }), at: base)
    }

    deinit { close() }

    /// Why an object left by an earlier run must not be reused; nil when it may.
    private static func whyNotReusable(
        _ existing: SharedMemoryHeader?, _ fd: FileDescriptor,
        layout: SharedMemoryHeader
    ) -> String? {
        guard let h = existing else { return "had no valid header" }
        guard h.hasSameLayout(as: layout) else { return "had another layout" }
        guard let st = try? fd.status() else { return "could not be examined" }
        // Others may have opened it for writing while it allowed them; a later fchmod
        // would not take their descriptors away.
        if st.permissions & 0o7022 != 0 {
            return "had mode 0\(String(st.permissions, radix: 8)) (others could write it)"
        }
        if st.size != h.totalSize { return "is \(st.size) bytes, not the \(h.totalSize) of its layout" }
        if h.frame >= maximumReusedFrame { return "had frame counter \(h.frame), near its end" }
        return nil
    }

    /// A reused object's frame counter goes on from where it is: far below 2^64, so
    /// `frame += 1` cannot overflow (at 1000 frames a second, 2^62 lasts 146 million years).
    static let maximumReusedFrame: UInt64 = 1 << 62

    /// ftruncate and posix_fallocate: the object's pages are reserved now, so a full
    /// /dev/shm is one line at start instead of a SIGBUS at the first store into a page
    /// tmpfs cannot supply.
    private static func reserve(_ fd: FileDescriptor, _ size: Int, path: String, directory: String) throws {
        try fd.truncate(to: size)
        do { try fd.reserve(size) } catch let e as SystemError where e.errno == ENOSPC {
            throw SinkError(
                sink: "shm",
                "\(path): \(directory) has no room for its \(size) bytes (No space left on device); "
                    + "free space there or make it larger", permanent: true)
        }
    }

    private static func openExisting(_ dir: FileDescriptor, _ name: String, path: String) throws -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDWR)
        } catch let e as SystemError where e.errno == ELOOP {
            throw SinkError(sink: "shm", "\(path) is a symbolic link; refusing to follow it", permanent: true)
        } catch let e as SystemError where e.errno == EACCES {
            // Most often someone else's object (an earlier run as root): say whose.
            if let st = try? FileStatus.of(path, followLinks: false) { try refuseAnotherOwner(st, path: path) }
            throw e
        }
        let st = try fd.status()
        guard st.kind == .regular else {
            throw SinkError(sink: "shm", "\(path) is not a regular file; refusing to use it", permanent: true)
        }
        try refuseAnotherOwner(st, path: path)
        return fd
    }

    private static func refuseAnotherOwner(_ st: FileStatus, path: String) throws(SinkError) {
        guard st.ownerUID == effectiveUserID() else {
            let owner = "uid \(st.ownerUID)" + (userName(of: st.ownerUID).map { " (\($0))" } ?? "")
            let me = "uid \(effectiveUserID())" + (userName(of: effectiveUserID()).map { " (\($0))" } ?? "")
            throw SinkError(
                sink: "shm",
                "\(path) is owned by \(owner), not by \(me) that runs shimmerd; not taking it over. "
                    + "If no shimmerd of \(owner) uses it (an earlier run as that user left it): sudo rm \(path); "
                    + "else set Sink.name", permanent: true)
        }
    }

    private static func readHeader(_ fd: FileDescriptor) -> SharedMemoryHeader? {
        guard let st = try? fd.status(), st.size >= SharedMemoryHeader.size,
            let m = try? MemoryMapping(fd, byteCount: SharedMemoryHeader.size, writable: false)
        else { return nil }
        let bytes = Array(UnsafeRawBufferPointer(start: m.base, count: SharedMemoryHeader.size))
        guard let h = SharedMemoryHeader(bytes: bytes), st.size >= h.totalSize else { return nil }
        return h
    }

    /// Marks an object being replaced as writerless and wakes its readers.
    private static func detachOld(_ fd: FileDescriptor, log: Logger) {
        guard readHeader(fd) != nil, let m = try? MemoryMapping(fd, byteCount: SharedMemoryHeader.size) else { return }
        SharedWord.storeRelease32(0, at: m.base + SharedMemoryHeader.Offset.writerPID)
        do { try SharedWord.wake(at: m.base + SharedMemoryHeader.Offset.frame) } catch {
            log.warning("shm: the readers of the object being replaced could not be woken: \(error)")
        }
    }

    /// The next check whether someone deleted the object, which may come up to one
    /// interval late: a wakeup for something else (a still device's backstop read) serves
    /// it, and an object deleted is recreated within two seconds instead of one.
    package var maintenanceIn: Double? { closed ? nil : max(0, nextLinkCheck - clock()) + Self.linkCheckInterval }

    /// Recreates the object if someone deleted it (see the type's notes).
    package func maintain() {
        guard !closed else { return }
        let now = clock()
        guard now >= nextLinkCheck else { return }
        nextLinkCheck = now + Self.linkCheckInterval
        guard let st = try? mapping.file.status(), st.linkCount == 0 else { return }
        do {
            try recreate()
            lastRecreateFailure = nil
        } catch {
            if error.message != lastRecreateFailure {
                log.error(
                    "shm \(path) was deleted while in use and cannot be recreated: \(error.message); "
                        + "writing on into the deleted object, retrying every \(Int(Self.linkCheckInterval)) s")
                lastRecreateFailure = error.message
            }
        }
    }

    private func recreate() throws(SinkError) {
        func fail(_ e: any Error) -> SinkError { SinkError(sink: "shm", "\(e)") }
        let fresh: MemoryMapping
        do {
            let dir = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
            let fd = try FileDescriptor.openNoFollow(in: dir, name, O_RDWR | O_CREAT | O_EXCL, mode: mode)
            do {
                if let group { try fd.setGroup(group) }
                try fd.setMode(mode)
                try Self.reserve(fd, header.totalSize, path: path, directory: directory)
                fresh = try MemoryMapping(fd, byteCount: header.totalSize)
            } catch {
                try? unlinkFile(path)
                throw error
            }
        } catch let e as SystemError where e.errno == EEXIST {
            throw SinkError(sink: "shm", "\(path) exists again (someone else created it); not taking it over")
        } catch let e as SinkError {
            throw SinkError(sink: "shm", e.message)
        } catch { throw fail(error) }
        let old = mapping.base, new = fresh.base
        // The buffers first (readers of the new object find the newest frame at once),
        // then the header with this writer and frame counter, the magic last.
        new.advanced(by: Int(header.bufferOffset))
            .copyMemory(
                from: old.advanced(by: Int(header.bufferOffset)), byteCount: header.totalSize - Int(header.bufferOffset)
            )
        var h = header
        h.writerPID = UInt32(getpid())
        let bytes = h.bytes
        (new + 4).copyMemory(from: Array(bytes[4...]), byteCount: bytes.count - 4)
        for offset in [SharedMemoryHeader.Offset.frameTimeNanoseconds, SharedMemoryHeader.Offset.focalX] {
            (new + offset).copyMemory(from: old + offset, byteCount: 8)  // frame_time_ns; focal_x and focal_y
        }
        SharedWord.storeRelease(frame, at: new + SharedMemoryHeader.Offset.frame)
        SharedWord.storeRelease32(UInt32(littleEndian: bytes.withUnsafeBytes { $0.load(as: UInt32.self) }), at: new)
        // Readers of the deleted object: no writer any more; they reopen NAME.
        SharedWord.storeRelease32(0, at: old + SharedMemoryHeader.Offset.writerPID)
        wakeReaders(at: old + SharedMemoryHeader.Offset.frame)
        mapping = fresh
        targetGeneration += 1
        recreations += 1
        log.warning("shm \(path) was deleted while in use; created it again at frame \(frame) (readers must reopen)")
    }

    /// A new `Sink.mode` for the open object (a reload that kept the segment): fchmod,
    /// and the mode a recreated object gets from now on.
    package func setMode(_ newMode: mode_t) throws(SinkError) {
        guard newMode & 0o7022 == 0 else {
            throw SinkError(
                sink: "shm",
                "mode 0\(String(newMode, radix: 8)) would let others write \(path); keeping 0\(String(mode, radix: 8))")
        }
        do { try mapping.file.setMode(newMode) } catch {
            throw SinkError(sink: "shm", "cannot change the mode of \(path) to 0\(String(newMode, radix: 8)): \(error)")
        }
        mode = newMode
    }

    package var summary: String { "shm \(path)" }
    package var slotCount: Int { Int(header.bufferCount) }

    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) {
        let p = Pixmap(
            base: mapping.base + header.offset(ofBuffer: slot), width: Int(header.width),
            height: Int(header.height), stride: Int(header.stride))
        return (p, 0, 0)
    }

    /// Frame f+1 goes into buffer f mod N.
    package func nextSlot() -> Int { Int(frame % UInt64(header.bufferCount)) }

    @discardableResult
    package func publish(slot: Int, _ info: FrameInfo) throws(SinkError) -> Delivery {
        guard !closed else { throw SinkError(sink: "shm", "\(path) is closed", permanent: true) }
        guard slot == nextSlot() else {
            throw SinkError(sink: "shm", "frame \(frame + 1) painted into buffer \(slot), expected \(nextSlot())")
        }
        let base = mapping.base
        (base + SharedMemoryHeader.Offset.frameTimeNanoseconds).storeBytes(
            of: info.timeNanoseconds.littleEndian, as: UInt64.self)
        (base + SharedMemoryHeader.Offset.focalX).storeBytes(
            of: Float(info.focalX).bitPattern.littleEndian, as: UInt32.self)
        (base + SharedMemoryHeader.Offset.focalY).storeBytes(
            of: Float(info.focalY).bitPattern.littleEndian, as: UInt32.self)
        frame += 1
        SharedWord.storeRelease(frame, at: base + SharedMemoryHeader.Offset.frame)
        wakeReaders(at: base + SharedMemoryHeader.Offset.frame)
        framesPublished += 1
        return .published
    }

    /// writer_pid = 0 and a wake-up, so readers learn the writer left; the object stays.
    package func close() {
        guard !closed else { return }
        closed = true
        SharedWord.storeRelease32(0, at: mapping.base + SharedMemoryHeader.Offset.writerPID)
        wakeReaders(at: mapping.base + SharedMemoryHeader.Offset.frame)
    }

    /// FUTEX_WAKE for the readers blocked on the frame counter; a failure is said once
    /// per errno (readers then see new frames only when their wait times out).
    private func wakeReaders(at word: UnsafeMutableRawPointer) {
        do {
            try SharedWord.wake(at: word)
            wakeFailure = nil
        } catch {
            guard wakeFailure != error.errno else { return }
            wakeFailure = error.errno
            log.warning("shm \(path): readers waiting for a frame could not be woken: \(error)")
        }
    }
}
