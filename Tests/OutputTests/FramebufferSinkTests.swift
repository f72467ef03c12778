import Glibc
import LinuxSystem
import Raster
import TestSupport
import Testing

@testable import Output

/// The framebuffer sink against a regular file and a scratch sysfs tree, and the console
/// mode against the machine's real /dev/tty0 when there is one (KDGETMODE answers).
@Suite(.serialized)
final class FramebufferSinkTests {
    let scratch = ScratchDirectory("fb-test")
    var dir: String { scratch.path }

    init() throws {
        try FileSystem.createDirectories(dir + "/sys/class/graphics/fb0")
    }

    /// A 10 x 6 screen at 16 bpp, stride 24 bytes (4 bytes of padding), filled with 0xAB.
    func makeDevice(bpp: Int = 16, stride: Int = 24) throws {
        let g = dir + "/sys/class/graphics/fb0/"
        try FileSystem.writeAtomically(Array("10,6\n".utf8), to: g + "virtual_size")
        try FileSystem.writeAtomically(Array("\(bpp)\n".utf8), to: g + "bits_per_pixel")
        try FileSystem.writeAtomically(Array("\(stride)\n".utf8), to: g + "stride")
        try FileSystem.writeAtomically([UInt8](repeating: 0xAB, count: stride * 6), to: dir + "/fb0")
    }

    static let console = "/dev/tty0"
    static var consoleInTextMode: Bool { (try? VirtualTerminalMode(path: console).mode()) == 0 }

    @Test func writesOnlyChangedRowsOfTheClippedCard() throws {
        try makeDevice()
        let notes = LogCapture()
        // A 4 x 3 card at (8, 4): columns 8-9 and rows 4-5 visible.
        let sink = FramebufferSink(
            device: dir + "/fb0", position: (8, 4), cardWidth: 4, cardHeight: 3,
            consolePath: "/dev/null", sysfsRoot: dir + "/sys", log: notes.log)
        #expect(sink.isAttached)
        #expect(notes.lines.contains { $0.contains("10 x 6, stride 24 bytes, 16 bpp") && $0.contains("from sysfs") })
        let pix = sink.target(slot: 0).pixmap
        pix.fill(0x00FF_0000)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        let rowsAfterFirst = sink.rowsWritten
        pix[1, 1] = 0x0000_00FF  // card row 1 only
        try sink.publish(slot: 0, FrameInfo(number: 2, timeNanoseconds: 0, focalX: 0, focalY: 0))
        #expect(sink.rowsWritten == rowsAfterFirst + 1, "one changed row, one row written")
        sink.close()
        let fb = try FileSystem.read(dir + "/fb0")
        for y in 0..<6 {
            for x in 0..<12 {  // 12 two-byte slots per 24-byte row, padding included
                let v = UInt16(fb[y * 24 + x * 2]) | UInt16(fb[y * 24 + x * 2 + 1]) << 8
                switch (x, y) {
                case (8, 4), (9, 4): #expect(v == 0xF800, "red in RGB565 at \(x),\(y)")
                case (9, 5): #expect(v == 0x001F, "blue at card (1, 1)")
                case (8, 5): #expect(v == 0xF800)
                default: #expect(v == 0xABAB, "untouched at \(x),\(y)")
                }
            }
        }
    }

    @Test func missingDeviceIsReportedOnceAndRetriedWithBackoff() throws {
        let notes = LogCapture()
        var now = 0.0
        let sink = FramebufferSink(
            device: dir + "/fb0", position: nil, cardWidth: 4, cardHeight: 3, consolePath: "/dev/null",
            sysfsRoot: dir + "/sys", log: notes.log, clock: { now })
        #expect(!sink.isAttached)
        for t in stride(from: 0.1, through: 3.0, by: 0.1) {
            now = t
            sink.maintain()
        }
        #expect(
            notes.lines.count == 1 && notes.lines[0].contains("unavailable") && notes.lines[0].contains("No such file"))
        try makeDevice(bpp: 32, stride: 48)
        now = 20
        sink.maintain()
        #expect(sink.isAttached)
        #expect(
            notes.lines.count == 3 && notes.lines[1].contains("left in its mode") && notes.lines[2].contains("10 x 6"))
    }

    @Test func vanishedDeviceIsReleasedReportedAndAttachedAgain() throws {
        try makeDevice(bpp: 32, stride: 48)
        let notes = LogCapture()
        var now = 0.0
        let sink = FramebufferSink(
            device: dir + "/fb0", position: (0, 0), cardWidth: 4, cardHeight: 3, consolePath: "/dev/null",
            sysfsRoot: dir + "/sys", log: notes.log, clock: { now })
        #expect(sink.isAttached)
        notes.removeAll()
        unlink(dir + "/fb0")
        now = 0.5
        sink.maintain()
        #expect(sink.isAttached, "checked at most once a second")
        for t in stride(from: 1.0, through: 4.0, by: 0.1) {
            now = t
            sink.maintain()
        }
        #expect(!sink.isAttached)
        #expect(
            notes.lines.count == 1 && notes.lines[0].contains("vanished") && notes.lines[0].contains("No such file")
                && notes.lines[0].contains("retrying with backoff"), "\(notes.lines)")
        // Frames meanwhile go to the shadow only.
        sink.target(slot: 0).pixmap.fill(0x0012_3456)
        try sink.publish(slot: 0, FrameInfo(number: 1, timeNanoseconds: 0, focalX: 0, focalY: 0))
        // A new node (another inode): attached, and the newest card drawn at once.
        try makeDevice(bpp: 32, stride: 48)
        now = 30
        sink.maintain()
        #expect(sink.isAttached && notes.lines.last?.contains("10 x 6") == true)
        let fb = try FileSystem.read(dir + "/fb0")
        #expect(le(fb, 0, UInt32.self) & 0x00FF_FFFF == 0x12_3456)
        // Replaced under the same name while attached: noticed as well.
        notes.removeAll()
        try FileSystem.writeAtomically([UInt8](repeating: 0xAB, count: 48 * 6), to: dir + "/fb0")
        now = 32
        sink.maintain()
        let attached = notes.lines.filter { !$0.contains("left in its mode") }  // /dev/null is no VT
        #expect(
            sink.isAttached && attached.count == 1 && attached[0].contains("10 x 6")
                && attached[0].contains("the previous node vanished: \(dir)/fb0 is now another device node"),
            "\(notes.lines)")
        sink.close()
    }

    @Test(.enabled(if: FramebufferSinkTests.consoleInTextMode, "needs a VT in text mode at /dev/tty0"))
    func consoleInGraphicsWhileAttachedAndTextAfterCloseOrDeinit() throws {
        try makeDevice()
        let probe = try VirtualTerminalMode(path: Self.console)
        do {
            let sink = FramebufferSink(
                device: dir + "/fb0", position: nil, cardWidth: 4, cardHeight: 3,
                consolePath: Self.console, sysfsRoot: dir + "/sys", log: quietLog)
            #expect(sink.isAttached)
            #expect(try probe.mode() == 1, "KD_GRAPHICS while the card is shown")
            sink.close()
            #expect(try probe.mode() == 0, "KD_TEXT after close()")
        }
        do {
            var sink: FramebufferSink? = FramebufferSink(
                device: dir + "/fb0", position: nil, cardWidth: 4, cardHeight: 3,
                consolePath: Self.console, sysfsRoot: dir + "/sys", log: quietLog)
            #expect(try probe.mode() == 1)
            _ = sink
            sink = nil  // a startup failure after the sink was built drops it without close()
            #expect(try probe.mode() == 0, "KD_TEXT from deinit")
        }
    }
}
