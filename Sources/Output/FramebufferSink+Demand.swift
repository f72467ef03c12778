import LinuxSystem
import Logging

/// Whether anyone can see the card on the framebuffer (`FrameAudience`, `Sink.demand =
/// auto`): while its console is in front (`ConsoleHandover`). A framebuffer is shared by
/// every VT, so while another is in front nothing may be written to it at all: the device
/// is let go (the console's mode set back) before the kernel switches, and taken again,
/// with the whole card drawn, after the switch back. Whether the screen is blanked cannot
/// be read (the fbdev `blank` attribute is write-only), so it is not counted.
extension FramebufferSink {
    package var audience: FrameAudience { .display(unseenBecause: console.unseenBecause) }

    package func consoleSwitched() {
        console.signalled("framebuffer \(devicePath)", now: clock(), log: log, giveUp: { say, untold in
            guard let d = device else { return }
            restoreConsole(d)
            device = nil
            if say {
                log.notice("framebuffer \(devicePath): the console is switching to another VT; the device is let go"
                           + ConsoleHandover.untoldSuffix(untold))
            }
        }, takeBack: { say in
            quietAttach = !say
            retry.restart()
            maintain()
        })
    }
}
