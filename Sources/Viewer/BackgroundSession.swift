import Color
import Display
import Glibc
import LinuxSystem
import Logging
import Raster
import SharedMemory
import Wayland

/// What `shimmerd view --background` was asked for.
package struct BackgroundSettings: Sendable, Equatable {
    package var viewer: ViewerSettings
    /// Around the card and in its corners, 0x00RRGGBB: the window's grey by default.
    package var fill: UInt32 = BackgroundSettings.defaultFill
    /// The layer surfaces' namespace, which compositors' rules match (sway's `layer_effects`,
    /// Hyprland's `layerrule`).
    package var namespace = "shimmerd"
    /// Without a segment, how often the watcher looks for one; with one, how often it
    /// wakes without a frame (a replaced segment wakes it at once: docs/SHM.md).
    package var searchSeconds = 1.0
    package var housekeepingSeconds = 10.0

    /// The window's grey around the card (`windowBackground`), #202020: `shimmerd view
    /// --help` says so.
    package static let defaultFill =
        UInt32(windowBackground.red) << 16 | UInt32(windowBackground.green) << 8
        | UInt32(windowBackground.blue)

    package init(viewer: ViewerSettings) {
        self.viewer = viewer
    }
}

/// The newest frame of the segment, copied out of it (the outputs draw it when each is
/// ready, not when it arrives).
final class Frame {
    /// The segment's frame number.
    var number: UInt64 = 0
    let width: Int
    let height: Int
    let stride: Int
    private let pixels: PixelBuffer

    init(width: Int, height: Int, stride: Int) {
        self.width = width
        self.height = height
        self.stride = stride
        pixels = PixelBuffer(width: width, height: height, stride: stride)
    }

    func copy(from source: UnsafeRawPointer) {
        pixels.pixmap.base.copyMemory(from: source, byteCount: stride * height)
    }

    func withPixels(_ body: (UnsafeRawPointer, Int) -> Void) {
        body(UnsafeRawPointer(pixels.pixmap.base), stride)
    }
}

/// `shimmerd view --background`: the card on the desktop itself, one layer surface per
/// output (`BackgroundOutput`), on a Wayland compositor with wlr-layer-shell (sway,
/// Hyprland, KDE Plasma, niri, labwc, Wayfire, river, COSMIC).
///
/// One thread runs the loop and owns the connection; a `FrameWatcher` thread sleeps in
/// FUTEX_WAIT on the segment's frame word and writes a byte to a pipe when it moves on;
/// a `DaemonClaim` thread holds the claim while at least one surface is seen.
///
/// What it costs while nothing changes: the connection is read at once only while the
/// loop waits for the compositor (a configure to answer, a drawn frame's callback, every
/// surface hidden, where the next answer means "shown again"); while a still card is
/// shown, the probes' answers are read when the next timer comes, so the loop wakes
/// about every 0.6 s (`BackgroundOutput.Timing`) whatever the number of outputs, and not
/// at all while every surface is hidden.
package final class BackgroundSession {
    let settings: BackgroundSettings
    let log: Logger
    private var segment: SegmentFollower
    private var frame: Frame?
    private var status: ViewerStatus?
    private var outputs: [UInt32: BackgroundOutput] = [:]
    /// Outputs announced and bound but not yet described (no `done` yet).
    private var pendingOutputs: [UInt32: Output] = [:]

    package init(settings: BackgroundSettings, log: Logger) {
        self.settings = settings
        self.log = log
        segment = SegmentFollower(settings: settings.viewer, log: log)
    }

    /// The Wayland socket a client would connect to, as libwayland-client finds it:
    /// WAYLAND_DISPLAY (a path, or a name in XDG_RUNTIME_DIR), else
    /// `$XDG_RUNTIME_DIR/wayland-0`. Throws when there is none, which libwayland would
    /// only say in a line of its own.
    static func displaySocket(
        waylandDisplay: String?, runtimeDirectory: String?,
        exists: (String) -> Bool
    ) throws(ViewerError) -> String {
        let name = waylandDisplay.flatMap { $0.isEmpty ? nil : $0 } ?? "wayland-0"
        let path: String
        if name.hasPrefix("/") {
            path = name
        } else if let runtimeDirectory, !runtimeDirectory.isEmpty {
            path = runtimeDirectory + "/" + name
        } else {
            throw unavailable(
                "no Wayland display: XDG_RUNTIME_DIR is unset"
                    + (waylandDisplay?.isEmpty == false ? "" : " and so is WAYLAND_DISPLAY"))
        }
        guard exists(path) else {
            throw unavailable(
                "no Wayland display: "
                    + (waylandDisplay?.isEmpty == false
                        ? "WAYLAND_DISPLAY names \(path), which does not exist"
                        : "WAYLAND_DISPLAY is unset and there is no \(path)"))
        }
        return path
    }

    /// The one line of a background that cannot be shown here: why, and the window instead.
    static func unavailable(_ why: String) -> ViewerError {
        ViewerError(
            message: "view --background: \(why); the background needs a Wayland compositor with "
                + "wlr-layer-shell (sway, Hyprland, KDE Plasma, ...): run `shimmerd view` for the card in a window")
    }

    /// Runs until SIGTERM or SIGINT, or until the compositor goes away. Throws, before
    /// anything is shown, when there is no Wayland display or it has no layer shell.
    package func run() throws(ViewerError) {
        let signals = ProcessSignals.take([.terminate, .interrupt])
        ProcessSignals.ignore([.brokenPipe])
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        let socket = try Self.displaySocket(
            waylandDisplay: env("WAYLAND_DISPLAY"), runtimeDirectory: env("XDG_RUNTIME_DIR"),
            exists: { access($0, F_OK) == 0 })
        let (connection, globals, compositor, shm, shell) = try connect(socket)
        let addOutput = { [unowned self] (global: WaylandGlobal) in
            guard global.interface == "wl_output", let output = Output(connection, global) else { return }
            pendingOutputs[global.name] = output
            output.onDone = { [unowned self, unowned output] in
                if let known = outputs[global.name] {
                    known.scaleMayHaveChanged()
                } else if pendingOutputs.removeValue(forKey: global.name) != nil {
                    guard
                        let o = BackgroundOutput(
                            output: output, compositor: compositor, shell: shell, shm: shm,
                            namespace: settings.namespace)
                    else {
                        log.warning(
                            "view: the compositor refused a layer surface on output "
                                + "\(output.name ?? String(global.name))")
                        return
                    }
                    outputs[global.name] = o
                    log.info(
                        "view: output \(output.name ?? String(global.name)) "
                            + "(\(output.modeWidth) x \(output.modeHeight) px, "
                            + "scale \(output.scale)): a layer surface on the bottom layer")
                }
            }
        }
        for g in globals { addOutput(g) }
        connection.onGlobal = addOutput
        connection.onGlobalRemoved = { [unowned self] name in
            pendingOutputs[name] = nil
            if let gone = outputs.removeValue(forKey: name) {
                log.info("view: output \(gone.output.name ?? String(name)) went away")
            }
        }

        guard let frames = WakePipe() else {
            throw ViewerError(message: "view: pipe: \(String(cString: strerror(errno)))")
        }
        let watcher = FrameWatcher(
            wake: { frames.post(1) }, minimumInterval: 0,
            housekeepingSeconds: settings.housekeepingSeconds, searchSeconds: settings.searchSeconds)
        refreshSegment(watcher)
        // The watcher is not joined at the end: it sleeps in FUTEX_WAIT for up to
        // `housekeepingSeconds`, and the process's exit ends it.
        do { try WorkerThread { watcher.run() }.detach() } catch {
            throw ViewerError(message: "view: \(error)")
        }
        let claim = DaemonClaim(log: log, purpose: "a background surface is seen", wanted: false)
        let claimThread = claim.flatMap { c in try? WorkerThread { c.run() } }
        defer {
            claim?.stop()
            claimThread?.join()
        }

        while true {
            // Draw what is due, ask what is due, then sleep until the next thing.
            let now = MonotonicClock.seconds()
            claim?.want(step(now: now))
            do { try connection.flush() } catch {
                log.info("view: the compositor closed the connection (\(error)); exiting")
                return
            }
            let eager =
                outputs.isEmpty || !pendingOutputs.isEmpty || outputs.values.contains(where: \.awaitsCompositor)
                || !outputs.values.contains(where: { $0.visibility == .shown })
            let deadline = outputs.values.compactMap { $0.nextDeadline() }.min() ?? .infinity
            // The connection is polled for POLLIN only when its events are awaited; else for
            // nothing, which poll(2) still wakes for when the compositor hangs up.
            var fds = [
                pollfd(fd: frames.readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: connection.fileDescriptor, events: eager ? Int16(POLLIN) : 0, revents: 0),
            ]
            if let fd = signals.fileDescriptor { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let wait = max(0, deadline - MonotonicClock.seconds())
            _ = poll(&fds, nfds_t(fds.count), wait == .infinity ? -1 : Int32((min(wait, 3600) * 1000).rounded(.up)))
            let ready = fds.filter { $0.revents != 0 }.map(\.fd)
            if signals.mayBePending(readable: ready), let s = signals.drain().first {
                log.info("view: closed (signal \(s))")
                return
            }
            if ready.contains(frames.readEnd) {
                _ = frames.drain()
                watcher.acknowledge()
                refreshSegment(watcher)
            }
            do { try connection.dispatch() } catch {
                log.info("view: the compositor closed the connection (\(error)); exiting")
                return
            }
        }
    }

    /// Connects to `socket` and binds what the background needs: the compositor (version 4,
    /// for damage in buffer pixels), wl_shm and the layer shell; also returns every global
    /// announced, outputs among them. Throws the one line of a desktop where it cannot work.
    private func connect(_ socket: String) throws(ViewerError)
        -> (WaylandConnection, [WaylandGlobal], Compositor, Shm, LayerShell)
    {
        let connection: WaylandConnection
        do { connection = try WaylandConnection(name: socket) } catch {
            throw Self.unavailable("cannot connect to \(socket) (\(error.reason))")
        }
        var globals: [WaylandGlobal] = []
        connection.onGlobal = { globals.append($0) }
        do { try connection.roundtrip() } catch { throw Self.unavailable("\(socket): \(error)") }
        func bound<T>(_ interface: String, _ make: (WaylandGlobal) -> T?) -> T? {
            globals.first(where: { $0.interface == interface }).flatMap(make)
        }
        guard let shell = bound("zwlr_layer_shell_v1", { LayerShell(connection, $0) }) else {
            throw Self.unavailable("the compositor at \(socket) has no wlr-layer-shell (GNOME and weston have none)")
        }
        guard let compositor = bound("wl_compositor", { $0.version >= 4 ? Compositor(connection, $0) : nil }),
            let shm = bound("wl_shm", { Shm(connection, $0) })
        else {
            throw Self.unavailable("the compositor at \(socket) lacks wl_compositor version 4 or wl_shm")
        }
        log.info(
            "view: the background on \(socket), layer shell version "
                + "\(globals.first { $0.interface == "zwlr_layer_shell_v1" }!.version), "
                + "fill \(RGB8(xrgb: settings.fill).hex)")
        return (connection, globals, compositor, shm, shell)
    }

    /// Every output: the closed ones go; configures, new frames and probes are answered.
    /// Returns whether any surface is seen (the claim follows it).
    private func step(now: Double) -> Bool {
        for (name, o) in outputs where o.closed {
            outputs[name] = nil
            log.info("view: the layer surface on output \(o.output.name ?? String(name)) was closed")
        }
        let number = frame?.number ?? 0
        for o in outputs.values {
            if o.wantsToDraw(frame: number) {
                do { _ = try o.draw(frame, fill: settings.fill, now: now) } catch {
                    log.error("view: output \(o.output.name ?? "?"): \(error)")
                }
            }
            if let v = o.step(now: now) {
                log.info("view: output \(o.output.name ?? "?"): the background is \(v == .shown ? "seen" : "hidden")")
            }
        }
        return outputs.values.contains { $0.visibility == .shown }
    }

    /// Opens or follows the segment and copies its newest frame when it moved on.
    private func refreshSegment(_ watcher: FrameWatcher) {
        if let r = segment.refresh() { watcher.watch(r) }
        let next = segment.status
        if next != status {
            status = next
            log.info(next.logLine(path: settings.viewer.path))
        }
        guard let reader = segment.reader, next != .noFrameYet, reader.frame != frame?.number else { return }
        let h = reader.header
        // A frame of the segment's size: the last one's memory, or new memory once the
        // segment was replaced by one of another size. It becomes `frame` once the copy is good.
        let target =
            frame.flatMap {
                $0.width == Int(h.width) && $0.height == Int(h.height) && $0.stride == Int(h.stride) ? $0 : nil
            }
            ?? Frame(width: Int(h.width), height: Int(h.height), stride: Int(h.stride))
        if let number = segment.readNewest(reader, watcher: watcher, { pixels in target.copy(from: pixels) }) {
            target.number = number
            frame = target
        }
    }
}
