// Systemd: the typed wrapper of libsystemd's sd-daemon API (sd_notify, the watchdog).
//
// Outside systemd (no NOTIFY_SOCKET) every call is a cheap no-op, as sd_notify(3) is.
// Must not import: any other shimmerd module (layer 1a).
import CSystemd

/// What the daemon tells its service manager: `ServiceNotifier` (sd_notify) in the
/// running daemon.
package protocol ServiceNotifying {
    /// Microseconds between WATCHDOG=1 the manager expects, or nil.
    var watchdogMicroseconds: UInt64? { get }
    /// Sends `state` (sd_notify(3)'s "READY=1\nSTATUS=..."); returns whether a manager received it.
    @discardableResult
    func notify(_ state: String) -> Bool
}

extension ServiceNotifying {
    package func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }
    package func status(_ status: String) { notify("STATUS=\(status)") }
    package func watchdog() { notify("WATCHDOG=1") }
    package func stopping() { notify("STOPPING=1") }
    package func reloading() { notify("RELOADING=1") }
}

/// The service manager's notification socket.
package struct ServiceNotifier: ServiceNotifying, Sendable {
    /// Microseconds between WATCHDOG=1 the manager expects (`sd_watchdog_enabled`), or nil.
    package let watchdogMicroseconds: UInt64?

    package init() {
        var usec: UInt64 = 0
        watchdogMicroseconds = sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }

    /// `sd_notify(0, state)`; returns whether a manager received it.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }
}
