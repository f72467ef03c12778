import DRM
import Glibc
import LinuxSystem
import Logging

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
        console.signalled("drm \(device)", now: clock(), log: log, giveUp: { say, untold in
            detach(because: "the console is switching to another VT" + ConsoleHandover.untoldSuffix(untold),
                   retrying: false, quiet: !say)
        }, takeBack: { say in
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
            guard dpmsFlaps.isTelling else { return }    // Off to Standby and the like, within an episode
        }
        log.info("drm \(card.path) \(connector.name): DPMS \(value ?? "unknown")"
                 + (untold > 0 ? " (off \(untold) more times since the last such line)" : ""))
    }
}
