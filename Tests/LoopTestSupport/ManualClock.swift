// The loop's test kit: the daemon's loop (`Pipeline`, `Daemon`) run on a clock, signals,
// a sensor, a sink, a log, a service manager and a bus that the test holds, with no
// wall-clock time anywhere: a wait moves the manual clock to the next thing due, so a
// run of minutes of daemon time takes milliseconds and gives the same result every time.
// Unlike TestSupport it may import any module of shimmerd.
import Runtime

/// Time that moves only when the loop waits (or the test moves it): the loop's `Wait` sets
/// it to the end of the wait, or to the first alarm before that (a signal sent, a claim
/// made), as a poll(2) woken by a descriptor would end early.
package final class ManualClock {
    /// Nanoseconds since the clock's zero: time is whole nanoseconds, as CLOCK_MONOTONIC's,
    /// so that a daemon's clock read through `nanoseconds` is `now` exactly.
    package private(set) var elapsedNanoseconds: UInt64 = 0
    /// Times at which something scripted happens; each ends the wait that reaches it.
    private var alarms: [Double] = []
    /// The waits of the loop, in order: when each began and how long it was asked to be.
    package private(set) var waits: [(at: Double, timeout: Double)] = []

    package init() {}

    /// Seconds.
    package var now: Double { Double(elapsedNanoseconds) / 1e9 }

    /// CLOCK_MONOTONIC nanoseconds at `now` (zero at the clock's start).
    package var nanoseconds: UInt64 { elapsedNanoseconds }

    /// Moves time on to `t` seconds (never back), to the nanosecond nearest it; a move that
    /// rounds to nothing still moves one nanosecond, as a wait always ends later than it began.
    package func advance(to t: Double) {
        guard t > now else { return }
        elapsedNanoseconds = max(elapsedNanoseconds + 1, UInt64((t * 1e9).rounded()))
    }

    /// A wait that reaches `t` ends there.
    package func alarm(at t: Double) {
        alarms.append(t)
        alarms.sort()
    }

    /// The loop's wait (`Pipeline.Wait`): no descriptor ever becomes readable (the scripted
    /// parts need none); time moves to the end of the wait or to the first alarm before it.
    package func wait(_ fds: [Int32], timeout: Double, into readable: inout [Int32]) {
        readable.removeAll(keepingCapacity: true)
        waits.append((now, timeout))
        var end = now + max(0, timeout)
        if let first = alarms.first { end = min(end, max(first, now)) }
        precondition(end.isFinite, "the loop waits forever at t = \(now): nothing is due and nothing is scheduled")
        advance(to: end)
        alarms.removeAll { $0 <= now }
    }

    /// `wait` as a `Pipeline.Wait`.
    package var pipelineWait: Pipeline.Wait {
        { [unowned self] fds, timeout, readable in wait(fds, timeout: timeout, into: &readable) }
    }

    /// The waits that began within `range`.
    package func waits(in range: ClosedRange<Double>) -> [(at: Double, timeout: Double)] {
        waits.filter { range.contains($0.at) }
    }
}
