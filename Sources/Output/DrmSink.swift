import DRM
import Glibc
import LinuxSystem
import Logging
import Raster
import Udev

/// The card on a display driven through DRM/KMS (/dev/dri/cardN), tear-free.
///
/// How: two dumb buffers (XRGB8888, the mode's size) with framebuffer objects; the CRTC
/// is set once, on the first buffer, in the mode it already had on the connector (no
/// mode set, no flicker), else the connector's preferred mode; then every published
/// frame is drawn into the buffer that is not on screen and a page flip with
/// DRM_MODE_PAGE_FLIP_EVENT queued. The kernel shows it at the next vblank and then
/// makes the card's descriptor readable with the flip's event; until that event is read
/// (`handle(readable:)`, from the daemon's own poll loop) `isReadyForFrame` is false and
/// no other flip is queued, so frames come at most at the display's refresh and a
/// buffer is never written while it is scanned out.
///
/// Why a shadow, as in the framebuffer sink: the renderer paints the card into memory
/// owned by the sink, and each publish copies into the back buffer only the card rows
/// that differ from what that buffer last received. Each buffer has its own record of
/// what it holds, so a dot repainted in one frame is copied into the other buffer too
/// when that one is next drawn (incremental rendering stays correct with two buffers),
/// and nothing is ever read back from the dumb buffers (they may be write-combined or
/// uncached). A frame handed over while a flip is pending stays in the shadow and is
/// flipped as soon as the event comes.
///
/// Invariants: the buffers are black outside the card; only the card's visible
/// rectangle is written per frame; the card is drawn upright for the connector's
/// `panel orientation`. DRM master is taken on attach: while another program holds it
/// (a compositor: EBUSY, or EACCES) one line says so and the attach is retried with
/// backoff (0.5 s doubling to 4 s); frames go to the shadow meanwhile. The console's VT
/// is put in KD_GRAPHICS while attached. `close()` (and deinit, and every detach) sets
/// the saved CRTC back (its framebuffer, position and mode), so the console comes back,
/// before the buffers are removed. While the card is shown, the same CRTC setting and the
/// console's KD_TEXT are armed in `CrashFlush`, prepared at attach, so a process that
/// dies of a fault gives the console back too (the kernel alone would turn the CRTC off
/// with the buffers it removes). A udev `drm` change event (a connector plugged or
/// unplugged) re-probes: a display that went away detaches, one that came attaches. A
/// flip whose event has not come `flipTimeout` after it was queued detaches too (one
/// line), and the retry sets the display up again. Master taken by another program
/// mid-run (a flip fails with EACCES) leaves it the display: no CRTC restore, no drop.
package final class DrmSink: FrameSink {
    package let device: String
    package let connectorName: String
    package let consolePath: String
    private let position: (x: Int, y: Int)?
    let log: Logger
    let clock: () -> Double
    private let shadow: PixelBuffer
    private var attached: Attached?
    private var monitor: UdevMonitor?
    private var retry = RetryBackoff(first: DrmSink.firstBackoff, max: DrmSink.maxBackoff)
    /// Console switches (`consoleSwitched`, below).
    let console: ConsoleHandover
    /// The connector's DPMS state while it is not "On".
    private var displayOff: String?
    /// The display switched off and on: which times are told (`noteDPMS`).
    private var dpmsFlaps = FlapLimiter()
    /// The next attach is the display taken back after a console switch that is not told.
    private var quietAttach = false
    private var closed = false
    /// A frame reached the shadow while a flip was pending: flip it when the event comes.
    private var waitingFrame = false
    package private(set) var framesPublished: UInt64 = 0
    /// Page flips queued so far (for tests and the bench).
    package private(set) var flipsQueued = 0
    /// Card rows copied into dumb buffers so far.
    package private(set) var rowsWritten = 0

    static let firstBackoff = 0.5
    static let maxBackoff = 4.0
    /// Seconds a queued flip may wait for its event (many refreshes even at 1 Hz) before
    /// the display is taken as stuck: then it is released and set up again.
    static let flipTimeout = 2.0

    final class Attached {
        let display: DrmDisplay
        let buffers: [DumbBuffer]
        private var copier: ShadowCopier
        let console: VirtualTerminalMode?
        /// The CRTC as it was found, to set back (`DrmDisplay.prepareRestore`).
        let restore: DRMPreparedSetCrtc
        /// `restore` and the console's mode, armed for a crash while the card is shown
        /// (`arm`; nil: disarmed).
        private(set) var crashRestore: CrashFlush.Registration?
        /// The buffer on screen, and the one a queued flip will put there.
        private(set) var front = 0
        private(set) var pending: Int?
        /// When the pending flip was queued (monotonic seconds).
        private(set) var queuedAt = 0.0

        init(display: DrmDisplay, buffers: [DumbBuffer], placement: CardPlacement, console: VirtualTerminalMode?) {
            self.display = display
            self.buffers = buffers
            copier = ShadowCopier(placement: placement, orientation: display.orientation, bufferCount: buffers.count)
            self.console = console
            restore = display.prepareRestore()
        }

        var placement: CardPlacement { copier.placement }

        /// A flip to buffer `back` was queued at `t`.
        func flipQueued(to back: Int, at t: Double) {
            pending = back
            queuedAt = t
        }

        /// The pending flip's event came: its buffer is on screen.
        func flipCompleted() {
            guard let next = pending else { return }
            front = next
            pending = nil
        }

        /// Arms `registration` for a crash (nil: disarms).
        func arm(_ registration: CrashFlush.Registration?) { crashRestore = registration }

        /// Copies what changed of `pixmap` into buffer `index` (`ShadowCopier.copy`); the rows written.
        func copy(_ pixmap: Pixmap, into index: Int) -> Int {
            let b = buffers[index]
            return copier.copy(
                pixmap, into: index, base: b.base, pitch: b.pitch, panelWidth: b.width, panelHeight: b.height)
        }
    }

    /// - Parameters:
    ///   - device: a card node, or "auto": the first /dev/dri/card* with a connected display.
    ///   - connector: "auto" (the first connected) or a connector name (`eDP-1`).
    ///   - position: the card's top-left in upright screen pixels; nil centres it.
    ///   - consolePath: the VT put in KD_GRAPHICS (/dev/tty0: the foreground console).
    ///   - log: one line per state change (attached, detached: notice; busy, a failed
    ///     restore or page flip: warning or error).
    ///   - clock: monotonic seconds, for the retry backoff.
    package init(
        device: String, connector: String, position: (x: Int, y: Int)?, cardWidth: Int, cardHeight: Int,
        consolePath: String = "/dev/tty0", consoleSwitchSignal: Int32? = nil, log: Logger,
        clock: @escaping () -> Double = MonotonicClock.seconds
    ) {
        console = ConsoleHandover(signal: consoleSwitchSignal)
        self.device = device
        connectorName = connector
        self.consolePath = consolePath
        self.position = position
        self.log = log
        self.clock = clock
        shadow = PixelBuffer(width: cardWidth, height: cardHeight)
        do {
            monitor = try UdevMonitor(context: UdevContext(), subsystem: "drm")
        } catch {
            log.warning("drm \(device): no udev monitor (\(error)); displays plugged in later are not noticed")
        }
        // No attach here: the first `maintain()` of the loop does it. A reload builds the
        // new pipeline before it closes the old one, whose sink holds DRM master and the
        // CRTC until then.
    }

    deinit { close() }

    package var summary: String { "drm \(device)" + (connectorName == "auto" ? "" : " \(connectorName)") }
    package var slotCount: Int { 1 }
    package var isAttached: Bool { attached != nil }
    package var isShowing: Bool { isAttached }
    package var isReadyForFrame: Bool { attached?.pending == nil }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (shadow.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    package func appendFileDescriptors(to fds: inout [Int32]) {
        // The card only while a flip is pending: its events are the only ones asked for.
        if let a = attached, a.pending != nil { fds.append(a.display.card.fileDescriptor) }
        if let monitor { fds.append(monitor.fileDescriptor) }
    }

    package func handle(readable: [Int32]) {
        if let monitor, readable.contains(monitor.fileDescriptor) { maintain() }
        if let a = attached, readable.contains(a.display.card.fileDescriptor) { collectFlip(a) }
    }

    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        framesPublished += 1
        guard let a = attached else { return .published }
        collectFlip(a)
        if a.pending != nil {
            waitingFrame = true  // flipped when the pending one completes
            return .published
        }
        flip(a)
        return .published
    }

    /// Reads the card's events while a flip is pending (non-blocking: nothing waiting is
    /// not an error); once it has completed, a frame that waited for it is flipped.
    private func collectFlip(_ a: Attached) {
        guard a.pending != nil else { return }
        let events: [DRMFlipEvent]
        do { events = try a.display.card.readEvents() } catch {
            detach(because: "reading its page-flip event failed: \(error)", level: .warning)
            return
        }
        guard !events.isEmpty else { return }
        a.flipCompleted()
        if waitingFrame {
            waitingFrame = false
            flip(a)
        }
    }

    /// A flip in flight's timeout, or the next retry of a display that is not attached.
    package var maintenanceIn: Double? {
        guard !closed else { return nil }
        if let a = attached {
            return a.pending == nil ? nil : max(0, a.queuedAt + Self.flipTimeout - clock())
        }
        return console.switchedAway == nil ? max(0, retry.retryAt - clock()) : nil
    }

    package func maintain() {
        guard !closed else { return }
        // Hotplug events are drained here too, not only when the loop reports the
        // monitor readable: a wake-up comes at least four times a second.
        if let monitor { hotplug(monitor) }
        // And a completed flip too, should the loop not watch the card's descriptor.
        if let a = attached {
            collectFlip(a)
            if a.pending != nil, clock() - a.queuedAt > Self.flipTimeout {
                detach(
                    because: "no page-flip event \(Int(Self.flipTimeout)) s after the flip was queued", level: .warning)
            }
        }
        guard attached == nil, console.switchedAway == nil, retry.isDue(clock()) else { return }
        do {
            let a = try attach()
            attached = a
            retry.succeeded()
            console.follow(consolePath, log: log)
            noteDPMS(a.display.card, a.display.connector)
            let d = a.display, p = a.placement
            defer { quietAttach = false }
            guard !quietAttach else { return }
            log.notice(
                "drm \(d.card.path): \(d.connector.name) \(d.mode) ("
                    + (d.keepsMode ? "the mode it had" : "its preferred mode")
                    + "), panel orientation \(d.orientation.rawValue); card at \(p.originX),\(p.originY)"
                    + (p.isEmpty ? ", entirely off screen" : "") + "; page flips on vblank")
        } catch {
            let message = error.message
            if retry.failed(message, at: clock()) {
                log.warning(
                    "drm \(device) unavailable: \(message); retrying with backoff up to \(Int(Self.maxBackoff)) s")
            }
        }
    }

    package func close() {
        guard !closed else { return }
        closed = true
        if let a = attached { release(a) }
        attached = nil
        monitor = nil
        console.close()
    }

    // MARK: Attaching and releasing

    private func attach() throws(SinkError) -> Attached {
        let display = try DrmDisplay.find(device: device, connector: connectorName)
        let card = display.card
        do {
            try card.becomeMaster()
        } catch  where error.isMasterConflict {
            throw SinkError(
                sink: "drm",
                "\(card.path): another program holds DRM master (\(error.codeName) from drmSetMaster; a compositor or another console program)"
            )
        } catch {
            throw SinkError(sink: "drm", "\(error)")
        }
        let mode = display.mode
        var buffers: [DumbBuffer] = []
        do {
            guard try card.supportsDumbBuffers() else {
                throw SinkError(sink: "drm", "\(card.path): the driver has no dumb buffers (DRM_CAP_DUMB_BUFFER is 0)")
            }
            for _ in 0..<2 {
                let b = try card.makeDumbBuffer(width: mode.width, height: mode.height)
                memset(b.base, 0, b.byteCount)  // black around the card (written, never read)
                buffers.append(b)
            }
        } catch let e as SinkError {
            try? card.dropMaster()
            throw e
        } catch {
            try? card.dropMaster()
            throw SinkError(sink: "drm", "\(error)")
        }
        let upright = display.orientation.uprightSize(panelWidth: mode.width, panelHeight: mode.height)
        let placement = CardPlacement(
            cardWidth: shadow.pixmap.width, cardHeight: shadow.pixmap.height,
            screenWidth: upright.width, screenHeight: upright.height, position: position)
        let console = VirtualTerminalMode.graphicsConsole(consolePath, log: log)
        let a = Attached(display: display, buffers: buffers, placement: placement, console: console)
        copyRows(a, into: 0)
        do {
            try card.setCrtc(
                display.crtcID, framebufferID: buffers[0].framebufferID, connectors: [display.connector.id],
                mode: mode)
        } catch {
            try? console?.restore()
            try? card.dropMaster()
            throw SinkError(sink: "drm", "\(error)")
        }
        armCrashRestore(a)
        return a
    }

    /// Arms the prepared CRTC setting, then the console's mode (the order `release` uses)
    /// for the crash handler, which makes them with ioctl(2) before the process dies.
    private func armCrashRestore(_ a: Attached) {
        var calls = [
            CrashFlush.Restore(
                fileDescriptor: a.restore.fileDescriptor, request: a.restore.request,
                argument: a.restore.argument)
        ]
        var owners: [AnyObject] = [a.restore]
        if let console = a.console, let call = console.crashRestore {
            calls.append(call)
            owners.append(console)
        }
        a.arm(CrashFlush.register(restoring: calls, keeping: owners))
        if a.crashRestore == nil {
            log.warning(
                "drm \(a.display.card.path): the crash handler has no room for the console's restore; "
                    + "a crash would leave the display dark")
        }
    }

    /// Sets the saved CRTC back (the console's framebuffer and mode), restores the VT's
    /// mode, disarms the crash restore, removes the buffers, drops master. Each failure
    /// is one line; the rest goes on. `hasMaster` false: another program took master (a
    /// VT switch to a compositor), the display is its own now, so the CRTC is left alone
    /// and there is no master to drop.
    private func release(_ a: Attached, hasMaster: Bool = true) {
        let d = a.display
        if hasMaster { restoreCrtc(a) }
        a.console?.restore(log: log)
        // Disarmed only now: a crash before this point still gives the console back.
        a.arm(nil)
        for b in a.buffers {
            do { try b.destroy() } catch { log.error("drm \(d.card.path): \(error)") }
        }
        if hasMaster {
            do { try d.card.dropMaster() } catch { log.error("drm \(d.card.path): \(error)") }
        }
    }

    private func restoreCrtc(_ a: Attached) {
        let d = a.display
        do {
            try a.restore.perform()
        } catch {
            log.error(
                "drm \(d.card.path): cannot restore CRTC \(d.crtcID) (framebuffer \(d.saved.framebufferID)): \(error)")
        }
    }

    /// - Parameter quiet: said nothing (a console switch that is not told, `ConsoleHandover`).
    func detach(
        because why: String, hasMaster: Bool = true, level: Logger.Level = .notice, retrying: Bool = true,
        quiet: Bool = false
    ) {
        guard let a = attached else { return }
        if !quiet {
            log.log(
                level,
                "drm \(a.display.card.path) \(a.display.connector.name): \(why); "
                    + (hasMaster ? "the console is restored" : "the display is left to it")
                    + (retrying ? ", retrying with backoff up to \(Int(Self.maxBackoff)) s" : ""))
        }
        release(a, hasMaster: hasMaster)
        attached = nil
        waitingFrame = false
        retry.restart(at: clock() + Self.firstBackoff)
    }

    /// Udev `drm` events: the connector we drive went away (detach), or, while
    /// detached, a display may have come (retry at once).
    private func hotplug(_ monitor: UdevMonitor) {
        var changed = false
        while monitor.receive() != nil { changed = true }
        guard changed else { return }
        if let a = attached {
            let d = a.display
            let now: DRMConnector
            do { now = try d.card.connector(d.connector.id) } catch {
                detach(because: "re-probing after a hotplug failed: \(error)", level: .warning)
                return
            }
            noteDPMS(d.card, now)
            if now.connection != .connected {
                detach(because: "the display was disconnected")
            } else if !now.modes.contains(where: { $0.width == d.mode.width && $0.height == d.mode.height }) {
                detach(because: "the display no longer offers \(d.mode)")
            }
        } else {
            retry.restart()  // attach now (the caller goes on to it)
        }
    }

    // MARK: Drawing

    /// Draws the shadow into the back buffer and queues its flip.
    private func flip(_ a: Attached) {
        let back = 1 - a.front
        copyRows(a, into: back)
        do {
            try a.display.card.pageFlip(a.display.crtcID, to: a.buffers[back].framebufferID)
            a.flipQueued(to: back, at: clock())
            flipsQueued += 1
        } catch  where error.isMasterConflict && error.code != EBUSY {
            detach(
                because: "another program took the display (\(error.codeName) from drmModePageFlip)", hasMaster: false)
        } catch {
            detach(because: "\(error)", level: .warning)
        }
    }

    private func copyRows(_ a: Attached, into index: Int) {
        rowsWritten += a.copy(shadow.pixmap, into: index)
    }
}

/// Whether anyone can see the card on the display (`FrameAudience`, `Sink.demand = auto`):
///
/// - **The console in front** (`ConsoleHandover`): the card's VT hands its switches to the
///   daemon (VT_PROCESS); the display is given up before a switch away and taken back
///   after the switch back, each on the kernel's signal.
/// - **The display on.** The connector's DPMS property ("On", "Standby", "Suspend", "Off")
///   is read when the display is taken and at every udev `drm` event. The kernel sends no
///   event of its own when DPMS changes (only a DRM master sets it), so an "Off" set by
///   another program is seen at the next `drm` event; a display the daemon drives itself
///   is set "On" by its mode set.
///
/// A display not attached at all (none connected, or another program holds DRM master) is
/// not counted as unseen: the sink keeps retrying as before, and the frames wait in its
/// shadow buffer.
extension DrmSink {
    package var audience: FrameAudience {
        if let why = console.unseenBecause { return .display(unseenBecause: why) }
        if let off = displayOff { return .display(unseenBecause: "the display is off (DPMS \(off))") }
        return .display(unseenBecause: nil)
    }

    /// The kernel's console-switch signal came: the display is given up before a switch
    /// away (the console's CRTC set back, DRM master dropped, so the session on the other
    /// VT can take it), and taken again after the switch back.
    package func consoleSwitched() {
        console.signalled(
            "drm \(device)", now: clock(), log: log,
            giveUp: { say, untold in
                detach(
                    because: "the console is switching to another VT" + ConsoleHandover.untoldSuffix(untold),
                    retrying: false, quiet: !say)
            },
            takeBack: { say in
                quietAttach = !say
                retry.restart()
                maintain()
            })
    }

    /// Reads the connector's DPMS state; says when it changes. A display switched off and on
    /// over and over is told for at most three of its times off a minute (`FlapLimiter`),
    /// each whole: off, then on again.
    func noteDPMS(_ card: DRMCard, _ connector: DRMConnector) {
        let value: String?
        do { value = try card.enumProperty("DPMS", of: connector) } catch {
            log.warning("drm \(card.path): cannot read the DPMS state of \(connector.name): \(error)")
            return
        }
        let off = value.flatMap { $0 == "On" ? nil : $0 }
        guard off != displayOff else { return }
        let wasOff = displayOff != nil
        displayOff = off
        var untold = 0
        if off == nil {
            guard dpmsFlaps.back() else { return }
        } else if !wasOff {
            let told = dpmsFlaps.gone(now: clock())
            guard told.say else { return }
            untold = told.untold
        } else {
            guard dpmsFlaps.isTelling else { return }  // Off to Standby and the like, within an episode
        }
        log.info(
            "drm \(card.path) \(connector.name): DPMS \(value ?? "unknown")"
                + (untold > 0 ? " (off \(untold) more times since the last such line)" : ""))
    }
}
