import CSDL2

/// A thread running one closure (`SDL_CreateThread`), joined with `join()`
/// (`SDL_WaitThread`) or when the object goes away. SDL blocks the usual process signals
/// (SIGINT, SIGTERM...) in threads it creates, so those reach the main thread.
package final class BackgroundThread {
    private var thread: OpaquePointer?

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    package init(name: String, _ body: @escaping @Sendable () -> Void) throws(DisplayError) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let entry: SDL_ThreadFunction = { data in
            let body = Unmanaged<Body>.fromOpaque(data!).takeRetainedValue()
            body.run()
            return 0
        }
        guard let t = shim_sdl_create_thread(entry, name, box) else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw DisplayError("SDL_CreateThread \(name)", lastSDLError())
        }
        thread = t
    }

    deinit { join() }

    /// Waits for the closure to return (`SDL_WaitThread`); once.
    package func join() {
        guard let t = thread else { return }
        thread = nil
        SDL_WaitThread(t, nil)
    }
}
