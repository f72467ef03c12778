import Glibc

/// A signal `shimmerd run` acts on and what it does: the table behind shimmerd(8)
/// "SIGNALS" (README "Running" says the same in prose; the integration suite sends every
/// signal of this table to a running daemon and checks the effect).
package struct DaemonSignal: Sendable {
    /// "SIGTERM"
    package let name: String
    package let number: Int32
    package let effect: String
}

package enum DaemonSignals {
    package static let all: [DaemonSignal] = [
        DaemonSignal(name: "SIGTERM", number: SIGTERM,
                     effect: "finish the frame, flush the trace, release the sink and the sensor (restoring its sampling frequency) and exit 0"),
        DaemonSignal(name: "SIGINT", number: SIGINT, effect: "the same as SIGTERM"),
        DaemonSignal(name: "SIGHUP", number: SIGHUP,
                     effect: "re-read the configuration and rebuild the pipeline with a new baseline; an invalid file is logged with file:line and the running pipeline continues untouched (systemctl reload sends it)"),
        DaemonSignal(name: "SIGUSR1", number: SIGUSR1, effect: "capture the baseline again from the next readings"),
    ]

    /// The signal numbers, in the table's order.
    package static var numbers: [Int32] { all.map(\.number) }
}
