import CSDL2

/// A resizable window showing one XRGB8888 frame at a time (`SDL_CreateWindow`,
/// `SDL_CreateRenderer`, a streaming `SDL_Texture`). The frame keeps its aspect ratio at
/// any window size: `SDL_RenderSetLogicalSize` scales it as large as fits and centres it,
/// and the rest of the window (the bars) is painted with `background`.
package final class FrameWindow {
    private let video: VideoSystem  // SDL stays initialised while a window exists
    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private var texture: OpaquePointer?
    package private(set) var frameWidth = 0
    package private(set) var frameHeight = 0
    package let background: BackgroundColor

    /// Opens the window at `width` x `height` (frame pixels, so the first frame is shown
    /// 1:1). The renderer is SDL's best one, with presents synchronised to the display's
    /// vertical blank where the driver can (SDL_RENDERER_PRESENTVSYNC), else without.
    package init(
        video: VideoSystem, title: String, width: Int, height: Int,
        background: BackgroundColor
    ) throws(DisplayError) {
        self.video = video
        self.background = background
        let pos = shim_sdl_windowpos_undefined()
        window = try sdlNonNull(
            "SDL_CreateWindow",
            SDL_CreateWindow(
                title, pos, pos, Int32(width), Int32(height),
                SDL_WINDOW_RESIZABLE.rawValue))
        let vsync = SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC.rawValue)
        guard let r = vsync ?? SDL_CreateRenderer(window, -1, 0) else {
            let e = DisplayError("SDL_CreateRenderer", lastSDLError())
            SDL_DestroyWindow(window)
            throw e
        }
        renderer = r
        do { try setFrameSize(width: width, height: height) } catch {
            SDL_DestroyRenderer(renderer)
            SDL_DestroyWindow(window)
            throw error
        }
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
    }

    /// `SDL_SetWindowTitle`.
    package func setTitle(_ title: String) {
        SDL_SetWindowTitle(window, title)
    }

    /// The renderer's name and whether it synchronises to vblank (`SDL_GetRendererInfo`).
    package var rendererDescription: String {
        var info = SDL_RendererInfo()
        guard SDL_GetRendererInfo(renderer, &info) == 0, let name = info.name else { return "unknown" }
        let vsync = info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0
        return String(cString: name) + (vsync ? " (vsync)" : "")
    }

    /// The refresh rate of the display the window is on, in hertz
    /// (`SDL_GetWindowDisplayMode`); nil when the driver does not know it.
    package var refreshRateHertz: Int? {
        var mode = SDL_DisplayMode()
        guard SDL_GetWindowDisplayMode(window, &mode) == 0, mode.refresh_rate > 0 else { return nil }
        return Int(mode.refresh_rate)
    }

    /// The window's size in screen coordinates (`SDL_GetWindowSize`).
    package var size: (width: Int, height: Int) {
        var w: Int32 = 0
        var h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        return (Int(w), Int(h))
    }

    /// Frames from now on are `width` x `height` pixels: a new streaming texture
    /// (SDL_PIXELFORMAT_RGB888 is XRGB8888, bytes B, G, R, X in memory, the shm format)
    /// and the logical size that keeps its aspect ratio. Nothing to do when unchanged.
    package func setFrameSize(width: Int, height: Int) throws(DisplayError) {
        guard width != frameWidth || height != frameHeight || texture == nil else { return }
        guard width > 0, height > 0 else { throw DisplayError("frame size", "\(width) x \(height) is empty") }
        let t = try sdlNonNull(
            "SDL_CreateTexture \(width) x \(height)",
            SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_RGB888.rawValue,
                Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), Int32(width), Int32(height)))
        if let texture { SDL_DestroyTexture(texture) }
        texture = t
        frameWidth = width
        frameHeight = height
        try sdlCheck("SDL_RenderSetLogicalSize", SDL_RenderSetLogicalSize(renderer, Int32(width), Int32(height)))
    }

    /// Copies one frame (`frameHeight` rows of `stride` bytes, XRGB8888) into the texture
    /// (`SDL_UpdateTexture`). It is shown by the next `present()`.
    package func upload(_ pixels: UnsafeRawPointer, stride: Int) throws(DisplayError) {
        guard let texture else { throw DisplayError("SDL_UpdateTexture", "no texture") }
        try sdlCheck("SDL_UpdateTexture", SDL_UpdateTexture(texture, nil, pixels, Int32(stride)))
    }

    /// Paints the background and the frame, scaled to fit, and shows it
    /// (`SDL_RenderClear`, `SDL_RenderCopy`, `SDL_RenderPresent`).
    package func present() throws(DisplayError) {
        try sdlCheck(
            "SDL_SetRenderDrawColor",
            SDL_SetRenderDrawColor(renderer, background.red, background.green, background.blue, 255))
        try sdlCheck("SDL_RenderClear", SDL_RenderClear(renderer))
        if let texture {
            try sdlCheck("SDL_RenderCopy", SDL_RenderCopy(renderer, texture, nil, nil))
        }
        SDL_RenderPresent(renderer)
    }
}
