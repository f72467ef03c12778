import LinuxSystem

/// The daemon's clock while a trace stands in for the sensor (`Sensor.device =
/// trace:FILE`): trace time, not wall time.
///
/// Time advances only through `wait`, by exactly the timeout the loop asked for, and the
/// loop never asks to sleep past the next reading, so every reading is processed at its
/// recorded `t`, whatever the machine's load: the same trace gives the same samples and
/// frames bit for bit, filter on or off, at any speed. `speed` only paces the real
/// sleeping (1: real time; nil: no sleeping at all, as fast as possible).
package final class TraceClock {
    /// Seconds of trace time since the daemon started.
    package private(set) var now = 0.0
    /// Trace seconds per real second; nil: as fast as possible.
    package let speed: Double?
    /// Absolute time of the next reading (`expect(nextEvent:)`, from `TraceSource`). A wait
    /// that ends within rounding error of it ends exactly at it: `now + (e - now)` need not
    /// be `e` in floating point, and the reading's `t` must be.
    package private(set) var nextEvent: Double?
    private let realStart: Double
    private let realClock: () -> Double

    package init(speed: Double?, realClock: @escaping () -> Double = MonotonicClock.seconds) {
        self.speed = speed
        self.realClock = realClock
        realStart = realClock()
    }

    /// The next reading is due at `t` (trace time); nil: none is.
    package func expect(nextEvent t: Double?) { nextEvent = t }

    /// The pipeline's wait: sleeps (if paced) until the real time that corresponds to
    /// `now + timeoutSeconds`, then moves `now` there. A trace source has no descriptors;
    /// any given (the signals') are polled while sleeping, or without waiting when there
    /// is no time to sleep, but time still moves by the whole timeout. `ready` gets the
    /// readable ones, as `ReadinessPoll.waitReadable(_:timeoutSeconds:into:)` gives them.
    package func wait(_ fds: [Int32], timeoutSeconds: Double, into ready: inout [Int32]) {
        var target = now + max(0, timeoutSeconds)
        if let e = nextEvent, e >= now, abs(target - e) <= 1e-9 * max(1, abs(e)) { target = e }
        // Unpaced, or already late: the descriptors are still looked at (a zero-timeout
        // poll), so a signal reaches the pipeline as it does a live run.
        let remaining = speed.map { realStart + target / $0 - realClock() } ?? 0
        if fds.isEmpty {
            ready.removeAll(keepingCapacity: true)
        } else {
            ReadinessPoll.waitReadable(fds, timeoutSeconds: max(0, remaining), into: &ready)
        }
        now = target
    }

    /// The same, returning the readable descriptors as a new array.
    package func wait(_ fds: [Int32], timeoutSeconds: Double) -> [Int32] {
        var ready: [Int32] = []
        wait(fds, timeoutSeconds: timeoutSeconds, into: &ready)
        return ready
    }
}
