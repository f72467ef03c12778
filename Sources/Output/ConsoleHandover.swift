import LinuxSystem
import Logging

/// A display sink's side of console switching (`ConsoleSwitchWatch`, VT_PROCESS): before
/// the kernel switches away from the card's VT it sends the signal and waits; the sink
/// gives the display up (`giveUp`) and the kernel is told it may switch. After the switch
/// back the same signal comes again: the switch is acknowledged and the sink takes the
/// display at once (`takeBack`). Both are events (the signal reaches the daemon's
/// signalfd): nothing is polled. One signal serves both ways, as the kernel allows, so
/// which one came is told by whether the display was given up.
final class ConsoleHandover {
    /// The kernel's signal for this VT; nil: switches are not followed.
    let signal: Int32?
    private var watch: ConsoleSwitchWatch?
    /// The VT in front while the card's is switched away (0 when the kernel did not say).
    private(set) var switchedAway: Int?

    init(signal: Int32?) {
        self.signal = signal
    }

    /// Why nobody sees the card while the console is switched away; nil while it is in front.
    var unseenBecause: String? {
        switchedAway.map { "the console is switched away (" + ($0 > 0 ? "VT \($0)" : "another VT") + " in front)" }
    }

    /// VT_PROCESS on the console at `path`, once, when the display is first taken.
    func follow(_ path: String, log: Logger) {
        guard watch == nil, let signal else { return }
        do {
            watch = try ConsoleSwitchWatch(path: path, signal: signal)
        } catch {
            log.info("console \(path): switches to another VT are not followed (\(error)); the card stays on the "
                     + "display until another program takes it")
        }
    }

    /// The signal came: gives the display up and lets the switch happen, or acknowledges
    /// the switch back and takes the display again.
    func signalled(_ sink: String, log: Logger, giveUp: () -> Void, takeBack: () -> Void) {
        guard let watch else { return }
        if let away = switchedAway {
            do { try watch.acknowledgeSwitchBack() } catch {
                log.warning("console \(watch.path): \(error)")
            }
            switchedAway = nil
            log.notice("\(sink): the console is back on VT \(watch.number)"
                       + (away > 0 ? " (from VT \(away))" : "") + "; taking the display again")
            takeBack()
            return
        }
        giveUp()
        do {
            try watch.allowSwitchAway()
            let active = (try? watch.isInFront().active) ?? 0
            switchedAway = active == watch.number ? 0 : active
        } catch {
            // VT_RELDISP refused (EINVAL): no switch was pending, the signal came from elsewhere.
            log.notice("\(sink): a console-switch signal with no switch pending (\(error)); keeping the display")
            takeBack()
        }
    }

    /// VT_AUTO back on the console.
    func close() {
        watch?.close()
        watch = nil
    }
}
