import Systemd

/// The service manager as a test sees it: every notification the daemon sent (READY=1,
/// STATUS=, WATCHDOG=1, RELOADING=1, STOPPING=1), with the clock's time.
package final class RecordingNotifier: ServiceNotifying {
    private let clock: ManualClock
    package let watchdogMicroseconds: UInt64?
    package private(set) var sent: [(state: String, at: Double)] = []

    /// - Parameter watchdogSeconds: `WatchdogSec=`; nil: no watchdog.
    package init(clock: ManualClock, watchdogSeconds: Double? = nil) {
        self.clock = clock
        watchdogMicroseconds = watchdogSeconds.map { UInt64(($0 * 1e6).rounded()) }
    }

    @discardableResult
    package func notify(_ state: String) -> Bool {
        sent.append((state, clock.now))
        return true
    }

    /// When each WATCHDOG=1 was sent.
    package var watchdogTimes: [Double] { sent.filter { $0.state == "WATCHDOG=1" }.map(\.at) }
    /// The notifications other than WATCHDOG=1, in order.
    package var states: [String] { sent.map(\.state).filter { $0 != "WATCHDOG=1" } }
}
