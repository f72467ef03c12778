import Glibc
import LinuxSystem
import Raster
import TestSupport
import Testing

@testable import Output
@testable import SharedMemory

/// The table of docs/SHM.md, "The object", copied here as data:
/// (offset, size in bytes, field).
let specTable: [(Int, Int, String)] = [
    (0, 4, "magic"), (4, 4, "version"), (8, 4, "header_size"), (12, 4, "width"), (16, 4, "height"),
    (20, 4, "stride"), (24, 4, "fourcc"), (28, 4, "buffer_count"), (32, 8, "buffer_offset"),
    (40, 8, "buffer_size"), (48, 8, "frame"), (56, 8, "frame_time_ns"), (64, 4, "focal_x"),
    (68, 4, "focal_y"), (72, 4, "writer_pid"),
]

func le<T: FixedWidthInteger>(_ b: [UInt8], _ at: Int, _: T.Type) -> T {
    (0..<MemoryLayout<T>.size).reduce(T.zero) { $0 | T(b[at + $1]) << (8 * $1) }
}

struct SharedMemoryHeaderTests {
    @Test func offsetsMatchTheSpecTable() {
        typealias O = SharedMemoryHeader.Offset
        let ours = [
            O.magic, O.version, O.headerSize, O.width, O.height, O.stride, O.fourcc, O.bufferCount,
            O.bufferOffset, O.bufferSize, O.frame, O.frameTimeNanoseconds, O.focalX, O.focalY, O.writerPID,
        ]
        #expect(ours == specTable.map(\.0))
        // Contiguous, ending where the reserved bytes start, inside 128 bytes.
        for (a, b) in zip(specTable, specTable.dropFirst()) { #expect(a.0 + a.1 == b.0, "\(a.2) -> \(b.2)") }
        #expect(specTable.last!.0 + specTable.last!.1 == O.reserved && O.reserved == 76)
        #expect(SharedMemoryHeader.size == 128)
    }

    @Test func bytesAtTheSpecOffsets() {
        var h = SharedMemoryHeader(width: 700, height: 467)
        h.frame = 0x1_0000_0005
        h.frameTimeNanoseconds = 123_456_789_012
        h.focalX = 175
        h.focalY = 233.25
        h.writerPID = 4242
        let b = h.bytes
        #expect(b.count == 128)
        #expect(Array(b[0..<4]) == Array("SHMR".utf8))
        #expect(le(b, 4, UInt32.self) == 1)
        #expect(le(b, 8, UInt32.self) == 128)
        #expect(le(b, 12, UInt32.self) == 700)
        #expect(le(b, 16, UInt32.self) == 467)
        #expect(le(b, 20, UInt32.self) == 2800)
        #expect(le(b, 24, UInt32.self) == 0x3432_5258)
        #expect(Array(b[24..<28]) == Array("XR24".utf8))
        #expect(le(b, 28, UInt32.self) == 3)
        #expect(le(b, 32, UInt64.self) == 4096)
        // 2800 * 467 = 1 307 600 bytes, rounded up to 320 pages.
        #expect(le(b, 40, UInt64.self) == 1_310_720)
        #expect(le(b, 48, UInt64.self) == 0x1_0000_0005)
        #expect(le(b, 48, UInt32.self) == 5, "the futex word is the low half of frame")
        #expect(le(b, 56, UInt64.self) == 123_456_789_012)
        #expect(Float(bitPattern: le(b, 64, UInt32.self)) == 175)
        #expect(Float(bitPattern: le(b, 68, UInt32.self)) == 233.25)
        #expect(le(b, 72, UInt32.self) == 4242)
        #expect(b[76..<128].allSatisfy { $0 == 0 }, "reserved bytes are zero")
        #expect(SharedMemoryHeader(bytes: b) == h)
    }

    @Test(arguments: [(1, 1), (700, 467), (1024, 1024), (33, 7)])
    func buffersArePageAligned(_ size: (Int, Int)) {
        let h = SharedMemoryHeader(width: size.0, height: size.1, bufferCount: 4)
        #expect(h.bufferOffset % 4096 == 0 && h.bufferOffset >= 128)
        #expect(h.bufferSize % 4096 == 0 && h.bufferSize >= UInt64(size.0 * 4 * size.1))
        #expect(h.bufferSize < UInt64(size.0 * 4 * size.1 + 4096))
        for k in 0..<4 { #expect(h.offset(ofBuffer: k) % 4096 == 0) }
        #expect(h.totalSize == 4096 + 4 * Int(h.bufferSize))
    }

    @Test func rejectsForeignBytes() {
        var b = SharedMemoryHeader(width: 10, height: 10).bytes
        b[0] = UInt8(ascii: "X")
        #expect(SharedMemoryHeader(bytes: b) == nil)
        b = SharedMemoryHeader(width: 10, height: 10).bytes
        b[4] = 2
        #expect(SharedMemoryHeader(bytes: b) == nil, "another version")
    }
}

/// The sink against a scratch directory standing in for /dev/shm.
@Suite(.serialized)
final class SharedMemorySinkTests {
    let scratch = ScratchDirectory("shm-test")
    var dir: String { scratch.path }

    func header(_ name: String) throws -> SharedMemoryHeader {
        try #require(SharedMemoryHeader(bytes: Array(FileSystem.read(dir + "/" + name).prefix(128))))
    }

    @Test func createsPublishesRotatesAndDetaches() throws {
        let sink = try SharedMemorySink(name: "a", mode: 0o640, width: 20, height: 10, directory: dir, log: quietLog)
        let st = try FileStatus.of(dir + "/a")
        #expect(st.permissions == 0o640 && st.kind == .regular && st.size == 4096 + 3 * 4096)
        #expect(try header("a").writerPID == UInt32(getpid()))
        #expect(try header("a").frame == 0)
        var slots: [Int] = []
        for n in 1...4 {
            let slot = sink.nextSlot()
            slots.append(slot)
            sink.target(slot: slot).pixmap.fill(UInt32(n))
            try sink.publish(
                slot: slot,
                FrameInfo(number: UInt64(n), timeNanoseconds: UInt64(n) * 1000, focalX: 1.5, focalY: Double(n)))
        }
        #expect(slots == [0, 1, 2, 0], "frame f+1 goes to buffer f mod 3")
        let h = try header("a")
        #expect(h.frame == 4 && h.frameTimeNanoseconds == 4000 && h.focalX == 1.5 && h.focalY == 4)
        let bytes = try FileSystem.read(dir + "/a")
        // Frame 4 is in buffer (4 - 1) mod 3 = 0; frame 3 in buffer 2.
        #expect(le(bytes, h.offset(ofBuffer: 0), UInt32.self) == 4)
        #expect(le(bytes, h.offset(ofBuffer: 2) + 19 * 4 + 9 * 80, UInt32.self) == 3)
        sink.close()
        #expect(try header("a").writerPID == 0)
        #expect(FileSystem.exists(dir + "/a"), "the object is kept on exit")
    }

    @Test func restartContinuesTheFrameCounter() throws {
        do {
            let s = try SharedMemorySink(name: "b", mode: 0o600, width: 8, height: 8, directory: dir, log: quietLog)
            for _ in 0..<5 {
                try s.publish(slot: s.nextSlot(), FrameInfo(number: 1, timeNanoseconds: 1, focalX: 0, focalY: 0))
            }
            s.close()
        }
        let ino = try FileStatus.of(dir + "/b").inode
        let notes = LogCapture()
        let again = try SharedMemorySink(name: "b", mode: 0o644, width: 8, height: 8, directory: dir, log: notes.log)
        #expect(again.reused && again.frame == 5 && again.nextSlot() == 2)
        #expect(try FileStatus.of(dir + "/b").inode == ino, "same object: readers keep their mapping")
        #expect(try FileStatus.of(dir + "/b").permissions == 0o644, "Sink.mode applies to a reused object")
        #expect(try header("b").writerPID == UInt32(getpid()))
        #expect(notes.lines.contains { $0.contains("reusing") && $0.contains("frame 5") })
        try again.publish(slot: 2, FrameInfo(number: 1, timeNanoseconds: 1, focalX: 0, focalY: 0))
        #expect(try header("b").frame == 6)
        again.close()
        // Another card size: a new object (new inode), frame from 0.
        let other = try SharedMemorySink(name: "b", mode: 0o600, width: 9, height: 8, directory: dir, log: quietLog)
        #expect(!other.reused && other.frame == 0)
        #expect(try FileStatus.of(dir + "/b").inode != ino)
        other.close()
    }

    @Test func refusesSymbolicLinks() throws {
        let target = dir + "/target"
        try FileSystem.writeAtomically([1, 2, 3], to: target)
        symlink(target, dir + "/link")
        #expect {
            try SharedMemorySink(name: "link", mode: 0o640, width: 8, height: 8, directory: dir, log: quietLog)
        } throws: { e in
            (e as? SinkError)?.message.contains("symbolic link") == true
        }
        #expect(try FileSystem.read(target) == [1, 2, 3], "the link's target is untouched")
    }

    @Test(.enabled(if: geteuid() == 0, "giving a file to another user (chown) needs root"))
    func refusesAnotherUsersObject() throws {
        let path = dir + "/theirs"
        try FileSystem.writeAtomically([UInt8](repeating: 0, count: 64), to: path)
        try #require(chown(path, 65534, 65534) == 0, "set up: the object belongs to uid 65534")
        #expect {
            try SharedMemorySink(name: "theirs", mode: 0o640, width: 8, height: 8, directory: dir, log: quietLog)
        } throws: { e in
            (e as? SinkError)?.message.contains("owned by uid 65534") == true
        }
        #expect(try FileStatus.of(path).size == 64, "not truncated, not replaced")
    }

    @Test func deletedWhileInUseIsRecreatedOnceASecondCheck() throws {
        let notes = LogCapture()
        var now = 0.0
        let sink = try SharedMemorySink(
            name: "d", mode: 0o640, width: 8, height: 8, directory: dir,
            log: notes.log, clock: { now })
        for n in 1...2 {
            let slot = sink.nextSlot()
            sink.target(slot: slot).pixmap.fill(UInt32(0x100 + n))
            try sink.publish(slot: slot, FrameInfo(number: UInt64(n), timeNanoseconds: 7, focalX: 3, focalY: 4))
        }
        sink.maintain()
        #expect(sink.targetGeneration == 0 && notes.lines.isEmpty, "linked: nothing to do")
        let ino = try FileStatus.of(dir + "/d").inode
        let old = open(dir + "/d", O_RDONLY)  // a reader holding the old object
        defer { close(old) }
        try unlinkFile(dir + "/d")
        now = 0.5
        sink.maintain()
        #expect(!FileSystem.exists(dir + "/d"), "checked at most once a second")
        now = 1.0
        sink.maintain()
        let st = try FileStatus.of(dir + "/d")
        #expect(st.inode != ino && st.permissions == 0o640 && st.kind == .regular)
        #expect(sink.targetGeneration == 1 && sink.recreations == 1)
        #expect(notes.lines.count == 1 && notes.lines[0].contains("deleted while in use; created it again at frame 2"))
        let h = try header("d")
        #expect(h.frame == 2 && h.writerPID == UInt32(getpid()) && h.frameTimeNanoseconds == 7 && h.focalY == 4)
        let bytes = try FileSystem.read(dir + "/d")
        #expect(le(bytes, h.offset(ofBuffer: 1), UInt32.self) == 0x102, "frame 2's buffer copied over")
        var pid: UInt32 = 1
        pread(old, &pid, 4, 72)
        #expect(pid == 0, "the deleted object's readers learn the writer left")
        // Frames go on into the new object, in the new memory.
        let slot = sink.nextSlot()
        sink.target(slot: slot).pixmap.fill(0x103)
        try sink.publish(slot: slot, FrameInfo(number: 3, timeNanoseconds: 8, focalX: 0, focalY: 0))
        #expect(try header("d").frame == 3)
        let after = try FileSystem.read(dir + "/d")
        #expect(le(after, h.offset(ofBuffer: 2), UInt32.self) == 0x103)
        sink.close()
    }

    @Test func aNameTakenAfterDeletionIsNotTakenOver() throws {
        let notes = LogCapture()
        var now = 0.0
        let sink = try SharedMemorySink(
            name: "e", mode: 0o640, width: 8, height: 8, directory: dir,
            log: notes.log, clock: { now })
        try unlinkFile(dir + "/e")
        symlink("/etc/passwd", dir + "/e")  // someone put a link there
        for t in 1...3 {
            now = Double(t)
            sink.maintain()
        }
        #expect(
            notes.lines.count == 1 && notes.lines[0].contains("cannot be recreated")
                && notes.lines[0].contains("not taking it over"))
        #expect(sink.targetGeneration == 0)
        #expect(try FileStatus.of(dir + "/e", followLinks: false).kind == .symbolicLink, "left alone")
        unlink(dir + "/e")
        now = 4
        sink.maintain()
        let kind = try FileStatus.of(dir + "/e", followLinks: false).kind
        #expect(sink.targetGeneration == 1 && kind == .regular)
        sink.close()
    }

    @Test func refusesALiveWriter() throws {
        let first = try SharedMemorySink(name: "c", mode: 0o640, width: 8, height: 8, directory: dir, log: quietLog)
        // Pretend another live process (our parent) is the writer.
        let fd = open(dir + "/c", O_RDWR)
        var ppid = UInt32(getppid())
        pwrite(fd, &ppid, 4, 72)
        close(fd)
        #expect {
            try SharedMemorySink(name: "c", mode: 0o640, width: 8, height: 8, directory: dir, log: quietLog)
        } throws: { e in
            (e as? SinkError)?.message.contains("being written by process \(getppid())") == true
        }
        first.close()
    }
}

struct SharedWordTests {
    /// FUTEX_WAKE on a word that is not 4-byte aligned fails with EINVAL: the failure
    /// reaches the caller (the sink then logs it) instead of vanishing.
    @Test func aWakeThatFailsSaysWhy() throws {
        let words = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
        defer { words.deallocate() }
        #expect(try SharedWord.wake(at: words) == 0)
        #expect(throws: SystemError("futex wake", errno: EINVAL)) { try SharedWord.wake(at: words + 1) }
    }
}
