import LinuxSystem

/// A signal `shimmerd run` acts on and what it does: the table behind shimmerd(8)
/// "SIGNALS" (README "Running" says the same in prose; the integration suite sends every
/// signal of this table to a running daemon and checks the effect).
package struct DaemonSignal: Sendable {
    /// "SIGTERM"
    package let name: String
    package let signal: Signal
    package let effect: String
}

package enum DaemonSignals {
    package static let all: [DaemonSignal] = [
        DaemonSignal(
            name: "SIGTERM", signal: .terminate,
            effect:
                "finish the frame, flush the trace, release the sink and the sensor (restoring its sampling frequency) and exit 0, whatever a reader of the output does: no write blocks"
        ),
        DaemonSignal(name: "SIGINT", signal: .interrupt, effect: "the same as SIGTERM"),
        DaemonSignal(name: "SIGQUIT", signal: .quit, effect: "the same as SIGTERM (no core dump: nothing went wrong)"),
        DaemonSignal(
            name: "SIGHUP", signal: .hangup,
            effect:
                "re-read the configuration, build the whole new pipeline beside the running one and swap to it with a new baseline, keeping open the sensor, sink and trace whose settings did not change; if any of it fails (an invalid file, a trace or sink that cannot be opened), one line names the cause with file:line and the running pipeline continues untouched (systemctl reload sends it)"
        ),
        DaemonSignal(name: "SIGUSR1", signal: .user1, effect: "capture the baseline again from the next readings"),
        DaemonSignal(
            name: "SIGUSR2", signal: .user2,
            effect:
                "the kernel's console-switch signal (VT_PROCESS) while the drm sink shows the card: before a switch to another VT the display is given up (the console's picture set back, DRM master dropped) and the daemon idles; after the switch back it takes the display again; sent by hand with no switch pending, it changes nothing"
        ),
    ]

    /// The signals, in the table's order.
    package static var signals: [Signal] { all.map(\.signal) }
}
