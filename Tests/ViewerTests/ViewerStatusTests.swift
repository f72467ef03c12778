import Testing
@testable import Viewer

struct ViewerStatusTests {
    @Test(arguments: [
        (ViewerStatus.waiting(reason: "/dev/shm/s does not exist yet"), "shimmer (s): waiting for shimmerd"),
        (.noFrameYet, "shimmer (s): waiting for shimmerd"),
        (.live(writerPID: 12), "shimmer (s)"),
        (.stopped, "shimmer (s): shimmerd stopped"),
    ])
    func titles(_ status: ViewerStatus, _ title: String) {
        #expect(status.title(name: "s") == title)
    }

    @Test func waitingScreenOnlyWithoutFrames() {
        #expect(ViewerStatus.waiting(reason: "why").waitingLines(path: "/dev/shm/s")! == ("Waiting for shimmerd", "why"))
        #expect(ViewerStatus.noFrameYet.waitingLines(path: "/dev/shm/s")! == ("Waiting for shimmerd", "/dev/shm/s: no frame yet"))
        #expect(ViewerStatus.live(writerPID: 3).waitingLines(path: "/dev/shm/s") == nil)
        #expect(ViewerStatus.stopped.waitingLines(path: "/dev/shm/s") == nil, "a stopped writer's last frame stays")
    }

    @Test func logLinesNameThePathAndWriter() {
        #expect(ViewerStatus.live(writerPID: 42).logLine(path: "/dev/shm/s") == "view: showing /dev/shm/s (writer pid 42)")
        #expect(ViewerStatus.waiting(reason: "r").logLine(path: "/dev/shm/s") == "view: waiting for shimmerd: r")
    }
}

struct DisplayRequirementTests {
    @Test(arguments: [
        ("x11", nil, true), ("wayland", nil, true), ("x11", "x11", true),
        ("offscreen", nil, false), ("dummy", nil, false), ("offscreen", "x11", false),
        ("offscreen", "offscreen", true), ("dummy", "dummy", true),
    ] as [(String, String?, Bool)])
    func invisibleDriversOnlyWhenAskedFor(_ driver: String, _ requested: String?, _ accepted: Bool) {
        let ok = (try? ViewerSession.requireADisplay(driver: driver, requested: requested)) != nil
        #expect(ok == accepted, "\(driver), SDL_VIDEODRIVER=\(requested ?? "unset")")
    }
}
