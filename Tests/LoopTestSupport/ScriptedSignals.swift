import LinuxSystem

/// Signals sent to the loop at set times on a `ManualClock`: each wakes the loop's wait
/// then, and is drained at that wakeup, as a signalfd's record would be.
package final class ScriptedSignals: SignalSource {
    private let clock: ManualClock
    private var scheduled: [(t: Double, signal: Signal)] = []

    package init(clock: ManualClock) { self.clock = clock }

    /// `signal` arrives at `t` (seconds on the clock).
    package func send(_ signal: Signal, at t: Double) {
        scheduled.append((t, signal))
        scheduled.sort { $0.t < $1.t }
        clock.alarm(at: t)
    }

    /// No descriptor: the loop drains at every wakeup, and the alarms wake it in time.
    package var fileDescriptor: Int32? { nil }
    package func mayBePending(readable: [Int32]) -> Bool { true }

    package func drain() -> [Signal] {
        let due = scheduled.prefix { $0.t <= clock.now }
        scheduled.removeFirst(due.count)
        return due.map(\.signal)
    }
}
