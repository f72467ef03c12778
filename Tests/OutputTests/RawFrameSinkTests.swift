import Glibc
import LinuxSystem
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
        let sink = try RawFrameSink(path: path, width: 3, height: 2, fps: 10, clock: { clock.now })
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
        let sink = try RawFrameSink(path: path, width: 4, height: 4, fps: 60, clock: { clock.now })
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
        let sink = try RawFrameSink(path: path, width: 2, height: 2, fps: 60, clock: { clock.now })
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
}
