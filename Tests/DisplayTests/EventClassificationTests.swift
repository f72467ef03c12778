import CSDL2
import Glibc
import Testing

@testable import Display

/// An SDL event of `type`, as SDL_WaitEvent fills one in.
private func event(_ type: SDL_EventType) -> SDL_Event {
    var e = SDL_Event()
    e.type = type.rawValue
    return e
}

private func key(_ sym: SDL_KeyCode) -> SDL_Event {
    var e = event(SDL_KEYDOWN)
    e.key.keysym.sym = Int32(sym.rawValue)
    return e
}

private func window(_ what: SDL_WindowEventID) -> SDL_Event {
    var e = event(SDL_WINDOWEVENT)
    e.window.event = UInt8(what.rawValue)
    return e
}

extension VideoSystemTests {
    @Test func eventsAreReducedToWhatTheViewerReactsTo() throws {
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        defer { unsetenv("SDL_VIDEODRIVER") }
        let video = try VideoSystem(appName: "shimmerd-view")
        let cases: [(SDL_Event, DisplayEvent)] = [
            (event(SDL_QUIT), .quit),
            (key(SDLK_ESCAPE), .escape),
            (key(SDLK_a), .other),
            (window(SDL_WINDOWEVENT_CLOSE), .closeRequested),
            (window(SDL_WINDOWEVENT_EXPOSED), .redraw),
            (window(SDL_WINDOWEVENT_SIZE_CHANGED), .redraw),
            (window(SDL_WINDOWEVENT_RESTORED), .redraw),
            (window(SDL_WINDOWEVENT_SHOWN), .redraw),
            (window(SDL_WINDOWEVENT_FOCUS_GAINED), .other),
            (event(SDL_MOUSEMOTION), .other),
            (event(SDL_KEYUP), .other),
        ]
        for (e, expected) in cases {
            #expect(video.classify(e) == expected, "SDL event type \(e.type)")
        }
        var wake = SDL_Event()
        wake.type = video.waker.type
        #expect(video.classify(wake) == .wake)
    }
}
