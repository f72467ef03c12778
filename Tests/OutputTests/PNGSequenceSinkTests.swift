import Glibc
import LinuxSystem
import PNG
import Raster
import TestSupport
import Testing

@testable import Output

/// The png sink hands its frames to a writer thread: `publish` copies the frame, so what
/// the renderer paints next never reaches a frame still waiting to be compressed.
struct PNGSequenceSinkTests {
    static let width = 5, height = 3

    private func sink(in dir: ScratchDirectory) throws -> PNGSequenceSink {
        try PNGSequenceSink(
            directory: dir.path, width: Self.width, height: Self.height,
            coverage: [UInt8](repeating: 255, count: Self.width * Self.height), waitsWhenBehind: true)
    }

    @Test func everyFrameIsWrittenInOrderAsItWasWhenPublished() throws {
        let dir = ScratchDirectory("png-sink")
        defer { dir.remove() }
        let sink = try sink(in: dir)
        let frames = 40
        for i in 0..<frames {
            // Painted over at once after publishing: a frame not copied would show the next color.
            sink.target(slot: 0).pixmap.fill(0xFF00_0000 | UInt32(i))
            #expect(
                try sink.publish(slot: 0, FrameInfo(number: UInt64(i + 1), timeNanoseconds: 0, focalX: 0, focalY: 0))
                    == .published)
        }
        try sink.flush()
        sink.close()
        #expect(sink.framesPublished == UInt64(frames))
        for i in 0..<frames {
            let image = try PNGCodec.read(path: dir.file(PNGSequenceSink.fileName(UInt64(i + 1))))
            #expect(image.width == Self.width && image.height == Self.height)
            // XRGB 0x000000ii: blue is the frame's index, opaque.
            #expect(Array(image.pixels.prefix(4)) == [0, 0, UInt8(i), 255])
        }
    }

    /// A write that fails on the writer's thread (here the directory is gone) is reported
    /// by the sink, with the frames it lost taken off its count.
    @Test func aFailedWriteIsReportedWithTheFramesItLost() throws {
        let dir = ScratchDirectory("png-sink-gone")
        defer { dir.remove() }
        let sink = try sink(in: dir)
        dir.remove()
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        try sink.publish(slot: 0, FrameInfo(number: 2, timeNanoseconds: 0, focalX: 0, focalY: 0))
        let error = caught(SinkError.self) { try sink.flush() }
        #expect(error?.lostFrames == 2)
        #expect(error?.message.contains("frame-000001.png") == true)
        #expect(sink.framesPublished == 0)
        sink.close()
    }
}
