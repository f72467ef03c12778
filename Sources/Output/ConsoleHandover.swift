import LinuxSystem
import Logging

/// A display sink's side of console switching (`ConsoleSwitchWatch`, VT_PROCESS): before
/// the kernel switches away from the card's VT it sends the signal and waits; the sink
/// gives the display up (`giveUp`) and the kernel is told it may switch. After the switch
/// back the same signal comes again: the switch is acknowledged and the sink takes the
/// display at once (`takeBack`). Both are events (the signal reaches the daemon's
/// signalfd): nothing is polled. One signal serves both ways, as the kernel allows, so
/// which one came is told by whether the display was given up.
///
/// A console switched away and back over and over is told for at most three switches a
/// minute (`FlapLimiter`), each whole: the sink's give-up line, the switch back and the
/// display taken again; the others say nothing.
final class ConsoleHandover {
    /// The kernel's signal for this VT; nil: switches are not followed.
    let signal: Int32?
    private var watch: ConsoleSwitchWatch?
    /// The VT in front while the card's is switched away (0 when the kernel did not say).
    private(set) var switchedAway: Int?
    /// Switches away and back: which are told.
    private var flaps = FlapLimiter()

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
            log.info(
                "console \(path): switches to another VT are not followed (\(error)); the card stays on the "
                    + "display until another program takes it")
        }
    }

    /// The signal came (at `now`, monotonic seconds): gives the display up and lets the
    /// switch happen, or acknowledges the switch back and takes the display again. `giveUp`
    /// and `takeBack` are told whether to say so (and, giving up, how many switches were
    /// not told since the last one that was).
    func signalled(
        _ sink: String, now: Double, log: Logger, giveUp: (_ say: Bool, _ untold: Int) -> Void,
        takeBack: (_ say: Bool) -> Void
    ) {
        guard let watch else { return }
        if let away = switchedAway {
            do { try watch.acknowledgeSwitchBack() } catch {
                log.warning("console \(watch.path): \(error)")
            }
            switchedAway = nil
            let say = flaps.back()
            if say {
                log.notice(
                    "\(sink): the console is back on VT \(watch.number)"
                        + (away > 0 ? " (from VT \(away))" : "") + "; taking the display again")
            }
            takeBack(say)
            return
        }
        let told = flaps.gone(now: now)
        giveUp(told.say, told.untold)
        do {
            try watch.allowSwitchAway()
            let active = (try? watch.isInFront().active) ?? 0
            switchedAway = active == watch.number ? 0 : active
        } catch {
            // VT_RELDISP refused (EINVAL): no switch was pending, the signal came from elsewhere.
            _ = flaps.back()
            log.notice("\(sink): a console-switch signal with no switch pending (\(error)); keeping the display")
            takeBack(true)
        }
    }

    /// " (N more switches since the last such line)", or nothing.
    static func untoldSuffix(_ untold: Int) -> String {
        untold > 0 ? " (\(untold) more switch\(untold == 1 ? "" : "es") since the last such line)" : ""
    }

    /// VT_AUTO back on the console.
    func close() {
        watch?.close()
        watch = nil
    }
}
