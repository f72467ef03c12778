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
        #expect(
            ViewerStatus.waiting(reason: "why").waitingLines(path: "/dev/shm/s")! == ("Waiting for shimmerd", "why"))
        #expect(
            ViewerStatus.noFrameYet.waitingLines(path: "/dev/shm/s")! == (
                "Waiting for shimmerd", "/dev/shm/s: no frame yet"
            ))
        #expect(ViewerStatus.live(writerPID: 3).waitingLines(path: "/dev/shm/s") == nil)
        #expect(ViewerStatus.stopped.waitingLines(path: "/dev/shm/s") == nil, "a stopped writer's last frame stays")
    }

    @Test func logLinesNameThePathAndWriter() {
        #expect(
            ViewerStatus.live(writerPID: 42).logLine(path: "/dev/shm/s") == "view: showing /dev/shm/s (writer pid 42)")
        #expect(ViewerStatus.waiting(reason: "r").logLine(path: "/dev/shm/s") == "view: waiting for shimmerd: r")
    }
}

struct DisplayRequirementTests {
    @Test(
        arguments: [
            ("x11", nil, true), ("wayland", nil, true), ("x11", "x11", true),
            ("offscreen", nil, false), ("dummy", nil, false), ("offscreen", "x11", false),
            ("offscreen", "offscreen", true), ("dummy", "dummy", true),
        ] as [(String, String?, Bool)])
    func invisibleDriversOnlyWhenAskedFor(_ driver: String, _ requested: String?, _ accepted: Bool) {
        let ok = (try? ViewerSession.requireADisplay(driver: driver, requested: requested)) != nil
        #expect(ok == accepted, "\(driver), SDL_VIDEODRIVER=\(requested ?? "unset")")
    }
}

@Test(
    arguments: [
        (":0", nil, nil, nil, true),
        (nil, "wayland-1", nil, nil, true),
        (nil, nil, "/run/user/1000", nil, true),  // libwayland-client's default socket exists
        (nil, nil, "/run/user/0", nil, false),  // it does not
        (nil, nil, nil, "offscreen", true),  // a driver asked for by name is SDL's to find
        (nil, nil, nil, nil, false),
        ("", "", "", "", false),
    ] as [(String?, String?, String?, String?, Bool)])
func aDisplaySocketIsRequiredBeforeSDLStarts(
    _ display: String?, _ wayland: String?, _ runtime: String?,
    _ requested: String?, _ ok: Bool
) {
    let found =
        (try? ViewerSession.requireADisplaySocket(
            display: display, waylandDisplay: wayland, runtimeDirectory: runtime,
            requested: requested, exists: { $0 == "/run/user/1000/wayland-0" })) != nil
    #expect(found == ok)
}
