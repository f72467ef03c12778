// Display: the typed wrapper of SDL2 (libsdl2 from Debian, through CSDL2), for a window
// that shows ready-made XRGB8888 frames. SDL picks the platform's video driver (X11 or
// Wayland; SDL_VIDEODRIVER overrides it) and the best renderer it has.
//
// Purpose: a video system (SDL_Init), one window with a streaming texture scaled with
// its aspect ratio kept (SDL_RenderSetLogicalSize letterboxes), events reduced to what a
// viewer needs, and a thread that may post a wake-up event to the main thread.
// Invariants: every SDL call but SDL_PushEvent (which SDL documents as thread-safe) is
// made from the thread that created the `VideoSystem`; every SDL call that can fail goes
// through `SDLCall.swift`, which turns SDL_GetError into a `DisplayError`.
// Must not import: any other shimmerd module (layer 1a). Imported by `Viewer` only.
import CSDL2

/// A failed SDL call: which operation and SDL's own message (`SDL_GetError`).
package struct DisplayError: Error, CustomStringConvertible, Equatable {
    package var operation: String
    package var message: String

    package init(_ operation: String, _ message: String) {
        self.operation = operation
        self.message = message
    }

    package var description: String { "\(operation): \(message)" }
}

/// An sRGB color of the window's background (the letterbox bars).
package struct BackgroundColor: Sendable, Equatable {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}
