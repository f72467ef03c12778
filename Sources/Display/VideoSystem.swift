import CSDL2

/// SDL's video and event subsystems (`SDL_Init(SDL_INIT_VIDEO)`), shut down with the
/// object (`SDL_Quit`). Create it, and use it and its windows, on one thread only (the
/// main thread: some platforms require it).
package final class VideoSystem {
    /// The event type registered for `Waker` (`SDL_RegisterEvents`).
    private let wakeType: UInt32

    /// - Parameter appName: the application name SDL reports to the desktop
    ///   (`SDL_HINT_APP_NAME`, used by screensaver inhibitors and audio servers).
    package init(appName: String) throws(DisplayError) {
        // A viewer left open all day must not keep the screen awake (SDL disables the
        // screensaver by default). SIGINT/SIGTERM become SDL_QUIT through SDL's handlers.
        SDL_SetHint(SDL_HINT_APP_NAME, appName)
        SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1")
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "0")
        // Scaling a card that is all small dots: linear filtering looks better than
        // nearest, and a window at the frame's own size still gets exact pixels.
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        try sdlCheck("SDL_Init(SDL_INIT_VIDEO)", SDL_Init(UInt32(SDL_INIT_VIDEO | SDL_INIT_EVENTS)))
        let type = SDL_RegisterEvents(1)
        guard type != UInt32.max else {
            SDL_Quit()
            throw DisplayError("SDL_RegisterEvents", lastSDLError())
        }
        wakeType = type
    }

    deinit { SDL_Quit() }

    /// The video driver in use (`SDL_GetCurrentVideoDriver`): "x11", "wayland"...
    package var driverName: String {
        SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "none"
    }

    /// A handle other threads use to wake `waitEvent`.
    package var waker: Waker { Waker(type: wakeType) }

    /// Blocks until the next event (`SDL_WaitEvent`) and classifies it.
    package func waitEvent() throws(DisplayError) -> DisplayEvent {
        var event = SDL_Event()
        guard SDL_WaitEvent(&event) == 1 else { throw DisplayError("SDL_WaitEvent", lastSDLError()) }
        return classify(event)
    }

    func classify(_ event: SDL_Event) -> DisplayEvent {
        switch event.type {
        case SDL_QUIT.rawValue:
            return .quit
        case wakeType:
            return .wake
        case SDL_KEYDOWN.rawValue:
            return event.key.keysym.sym == Int32(SDLK_ESCAPE.rawValue) ? .escape : .other
        case SDL_WINDOWEVENT.rawValue:
            switch UInt32(event.window.event) {
            case SDL_WINDOWEVENT_CLOSE.rawValue:
                return .closeRequested
            case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SIZE_CHANGED.rawValue,
                SDL_WINDOWEVENT_RESTORED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue:
                return .redraw
            default:
                return .other
            }
        default:
            return .other
        }
    }
}

/// Posts the wake event from any thread (`SDL_PushEvent` is thread-safe, and wakes a
/// main thread blocked in `SDL_WaitEvent`).
package struct Waker: Sendable {
    let type: UInt32

    /// Returns false when the event queue refused it (full, or SDL shut down).
    @discardableResult
    package func post() -> Bool {
        var event = SDL_Event()
        event.type = type
        return SDL_PushEvent(&event) == 1
    }
}
