import Display
import Fonts
import Glibc
import Logging
import Raster
import SharedMemory

/// A failure that ends `shimmerd view` before its window is up (no display, SDL
/// cannot start). Everything after that is a log line and the waiting screen.
package struct ViewerError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// `shimmerd view`: the window, the watcher thread and the loop. Runs on the main thread
/// until the window is closed, Escape is pressed, or SIGINT/SIGTERM arrives (SDL_QUIT).
package final class ViewerSession {
    let settings: ViewerSettings
    let log: Logger

    private var segment: SegmentFollower
    private var reader: SharedMemoryReader? { segment.reader }
    private var status: ViewerStatus?
    /// The frame in the texture (0: the texture holds the waiting screen, or nothing).
    private var shownFrame: UInt64 = 0
    /// The waiting screen's text in the texture, to draw it only when it changes.
    private var shownWaiting: (String, String)?

    package init(settings: ViewerSettings, log: Logger) {
        self.settings = settings
        self.log = log
        segment = SegmentFollower(settings: settings, log: log)
    }

    /// Opens the window and runs until it is closed. Throws only when no window can be
    /// opened at all.
    package func run() throws(ViewerError) {
        let (video, window) = try openWindow()
        let refresh = window.refreshRateHertz
        let hertz = Double(refresh ?? 60)
        log.info(
            "view: \(settings.path) in a \(video.driverName) window, renderer \(window.rendererDescription), "
                + "at most \(Int(hertz)) frames per second" + (refresh == nil ? " (refresh rate unknown)" : ""))
        let face: FontFace?
        do { face = try FontFace(pattern: settings.font) } catch {
            log.warning("view: font \"\(settings.font)\": \(error); the waiting screen has no text")
            face = nil
        }
        let screen = WaitingScreen(face: face)

        let waker = video.waker
        let watcher = FrameWatcher(
            wake: { waker.post() }, minimumInterval: 1 / hertz,
            housekeepingSeconds: settings.housekeepingSeconds)
        watcher.watch(reader)
        let thread: BackgroundThread
        do { thread = try BackgroundThread(name: "shm-watch") { watcher.run() } } catch {
            throw ViewerError(message: "view: \(error)")
        }
        // While the window is open the daemon is told that someone looks.
        let claim = DaemonClaim(log: log, purpose: "this window is open", wanted: true)
        let claimThread = claim.flatMap { c in try? BackgroundThread(name: "bus-claim") { c.run() } }
        defer {
            watcher.stop()
            thread.join()
            claim?.stop()
            claimThread?.join()
        }
        update(window, watcher, screen)
        handleEvents(video, window, watcher, screen)
    }

    /// SDL and the window, sized as the segment if it is there already (the default card
    /// size if not).
    private func openWindow() throws(ViewerError) -> (VideoSystem, FrameWindow) {
        do {
            let env = { (name: String) in getenv(name).map { String(cString: $0) } }
            // Before SDL starts: its Wayland probe prints its own line about
            // XDG_RUNTIME_DIR first when there is no display at all.
            try Self.requireADisplaySocket(
                display: env("DISPLAY"), waylandDisplay: env("WAYLAND_DISPLAY"),
                runtimeDirectory: env("XDG_RUNTIME_DIR"), requested: env("SDL_VIDEODRIVER"),
                exists: { access($0, F_OK) == 0 })
            let video = try VideoSystem(appName: "shimmerd")
            try Self.requireADisplay(
                driver: video.driverName, requested: getenv("SDL_VIDEODRIVER").map { String(cString: $0) })
            segment = SegmentFollower(
                settings: settings, log: log,
                reader: try? SharedMemoryReader(name: settings.name, directory: settings.directory))
            let width = reader.map { Int($0.header.width) } ?? settings.defaultWidth
            let height = reader.map { Int($0.header.height) } ?? settings.defaultHeight
            let window = try FrameWindow(
                video: video, title: "shimmer (\(settings.name))", width: width, height: height,
                background: windowBackground)
            return (video, window)
        } catch {
            throw ViewerError(message: "view: cannot open a window: \(error)")
        }
    }

    /// The window's events until it is closed (or SDL fails): a watcher's wake-up shows
    /// the newest frame, an exposure paints the texture again.
    private func handleEvents(
        _ video: VideoSystem, _ window: FrameWindow, _ watcher: FrameWatcher, _ screen: WaitingScreen
    ) {
        while true {
            let event: DisplayEvent
            do { event = try video.waitEvent() } catch {
                log.error("view: \(error)")
                return
            }
            switch event {
            case .quit, .closeRequested, .escape:
                log.info("view: closed (\(event))")
                return
            case .wake:
                watcher.acknowledge()  // before reading, so a newer frame posts again
                update(window, watcher, screen)
            case .redraw:
                paint(window)
            case .other:
                continue
            }
        }
    }

    /// Where SDL would look for a display: DISPLAY (X11), else WAYLAND_DISPLAY or, as
    /// libwayland-client defaults, `$XDG_RUNTIME_DIR/wayland-0`. With none of them and no
    /// SDL_VIDEODRIVER asking for a driver of its own, there is no display to open.
    static func requireADisplaySocket(
        display: String?, waylandDisplay: String?, runtimeDirectory: String?,
        requested: String?, exists: (String) -> Bool
    ) throws(DisplayError) {
        if let requested, !requested.isEmpty { return }
        if let display, !display.isEmpty { return }
        if let waylandDisplay, !waylandDisplay.isEmpty { return }
        if let runtimeDirectory, !runtimeDirectory.isEmpty, exists(runtimeDirectory + "/wayland-0") { return }
        throw DisplayError(
            "no display",
            "neither DISPLAY (X11) nor WAYLAND_DISPLAY is set"
                + (runtimeDirectory.map { $0.isEmpty ? "" : " and there is no \($0)/wayland-0" }
                    ?? " and XDG_RUNTIME_DIR is unset")
                + "; run it in a desktop session, or set DISPLAY or WAYLAND_DISPLAY")
    }

    /// SDL falls back to its invisible drivers ("offscreen", "dummy") when no display is
    /// reachable; a viewer nobody can see would wait forever, so that is "no display"
    /// (exit 69) unless SDL_VIDEODRIVER asked for exactly that driver.
    static func requireADisplay(driver: String, requested: String?) throws(DisplayError) {
        guard ["offscreen", "dummy"].contains(driver), requested != driver else { return }
        throw DisplayError(
            "no display",
            "SDL found no X11 or Wayland display (only its \(driver) driver); "
                + "set DISPLAY or WAYLAND_DISPLAY")
    }

    /// Looks at the segment (open it, follow a replacement) and shows what it has.
    private func update(_ window: FrameWindow, _ watcher: FrameWatcher, _ screen: WaitingScreen) {
        if let r = segment.refresh() {
            shownFrame = 0
            watcher.watch(r)
        }
        let next = segment.status
        if let reader, next != .noFrameYet {
            showNewest(reader, window, watcher)
        }
        if next != status {
            status = next
            log.info(next.logLine(path: settings.path))
            window.setTitle(next.title(name: settings.name))
        }
        if let lines = next.waitingLines(path: settings.path) {
            showWaiting(lines, window, screen)
        }
    }

    private func showNewest(_ reader: SharedMemoryReader, _ window: FrameWindow, _ watcher: FrameWatcher) {
        let latest = reader.frame
        guard latest != shownFrame else { return }
        do {
            try window.setFrameSize(width: Int(reader.header.width), height: Int(reader.header.height))
            let stride = Int(reader.header.stride)
            if let number = try segment.readNewest(
                reader, watcher: watcher,
                { (pixels) throws(DisplayError) in
                    try window.upload(pixels, stride: stride)
                })
            {
                shownFrame = number
                shownWaiting = nil
                paint(window)
            }
        } catch {
            log.error("view: \(error)")
        }
    }

    private func showWaiting(
        _ lines: (headline: String, detail: String), _ window: FrameWindow, _ screen: WaitingScreen
    ) {
        if let shown = shownWaiting, shown == lines, shownFrame == 0 { return }
        let width = reader.map { Int($0.header.width) } ?? window.frameWidth
        let height = reader.map { Int($0.header.height) } ?? window.frameHeight
        let buffer = PixelBuffer(width: width, height: height)
        let bg =
            UInt32(windowBackground.red) << 16 | UInt32(windowBackground.green) << 8 | UInt32(windowBackground.blue)
        screen.draw(into: buffer.pixmap, headline: lines.headline, detail: lines.detail, background: bg)
        do {
            try window.setFrameSize(width: width, height: height)
            try window.upload(UnsafeRawPointer(buffer.pixmap.base), stride: buffer.pixmap.stride)
            shownWaiting = lines
            shownFrame = 0
            paint(window)
        } catch {
            log.error("view: \(error)")
        }
    }

    private func paint(_ window: FrameWindow) {
        do { try window.present() } catch { log.error("view: \(error)") }
    }
}
