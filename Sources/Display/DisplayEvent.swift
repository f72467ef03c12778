import CSDL2

/// What the viewer's loop reacts to, from `SDL_WaitEvent`'s events.
package enum DisplayEvent: Sendable, Equatable {
    /// SDL_QUIT: the last window was closed, or SIGINT/SIGTERM arrived (SDL's own signal
    /// handlers turn them into SDL_QUIT; `VideoSystem` keeps them on).
    case quit
    /// SDL_WINDOWEVENT_CLOSE: the window manager's close button.
    case closeRequested
    /// SDL_KEYDOWN of the Escape key.
    case escape
    /// The event a `Waker` posted from another thread.
    case wake
    /// The window needs painting again (exposed, resized, restored).
    case redraw
    /// Anything else (mouse motion, focus changes...).
    case other
}
