import Testing

@testable import Viewer

/// Where `shimmerd view --background` finds the compositor, and the one line when it finds none.
struct BackgroundDisplayTests {
    @Test(
        arguments: [
            ("wayland-1", "/run/user/1000", "/run/user/1000/wayland-1"),
            (nil, "/run/user/1000", "/run/user/1000/wayland-0"),
            ("", "/run/user/1000", "/run/user/1000/wayland-0"),
            ("/tmp/sock", nil, "/tmp/sock"),
        ] as [(String?, String?, String)])
    func theSocketLibwaylandWouldUse(_ display: String?, _ runtime: String?, _ path: String) throws {
        #expect(
            try BackgroundSession.displaySocket(
                waylandDisplay: display, runtimeDirectory: runtime, exists: { _ in true }) == path)
    }

    @Test(
        arguments: [
            ("wayland-1", "/run/user/1000", "WAYLAND_DISPLAY names /run/user/1000/wayland-1, which does not exist"),
            (nil, "/run/user/1000", "WAYLAND_DISPLAY is unset and there is no /run/user/1000/wayland-0"),
            (nil, nil, "XDG_RUNTIME_DIR is unset and so is WAYLAND_DISPLAY"),
            ("wayland-1", nil, "XDG_RUNTIME_DIR is unset"),
        ] as [(String?, String?, String)])
    func noDisplayIsOneLineNamingTheWindow(_ display: String?, _ runtime: String?, _ why: String) {
        do {
            _ = try BackgroundSession.displaySocket(
                waylandDisplay: display, runtimeDirectory: runtime, exists: { _ in false })
            Issue.record("no error")
        } catch {
            #expect(error.message.hasPrefix("view --background: no Wayland display: " + why + ";"), "\(error.message)")
            #expect(error.message.hasSuffix("run `shimmerd view` for the card in a window"))
            #expect(!error.message.contains("\n"))
        }
    }
}
