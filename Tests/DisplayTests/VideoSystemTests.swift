import Glibc
import TestSupport
import Testing

@testable import Display

// Real SDL2 with its "dummy" video driver, which needs no display server: windows and
// the software renderer exist in memory only.

/// SDL is one per process (SDL_Init and SDL_Quit are global), and SDL_VIDEODRIVER is read
/// by SDL_Init: one video system at a time.
@Suite(.serialized) struct VideoSystemTests {
    private func video(driver: String = "dummy") throws(DisplayError) -> VideoSystem {
        setenv("SDL_VIDEODRIVER", driver, 1)
        defer { unsetenv("SDL_VIDEODRIVER") }
        return try VideoSystem(appName: "shimmerd-view")
    }

    private let black = BackgroundColor(red: 0, green: 0, blue: 0)

    @Test func theVideoSystemStartsOnTheDriverAskedFor() throws {
        let video = try video()
        #expect(video.driverName == "dummy")
    }

    @Test func aWindowTakesFramesOfItsSizeAndPresentsThem() throws {
        let video = try video()
        let window = try FrameWindow(video: video, title: "shimmer (test)", width: 64, height: 48, background: black)
        #expect(window.frameWidth == 64 && window.frameHeight == 48)
        #expect(window.size == (64, 48), "the first frame is shown 1:1")
        #expect(window.rendererDescription != "unknown")
        window.setTitle("shimmer (test): waiting for shimmerd")

        var frame = [UInt8](repeating: 0x80, count: 64 * 48 * 4)
        try frame.withUnsafeBytes { try window.upload($0.baseAddress!, stride: 64 * 4) }
        try window.present()

        try window.setFrameSize(width: 32, height: 16)
        #expect(window.frameWidth == 32 && window.frameHeight == 16)
        #expect(window.size == (64, 48), "a new frame size is scaled into the window, which keeps its size")
        frame = [UInt8](repeating: 0xFF, count: 32 * 16 * 4)
        try frame.withUnsafeBytes { try window.upload($0.baseAddress!, stride: 32 * 4) }
        try window.present()
    }

    @Test func anEmptyFrameSizeIsRefusedAndTheOldOneKept() throws {
        let video = try video()
        let window = try FrameWindow(video: video, title: "shimmer", width: 8, height: 8, background: black)
        #expect(throws: DisplayError("frame size", "0 x 10 is empty")) { try window.setFrameSize(width: 0, height: 10) }
        #expect(throws: DisplayError("frame size", "8 x -1 is empty")) { try window.setFrameSize(width: 8, height: -1) }
        #expect(window.frameWidth == 8 && window.frameHeight == 8)
        #expect(throws: DisplayError("frame size", "0 x 0 is empty")) {
            _ = try FrameWindow(video: video, title: "shimmer", width: 0, height: 0, background: black)
        }
    }

    @Test func aWakerOnAnotherThreadWakesTheWaitAfterTheWindowsOwnEvents() throws {
        let video = try video()
        let window = try FrameWindow(video: video, title: "shimmer", width: 16, height: 16, background: black)
        let waker = video.waker
        let poster = try BackgroundThread(name: "waker") { waker.post() }
        poster.join()
        // Events come in order: what showing the window queued, then the wake.
        var events: [DisplayEvent] = []
        while events.last != .wake { events.append(try video.waitEvent()) }
        #expect(events.contains(.redraw), "the window was shown: \(events)")
        #expect(!events.contains(.quit) && !events.contains(.closeRequested) && !events.contains(.escape))
        withExtendedLifetime(window) {}
    }

    @Test func aDriverThatDoesNotExistFailsNamingTheCall() throws {
        let e = try #require(caught(DisplayError.self) { _ = try video(driver: "shimmerd-absent") })
        #expect(e.operation == "SDL_Init(SDL_INIT_VIDEO)")
        #expect(e.message.contains("shimmerd-absent"), "\(e.message)")
        #expect(e.description == "SDL_Init(SDL_INIT_VIDEO): \(e.message)")
    }
}
