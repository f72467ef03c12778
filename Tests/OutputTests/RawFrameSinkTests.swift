import Glibc
import LinuxSystem
import Raster
import Testing

@testable import Output

struct RawFrameSinkTests {
    final class FakeClock: @unchecked Sendable {
        var now = 100.0
    }

    @Test func wholeFramesAtMostFpsPerSecond() throws {
        let path = "/tmp/raw-test-\(getpid()).bin"
        defer { unlink(path) }
        let clock = FakeClock()
        let sink = try RawFrameSink(path: path, width: 3, height: 2, fps: 10, clock: { clock.now }, log: quietLog)
        let info = FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0)
        for (i, t) in [0.0, 0.01, 0.02, 0.03, 0.1, 0.25, 0.26, 0.27, 0.28].enumerated() {
            clock.now = 100 + t
            sink.target(slot: 0).pixmap.fill(UInt32(i))
            try sink.publish(slot: 0, info)
        }
        sink.close()
        // 10 fps, 2 tokens banked at the start: 0.0 and 0.01 spend them, 0.02 and 0.03
        // find none; 0.1 has earned one; 0.25 finds 1.5 (writes, 0.5 left), 0.26 0.6,
        // 0.27 0.7, 0.28 0.8: too few. Four frames in 0.28 s: at most fps * t + 2.
        #expect(sink.framesPublished == 4 && sink.framesSkipped == 5)
        let bytes = try FileSystem.read(path)
        #expect(bytes.count == 4 * 3 * 2 * 4)
        let firstWords = stride(from: 0, to: bytes.count, by: 24).map { le(bytes, $0, UInt32.self) }
        #expect(firstWords == [0, 1, 4, 5])
    }

    /// A reader that goes away: EPIPE (SIGPIPE ignored, as the daemon does) is a
    /// permanent error naming the output. (A FIFO, so stdout of the test runner is untouched.)
    @Test func epipeEndsTheSink() throws {
        signal(SIGPIPE, SIG_IGN)
        let path = "/tmp/raw-epipe-\(getpid())"
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let clock = FakeClock()
        let sink = try RawFrameSink(path: path, width: 4, height: 4, fps: 60, clock: { clock.now }, log: quietLog)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        #expect(sink.framesPublished == 1)
        close(reader)
        clock.now += 1
        #expect {
            try sink.publish(slot: 0, FrameInfo(number: 2, timeNanoseconds: 0, focalX: 0, focalY: 0))
        } throws: { e in
            let s = e as? SinkError
            return s?.permanent == true && s?.message.contains("EPIPE") == true && s?.message.contains(path) == true
        }
        #expect(sink.framesPublished == 1)
    }

    @Test func fifoWithoutAReaderSkipsFrames() throws {
        let path = "/tmp/raw-fifo-\(getpid())"
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let clock = FakeClock()
        let sink = try RawFrameSink(path: path, width: 2, height: 2, fps: 60, clock: { clock.now }, log: quietLog)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        #expect(sink.framesPublished == 0 && sink.framesSkipped == 1)
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        sink.target(slot: 0).pixmap.fill(0x0102_0304)
        clock.now += 1
        try sink.publish(slot: 0, FrameInfo(number: 2, timeNanoseconds: 0, focalX: 0, focalY: 0))
        #expect(sink.framesPublished == 1)
        var buf = [UInt8](repeating: 0, count: 64)
        let n = read(reader, &buf, 64)
        #expect(n == 16 && Array(buf[0..<4]) == [4, 3, 2, 1])
    }

    /// A FIFO whose reader does not read: the pipe (64 KiB) takes part of a 256 KiB
    /// frame, `publish` returns at once, later frames are dropped as `.readerBusy`, and
    /// once the reader drains the pipe the frame in flight is finished: the stream holds
    /// whole frames only.
    /// A new FIFO with a reader that has not read yet (non-blocking), for `body`.
    func withFIFO(_ name: String, _ body: (_ path: String, _ reader: Int32) throws -> Void) throws {
        let path = "/tmp/\(name)-\(getpid())"
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        try body(path, reader)
    }

    @Test func aFullPipeNeverBlocksAndOnlyWholeFramesGoOut() throws {
        try withFIFO("raw-stall") { path, reader in try fullPipe(path, reader) }
    }

    func fullPipe(_ path: String, _ reader: Int32) throws {
        let clock = FakeClock()
        let sink = try RawFrameSink(path: path, width: 256, height: 256, fps: 60, clock: { clock.now }, log: quietLog)
        let frameBytes = 256 * 256 * 4
        sink.target(slot: 0).pixmap.fill(0x1111_1111)
        #expect(try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0)) == .published)
        #expect(sink.bytesInFlight > 0 && sink.bytesInFlight < frameBytes)
        // The renderer paints the next frame into the sink's buffer meanwhile.
        sink.target(slot: 0).pixmap.fill(0x2222_2222)
        clock.now += 1
        #expect(
            try sink.publish(slot: 0, FrameInfo(number: 2, timeNanoseconds: 0, focalX: 0, focalY: 0))
                == .dropped(.readerBusy))
        // The loop's wait: the pipe's writability, through the watch of the pending write.
        let watch = try WritabilityWatch()
        #expect(sink.pendingWrite != nil && watch.watch(sink.pendingWrite))
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while got.count < frameBytes {
            let n = read(reader, &chunk, chunk.count)
            if n > 0 { got += chunk[0..<n] }
            if watch.isWritable(in: ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0)) {
                sink.continueWriting()
            }
        }
        #expect(sink.bytesInFlight == 0 && sink.pendingWrite == nil)
        #expect(got.count == frameBytes && got.allSatisfy { $0 == 0x11 })
        #expect(read(reader, &chunk, chunk.count) < 0 && errno == EAGAIN)
        clock.now += 1
        #expect(try sink.publish(slot: 0, FrameInfo(number: 3, timeNanoseconds: 0, focalX: 0, focalY: 0)) == .published)
        #expect(sink.framesPublished == 2 && sink.framesSkipped == 1)
    }

    /// A reader that never reads again: `close` gives up on the frame in flight instead
    /// of waiting for ever, and says how much of it went out.
    @Test func closeGivesUpOnAStalledReader() throws {
        try withFIFO("raw-stuck") { path, _ in try stalledClose(path) }
    }

    func stalledClose(_ path: String) throws {
        let notes = LogCapture()
        let sink = try RawFrameSink(path: path, width: 256, height: 256, fps: 60, log: notes.log)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        let inFlight = sink.bytesInFlight
        sink.close()
        #expect(inFlight > 0 && sink.unfinishedBytes == inFlight)
        #expect(notes.lines.count == 1 && notes.lines[0].contains("ends in a partial frame"))
    }

    /// An existing file is appended to, never truncated; a partial last frame (a crash
    /// mid-write) is completed with zeros first, so new frames start on a boundary.
    @Test func anExistingFileIsContinuedOnAFrameBoundary() throws {
        let path = "/tmp/raw-append-\(getpid()).bin"
        defer { unlink(path) }
        let earlier: [UInt8] = Array(repeating: 7, count: 24 + 10)  // one 3 x 2 frame and 10 bytes
        try FileSystem.writeAtomically(earlier, to: path)
        let sink = try RawFrameSink(path: path, width: 3, height: 2, fps: 60, log: quietLog)
        #expect(sink.paddedBytes == 14)
        sink.target(slot: 0).pixmap.fill(0x0909_0909)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        sink.close()
        let bytes = try FileSystem.read(path)
        #expect(bytes.count == 3 * 24)
        #expect(
            Array(bytes[0..<34]) == earlier && bytes[34..<48].allSatisfy { $0 == 0 }
                && bytes[48...].allSatisfy { $0 == 9 })
    }
}
