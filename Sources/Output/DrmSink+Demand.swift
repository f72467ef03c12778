import DRM
import Glibc
import LinuxSystem
import Logging

/// Whether anyone can see the card on the display (`FrameAudience`, `Sink.demand = auto`):
///
/// - **The console in front.** The card's VT hands its switches to the daemon
///   (`ConsoleSwitchWatch`, VT_PROCESS): before the kernel switches to another VT it sends
///   `consoleSwitchSignal` and waits; the sink then gives the display up (the console's
///   CRTC set back, DRM master dropped, so the session on the other VT can take it) and
///   answers VT_RELDISP. After a switch back the same signal comes again: the sink answers
///   VT_ACKACQ and takes the display at once. Both are events (a signal, through the
///   daemon's signalfd): nothing is polled.
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
        if let vt = switchedAway { return .display(unseenBecause: "the console is switched away (VT \(vt) in front)") }
        if let off = displayOff { return .display(unseenBecause: "the display is off (DPMS \(off))") }
        return .display(unseenBecause: nil)
    }

    /// The kernel's console-switch signal came (see above): a switch away is asked for,
    /// or a switch back has happened.
    package func consoleSwitched() {
        guard let watch = consoleWatch else { return }
        if let away = switchedAway {
            do { try watch.acknowledgeSwitchBack() } catch {
                log.warning("console \(watch.path): \(error)")
            }
            switchedAway = nil
            log.notice("drm \(device): the console is back on VT \(watch.number) (from VT \(away)); taking the display again")
            retry.restart()
            maintain()
            return
        }
        detach(because: "the console is switching away from VT \(watch.number)", retrying: false)
        do {
            try watch.allowSwitchAway()
            let active = (try? watch.isInFront().active) ?? 0
            switchedAway = active == watch.number ? 0 : active
        } catch {
            // VT_RELDISP refused (EINVAL): no switch was pending, the signal came from elsewhere.
            log.notice("drm \(device): a console-switch signal with no switch pending (\(error)); keeping the display")
            retry.restart()
            maintain()
        }
    }

    /// VT_PROCESS on the card's console, once, when the display is first taken.
    func followConsoleSwitches() {
        guard consoleWatch == nil, let signal = consoleSwitchSignal else { return }
        do {
            consoleWatch = try ConsoleSwitchWatch(path: consolePath, signal: signal)
        } catch {
            log.info("console \(consolePath): switches to another VT are not followed (\(error)); the card stays "
                     + "on the display until another program takes DRM master")
        }
    }

    /// Reads the connector's DPMS state; says when it changes.
    func noteDPMS(_ card: DRMCard, _ connector: DRMConnector) {
        let value: String?
        do { value = try card.enumProperty("DPMS", of: connector) } catch {
            log.warning("drm \(card.path): cannot read the DPMS state of \(connector.name): \(error)")
            return
        }
        let off = value.flatMap { $0 == "On" ? nil : $0 }
        guard off != displayOff else { return }
        displayOff = off
        log.info("drm \(card.path) \(connector.name): DPMS \(value ?? "unknown")")
    }
}
