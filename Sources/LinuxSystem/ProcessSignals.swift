import Glibc

/// A signal number (signal(7)), typed so that a signal is never mistaken for another
/// integer. Its text is the number, as the daemon's log lines print it
/// ("signal 15: stopping").
package struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let hangup = Signal(rawValue: SIGHUP)
    package static let interrupt = Signal(rawValue: SIGINT)
    package static let quit = Signal(rawValue: SIGQUIT)
    package static let terminate = Signal(rawValue: SIGTERM)
    package static let user1 = Signal(rawValue: SIGUSR1)
    package static let user2 = Signal(rawValue: SIGUSR2)
    package static let brokenPipe = Signal(rawValue: SIGPIPE)
    package static let fileSizeLimit = Signal(rawValue: SIGXFSZ)

    package var description: String { String(rawValue) }
}

/// The one place a process sets up its signals. A command either takes a signal
/// (`take`: blocked, and read from its own loop through `PendingSignals`' signalfd, so no
/// handler runs on a signal stack) or ignores it (`ignore`: where the default action
/// would kill the process and an error return is wanted instead: EPIPE for SIGPIPE,
/// EFBIG for SIGXFSZ). Which signals each command takes is its own table: the daemon's
/// is `DaemonSignals`, `monitor`'s and `monitor --dbus`'s are in their files. The crash
/// handlers of `CrashFlush` (fatal signals: write the trace out, then die of it) are
/// the one exception, as is the viewer's window, whose SIGINT and SIGTERM SDL turns into
/// its quit event.
package enum ProcessSignals {
    /// Blocks `signals` for the calling thread (and the threads it starts later) and
    /// opens the signalfd that collects them.
    package static func take(_ signals: [Signal]) -> PendingSignals {
        PendingSignals(taking: signals)
    }

    /// `signal(sig, SIG_IGN)` for each of `signals`.
    package static func ignore(_ signals: [Signal]) {
        for s in signals { _ = Glibc.signal(s.rawValue, SIG_IGN) }
    }
}
