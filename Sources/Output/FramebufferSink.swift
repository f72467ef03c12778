import Glibc
import LinuxSystem
import Logging
import Raster

/// The card on a Linux framebuffer (fbdev: /dev/fbN).
///
/// Why a shadow: the renderer paints into an XRGB8888 card-sized buffer owned by the
/// sink, and `publish` copies the rows that changed since the last publish into the
/// mmap'd framebuffer, converting the pixel format on the way. The alternative, painting
/// straight into the framebuffer when it is XRGB8888, was rejected because
/// - 16 and 24 bpp and BGR layouts need a conversion anyway, so there would be two paths;
/// - the device can be missing or busy at start and come back later: the renderer's
///   target must exist before the device does, and the newest card is then drawn at once
///   on attach, without waiting for the card to move;
/// - reads of framebuffer memory are slow (write-combined, uncached), so comparing in
///   the shadow is cheap where comparing on the device is not.
/// The cost is one memcmp per card row per frame (2.8 KB at 700 px) and the copy of the
/// rows that changed; an XRGB8888 device gets plain memcpy rows.
///
/// Invariants: only the card's rectangle, clipped to the visible screen, is ever written;
/// `line_length` is the stride; KD_GRAPHICS is set on the console while the device is
/// attached and KD_TEXT restored in `close()` and deinit (every exit path of the daemon:
/// --duration, SIGTERM/SIGINT, SIGHUP rebuilds, startup failures after the sink exists;
/// a fault through the crash handler, `CrashFlush`).
/// A missing or busy device is reported once per distinct cause and retried with
/// exponential backoff (0.5 s doubling to 8 s); frames rendered meanwhile go to the
/// shadow only. While attached, `maintain` checks once a second that the device path
/// still names the node that was opened (same st_dev and st_ino: a driver unbind or a
/// hot-unplugged DisplayLink removes the node; a new one is another inode); when it
/// does not, the console is restored, the mapping dropped, one line says why, and the
/// backoff starts again. The new device gets the whole card at once on attach.
package final class FramebufferSink: FrameSink {
    package let devicePath: String
    package let consolePath: String
    package let sysfsRoot: String
    private let position: (x: Int, y: Int)?
    let log: Logger
    let clock: () -> Double
    private let shadow: PixelBuffer
    /// The card pixels last written to the device, row-major, card width per row.
    private var written: [UInt32]
    private var device: Attached?
    private var retry = RetryBackoff(first: FramebufferSink.firstBackoff, max: FramebufferSink.maxBackoff)
    /// Console switches (`consoleSwitched`, below).
    let console: ConsoleHandover
    /// The next attach is the device taken back after a console switch that is not told.
    private var quietAttach = false
    private var closed = false
    private var nextPresenceCheck = -Double.infinity
    /// Why an attached device went away, until the line that reports it is written.
    private var vanished: String?
    package private(set) var framesPublished: UInt64 = 0
    /// Rows copied to the device so far (for tests and the bench).
    package private(set) var rowsWritten = 0

    static let firstBackoff = 0.5
    static let maxBackoff = 8.0
    /// Seconds between checks that an attached device is still there (one stat(2)).
    static let presenceCheckInterval = 1.0

    struct Attached {
        let mapping: MemoryMapping
        let geometry: FramebufferGeometry
        let converter: PixelConverter
        let placement: CardPlacement
        let console: VirtualTerminalMode?
        /// The opened node (st_dev, st_ino), to notice it vanish or be replaced.
        let identity: (device: UInt64, inode: UInt64)
        /// The console's text mode armed for the crash handler while attached: a process
        /// that dies of a fault gives the console back too. Disarmed when this is dropped,
        /// after `restoreConsole`.
        let crashRestore: CrashFlush.Registration?
    }

    /// - Parameters:
    ///   - consolePath: the VT put in KD_GRAPHICS (/dev/tty0: the foreground console).
    ///   - sysfsRoot: where sysfs is mounted (for the geometry fallback).
    ///   - log: one line per state change (attached: notice; unavailable, vanished, the
    ///     console left in its mode: warning).
    ///   - clock: monotonic seconds, for the retry backoff.
    package init(
        device: String, position: (x: Int, y: Int)?, cardWidth: Int, cardHeight: Int,
        consolePath: String = "/dev/tty0", consoleSwitchSignal: Int32? = nil, sysfsRoot: String = "/sys", log: Logger,
        clock: @escaping () -> Double = MonotonicClock.seconds
    ) {
        devicePath = device
        self.consolePath = consolePath
        console = ConsoleHandover(signal: consoleSwitchSignal)
        self.sysfsRoot = sysfsRoot
        self.position = position
        self.log = log
        self.clock = clock
        shadow = PixelBuffer(width: cardWidth, height: cardHeight)
        written = [UInt32](repeating: 0, count: cardWidth * cardHeight)
        maintain()
    }

    deinit { close() }

    package var summary: String { "framebuffer \(devicePath)" }
    package var slotCount: Int { 1 }
    package var isAttached: Bool { device != nil }
    package var isShowing: Bool { isAttached }
    package func target(slot: Int) -> (pixmap: Pixmap, originX: Int, originY: Int) { (shadow.pixmap, 0, 0) }
    package func nextSlot() -> Int { 0 }

    @discardableResult
    package func publish(slot: Int, _ frame: FrameInfo) throws(SinkError) -> Delivery {
        framesPublished += 1
        if let device { copyRows(device, all: false) }
        return .published
    }

    /// The next check that the device is still there, or the next retry of a missing one.
    package var maintenanceIn: Double? {
        guard !closed else { return nil }
        if device != nil { return max(0, nextPresenceCheck - clock()) }
        return console.switchedAway == nil ? max(0, retry.retryAt - clock()) : nil
    }

    package func maintain() {
        guard !closed else { return }
        if let d = device {
            let now = clock()
            guard now >= nextPresenceCheck else { return }
            nextPresenceCheck = now + Self.presenceCheckInterval
            guard let why = Self.whyGone(devicePath, d.identity) else { return }
            restoreConsole(d)
            device = nil
            vanished = why
            retry.restart()
        }
        guard device == nil, console.switchedAway == nil, retry.isDue(clock()) else { return }
        do {
            let d = try attach()
            device = d
            let replaced = vanished.map { " (the previous node vanished: \($0))" } ?? ""
            vanished = nil
            nextPresenceCheck = clock() + Self.presenceCheckInterval
            retry.succeeded()
            console.follow(consolePath, log: log)
            let p = d.placement
            if !quietAttach {
                log.notice(
                    "framebuffer \(devicePath): \(d.geometry); card at \(p.originX),\(p.originY)"
                        + (p.isEmpty ? ", entirely off screen" : "") + replaced)
            }
            quietAttach = false
            copyRows(d, all: true)
        } catch {
            let message = error.message
            let fresh = retry.failed(message, at: clock())
            if let why = vanished {
                log.warning(
                    "framebuffer \(devicePath) vanished (\(why)); unavailable: \(message); retrying with backoff up to \(Int(Self.maxBackoff)) s"
                )
            } else if fresh {
                log.warning(
                    "framebuffer \(devicePath) unavailable: \(message); retrying with backoff up to \(Int(Self.maxBackoff)) s"
                )
            }
            vanished = nil
        }
    }

    package func close() {
        guard !closed else { return }
        closed = true
        if let d = device { restoreConsole(d) }
        device = nil
        console.close()
    }

    func restoreConsole(_ d: Attached) {
        d.console?.restore(log: log)
    }

    /// Nil while `path` still names the node that was opened; else why not.
    private static func whyGone(_ path: String, _ identity: (device: UInt64, inode: UInt64)) -> String? {
        let now: FileStatus
        do { now = try FileStatus.of(path) } catch { return "\(error)" }
        if now.device != identity.device || now.inode != identity.inode { return "\(path) is now another device node" }
        return nil
    }

    private func attach() throws(SinkError) -> Attached {
        func fail(_ e: any Error) -> SinkError { SinkError(sink: "framebuffer", "\(e)") }
        let fd: FileDescriptor
        let status: FileStatus
        do {
            fd = try FileDescriptor.open(devicePath, O_RDWR)
            status = try fd.status()
        } catch { throw fail(error) }
        var geometry: FramebufferGeometry
        do {
            geometry = FramebufferGeometry(try FramebufferDevice.screenInfo(fd))
        } catch {
            // Not a real fbdev (a regular file standing in for it) or the ioctls are not
            // supported: the sysfs attributes of fbN.
            guard let dir = FramebufferDevice.sysfsDirectory(path: devicePath, status: status, sysfsRoot: sysfsRoot)
            else {
                throw SinkError(sink: "framebuffer", "\(error), and no /sys/class/graphics/fbN for \(devicePath)")
            }
            func attr(_ name: String) -> String? { try? SysfsAttributeFile.read(dir + "/" + name).get() }
            guard let size = attr("virtual_size"), let bpp = attr("bits_per_pixel"), let stride = attr("stride") else {
                throw SinkError(
                    sink: "framebuffer", "\(error), and \(dir)/{virtual_size,bits_per_pixel,stride} are not readable")
            }
            geometry = try FramebufferGeometry.fromSysfs(
                virtualSize: size, bitsPerPixel: bpp, stride: stride,
                modes: attr("modes"), pan: attr("pan"))
        }
        if let why = geometry.format.unsupportedReason {
            throw SinkError(sink: "framebuffer", "unsupported pixel format: \(why)")
        }
        let needed = geometry.offset(x: geometry.width, y: geometry.height - 1)
        guard geometry.mappedLength >= needed else {
            throw SinkError(
                sink: "framebuffer", "\(geometry.mappedLength) bytes of memory for \(geometry), needs \(needed)")
        }
        if status.kind == .regular && status.size < geometry.mappedLength {
            // Mapping past the end of a file faults on access (SIGBUS).
            throw SinkError(
                sink: "framebuffer",
                "\(devicePath) is a \(status.size)-byte file; \(geometry) needs \(geometry.mappedLength)")
        }
        let mapping: MemoryMapping
        do { mapping = try MemoryMapping(fd, byteCount: geometry.mappedLength) } catch { throw fail(error) }
        let placement = CardPlacement(
            cardWidth: shadow.pixmap.width, cardHeight: shadow.pixmap.height,
            screenWidth: geometry.width, screenHeight: geometry.height, position: position)
        let console = VirtualTerminalMode.graphicsConsole(consolePath, log: log)
        let crashRestore = console.flatMap { c in
            c.crashRestore.flatMap { CrashFlush.register(restoring: [$0], keeping: [c]) }
        }
        return Attached(
            mapping: mapping, geometry: geometry, converter: PixelConverter(geometry.format),
            placement: placement, console: console, identity: (status.device, status.inode),
            crashRestore: crashRestore)
    }

    /// Copies the card rows that differ from what was last written (all of them when
    /// `all`), converted, into the visible part of the card's rectangle.
    private func copyRows(_ d: Attached, all: Bool) {
        let p = d.placement
        guard !p.isEmpty else { return }
        let pix = shadow.pixmap
        let cardWidth = pix.width
        written.withUnsafeMutableBufferPointer { last in
            for y in p.y0..<p.y1 {
                let row = pix.row(y)
                let copy = last.baseAddress! + y * cardWidth
                if !all && memcmp(row, copy, cardWidth * 4) == 0 { continue }
                copy.update(from: row, count: cardWidth)
                let dst = d.mapping.base + d.geometry.offset(x: p.originX + p.x0, y: p.originY + y)
                d.converter.convert(row + p.x0, count: p.x1 - p.x0, to: dst)
                rowsWritten += 1
            }
        }
    }
}

/// Whether anyone can see the card on the framebuffer (`FrameAudience`, `Sink.demand =
/// auto`): while its console is in front (`ConsoleHandover`). A framebuffer is shared by
/// every VT, so while another is in front nothing may be written to it at all: the device
/// is let go (the console's mode set back) before the kernel switches, and taken again,
/// with the whole card drawn, after the switch back. Whether the screen is blanked cannot
/// be read (the fbdev `blank` attribute is write-only), so it is not counted.
extension FramebufferSink {
    package var audience: FrameAudience { .display(unseenBecause: console.unseenBecause) }

    package func consoleSwitched() {
        console.signalled(
            "framebuffer \(devicePath)", now: clock(), log: log,
            giveUp: { say, untold in
                guard let d = device else { return }
                restoreConsole(d)
                device = nil
                if say {
                    log.notice(
                        "framebuffer \(devicePath): the console is switching to another VT; the device is let go"
                            + ConsoleHandover.untoldSuffix(untold))
                }
            },
            takeBack: { say in
                quietAttach = !say
                retry.restart()
                maintain()
            })
    }
}
