import Card
import DRM
import Glibc
import LinuxSystem
import Logging
import Output
import Tracing

/// Sinks from `[Sink]`.
package enum SinkFactory {
    /// - Parameter describe: "Sink.path = X (FILE:LINE)" for a key and its value, so a
    ///   sink that cannot be opened is reported where it was configured.
    /// - Parameter keepsEveryFrame: the run is on a trace's clock, not the wall's: a png
    ///   sink whose writer is behind waits for it instead of dropping the frame (the
    ///   frames of such a run are a function of the trace, at any speed).
    package static func make(
        _ s: SinkSettings, renderer: CardRenderer, log: Logger, keepsEveryFrame: Bool = false,
        describe: (String, String) -> String = { "\($0) = \($1)" }
    ) throws(Failure) -> any FrameSink {
        try checkSettings(s, describe: describe)
        let width = renderer.pixelWidth, height = renderer.pixelHeight
        switch s.type {
        case .auto:
            let choice = chooseAutomatically(s)
            log.notice("Sink.type = auto: \(choice.type.rawValue): \(choice.why)")
            var chosen = s
            chosen.type = choice.type
            chosen.device = choice.device
            return try make(chosen, renderer: renderer, log: log, keepsEveryFrame: keepsEveryFrame, describe: describe)
        case .null:
            return NullSink(width: renderer.pixelWidth, height: renderer.pixelHeight)
        case .png:
            return try makePNG(s, renderer: renderer, log: log, waits: keepsEveryFrame, describe: describe)
        case .drm:
            // As with the framebuffer: a missing display or a busy DRM master is reported
            // once and retried with backoff.
            // The console's switches come as SIGUSR2 (DaemonSignals), which the daemon's
            // signalfd takes.
            return DrmSink(
                device: s.device, connector: s.connector, position: s.position, cardWidth: width,
                cardHeight: height, consoleSwitchSignal: SIGUSR2, log: log.with(["sink.device": s.device]))
        case .framebuffer:
            // A missing or busy device is not a startup failure: the sink reports it once
            // and retries with backoff.
            let device = framebufferDevice(s.device)
            return FramebufferSink(
                device: device, position: s.position, cardWidth: width, cardHeight: height,
                consoleSwitchSignal: SIGUSR2, log: log.with(["sink.device": device]))
        case .shm:
            return try makeSharedMemory(s, width: width, height: height, log: log, describe: describe)
        case .raw:
            return try makeRaw(s, width: width, height: height, log: log, describe: describe)
        }
    }

    /// Numbered PNGs in `Sink.path`, continuing after the frames already there.
    private static func makePNG(
        _ s: SinkSettings, renderer: CardRenderer, log: Logger, waits: Bool,
        describe: (String, String) -> String
    ) throws(Failure) -> any FrameSink {
        do {
            let sink = try PNGSequenceSink(
                directory: s.path, width: renderer.pixelWidth, height: renderer.pixelHeight,
                coverage: renderer.cardCoverage, waitsWhenBehind: waits,
                log: log.with(["sink.path": s.path]))
            if sink.firstNumber > 1 {
                log.notice(
                    "png \(s.path) already holds frames up to \(PNGSequenceSink.fileName(sink.firstNumber - 1)); continuing at \(PNGSequenceSink.fileName(sink.firstNumber))",
                    ["sink.path": s.path])
            }
            return sink
        } catch {
            throw Failure(.cannotCreate, "\(describe("Sink.path", s.path)): \(error)")
        }
    }

    /// The group whose members look at the card: they read the segments (`Sink.mode`'s
    /// group bits) and may call `Recalibrate()` (dbus/org.shimmerd.Shimmerd1.conf). It is
    /// not the service's group `shimmerd`, which may write the sensors' attributes
    /// (60-shimmerd.rules). The packages' sysusers file creates it with user shimmerd in it.
    package static let viewerGroup = "shimmerd-view"

    /// The segment /dev/shm/`Sink.name`, given to `viewerGroup` where that group exists and
    /// this process may give files to it (root, or a member: the unit's
    /// SupplementaryGroups=); elsewhere (a run from a shell) it keeps the process's group.
    private static func makeSharedMemory(
        _ s: SinkSettings, width: Int, height: Int, log: Logger,
        describe: (String, String) -> String
    ) throws(Failure) -> any FrameSink {
        let viewers = groupID(named: viewerGroup).flatMap { mayGiveFiles(toGroup: $0) ? $0 : nil }
        do {
            return try SharedMemorySink(
                name: s.name, mode: mode_t(s.mode), group: viewers, width: width, height: height,
                log: log.with(["sink.name": s.name]))
        } catch {
            throw Failure(.cannotCreate, "\(describe("Sink.name", s.name)): \(error.message)")
        }
    }

    /// Raw frames to stdout, a FIFO or a file (`Sink.path`).
    private static func makeRaw(
        _ s: SinkSettings, width: Int, height: Int, log: Logger,
        describe: (String, String) -> String
    ) throws(Failure) -> any FrameSink {
        // Binary frames would garble a terminal. A terminal named by its own path
        // (`Sink.path = $(tty)`) is written: that is asked for explicitly.
        if s.path == "-" && isatty(1) != 0 {
            throw Failure(
                .usage,
                "\(describe("Sink.path", s.path)): Sink.type = raw writes binary frames and standard output is a terminal; "
                    + "pipe it (| ffmpeg ...) or redirect it (> frames.raw), or set Sink.path=$(tty) to write to the terminal anyway"
            )
        }
        do {
            let sink = try RawFrameSink(
                path: s.path, width: width, height: height, fps: s.fps,
                log: log.with(["sink.path": s.path]))
            if let padded = sink.paddedBytes {
                log.warning(
                    "raw \(s.path) ended in a partial frame; \(padded) zero bytes added so that new frames start on a frame boundary",
                    ["sink.path": s.path])
            }
            return sink
        } catch {
            throw Failure(.cannotCreate, "\(describe("Sink.path", s.path)): \(error.message)")
        }
    }

    /// What `[Sink]` decides by itself, before anything is opened.
    package static func checkSettings(_ s: SinkSettings, describe: (String, String) -> String) throws(Failure) {
        if s.type == .png, s.path == "-" || s.path.isEmpty {
            throw Failure(
                .configuration, "\(describe("Sink.path", s.path)): Sink.type = png needs Sink.path = DIRECTORY")
        }
    }

    /// What a display sink (`drm`, `framebuffer`) would not find now: the card, connector
    /// or device it names, as its first log line would say; nil when it is there (or the
    /// sink is not a display's). `run` retries such a sink (a driver may load late, a
    /// display be plugged in); `check-config` reports it (exit 69), so a script can tell.
    package static func missingDevice(_ s: SinkSettings) -> String? {
        switch s.type {
        case .drm:
            do { _ = try DrmDisplay.find(device: s.device, connector: s.connector) } catch { return error.message }
        case .framebuffer:
            let device = framebufferDevice(s.device)
            do { _ = try FileDescriptor.open(device, O_RDWR) } catch { return "\(error)" }
        default:
            break
        }
        return nil
    }

    /// `Sink.device = auto` for the framebuffer sink.
    package static func framebufferDevice(_ device: String) -> String { device == "auto" ? "/dev/fb0" : device }

    /// `Sink.type = auto`: drm where a connected display can be driven; where one is
    /// connected but another program holds DRM master, a desktop's compositor owns the
    /// screen (its fbdev, if any, is an emulation under it), so shm for the viewer; with
    /// no DRM display, the framebuffer device if it opens; else shm. A `Sink.device`
    /// under /dev/dri/ is only tried as a DRM card, another path only as a framebuffer.
    static func chooseAutomatically(_ s: SinkSettings) -> (type: SinkType, device: String, why: String) {
        let tryDRM = s.device == "auto" || s.device.hasPrefix("/dev/dri/")
        let fb = framebufferDevice(s.device)
        let tryFramebuffer = !s.device.hasPrefix("/dev/dri/")
        var noDRM = "Sink.device = \(s.device) is not a DRM card"
        if tryDRM {
            do {
                let display = try DrmDisplay.find(device: s.device, connector: s.connector)
                let card = display.card
                do {
                    try card.becomeMaster()
                    try? card.dropMaster()
                } catch  where error.isMasterConflict && display.isOpenElsewhereInThisProcess {
                    return (
                        .drm, card.path,
                        "\(card.path) \(display.connector.name) is connected (\(display.mode)) and driven by this process's running sink until the reload replaces it"
                    )
                } catch  where error.isMasterConflict {
                    return (
                        .shm, s.device,
                        "\(card.path) \(display.connector.name) is connected but another program holds DRM master (\(error.codeName)), as a desktop's compositor does; the frames go to /dev/shm/\(s.name) for shimmerd view"
                    )
                } catch {
                    noDRM = "\(error)"
                    return fallback(s, fb: tryFramebuffer ? fb : nil, noDRM: noDRM)
                }
                return (
                    .drm, card.path,
                    "\(card.path) \(display.connector.name) is connected (\(display.mode)) and free to drive"
                )
            } catch {
                noDRM = error.message
            }
        }
        return fallback(s, fb: tryFramebuffer ? fb : nil, noDRM: noDRM)
    }

    private static func fallback(_ s: SinkSettings, fb: String?, noDRM: String) -> (
        type: SinkType, device: String, why: String
    ) {
        guard let fb else {
            return (.shm, s.device, "no DRM display (\(noDRM)); the frames go to /dev/shm/\(s.name) for shimmerd view")
        }
        do {
            _ = try FileDescriptor.open(fb, O_RDWR)
            return (.framebuffer, fb, "no DRM display (\(noDRM)); \(fb) opens")
        } catch {
            return (
                .shm, s.device,
                "no DRM display (\(noDRM)) and no framebuffer (\(error)); the frames go to /dev/shm/\(s.name) for shimmerd view"
            )
        }
    }

    /// Whether a reload from `old` to `new` settings may keep `sink` open: the same
    /// output (the same file, FIFO, directory, segment or device, and card size), so a
    /// reader of a FIFO or a segment sees no gap and no end, and two sinks never share
    /// one output. What may differ is handed to the open sink: `Sink.fps` (raw),
    /// `Sink.mode` (shm).
    package static func canCarryOver(
        _ sink: any FrameSink, from old: SinkSettings, to new: SinkSettings, sameSize: Bool,
        log: Logger
    ) -> Bool {
        guard sameSize, old.type == new.type else { return false }
        switch new.type {
        case .raw:
            guard old.path == new.path, let raw = sink as? RawFrameSink else { return false }
            raw.limit(fps: new.fps)
        case .png:
            guard old.path == new.path else { return false }
        case .shm:
            guard old.name == new.name, let shm = sink as? SharedMemorySink else { return false }
            if old.mode != new.mode {
                do { try shm.setMode(mode_t(new.mode)) } catch {
                    log.warning("\(error); keeping the old mode", ["sink.name": new.name])
                }
            }
        case .framebuffer:
            guard old.device == new.device, old.position?.x == new.position?.x, old.position?.y == new.position?.y
            else { return false }
        case .null:
            break
        default:
            var sameOutput = old
            sameOutput.fps = new.fps
            return sameOutput == new
        }
        return true
    }
}
