import CSystemd
import Glibc

/// A connection to the system bus that outlives the bus: when dbus-daemon goes away (a
/// restart, an upgrade), a new connection is tried every `retryDelay` seconds until one is
/// made, so the name is back within that of the bus's return (an attempt while the bus is
/// gone is a connect(2) to a socket that is not there: nothing to save by waiting longer).
/// Each new connection is set up as the
/// first was (`setUp(with:)`: its objects, matches and name requests). Without a bus at start
/// there is nothing to come back to: `init` throws.
///
/// It also keeps the connection's share of the caller's loop bounded: `process` handles
/// at most `messagesPerWakeup` messages; when that many were waiting, the connection
/// rests as long as they took (it asks for no events until then), so a flood of calls
/// gets at most half of the loop's time and the loop sleeps in between, which also keeps
/// it a task the scheduler wakes promptly; after a wakeup that dispatched a message it
/// rests `minimumGap` (a caller that waits for each answer costs the loop one wakeup per
/// call otherwise; a message still being read, such as one of megabytes, is not held
/// back); and while more than `maximumQueuedWrites`
/// messages wait to be written (the bus does not take them as fast as callers ask) it
/// stops reading new calls and polls for POLLOUT only, so what a caller asks for without
/// reading the answers cannot pile up in the daemon.
///
/// Time is a parameter (monotonic seconds, any origin, the same in every call).
package final class ReconnectingBus {
    /// Seconds between two attempts to connect while the bus is gone.
    package static let retryDelay = 1.0
    /// sd_bus_process() steps per wakeup: a flood of calls waits in the socket, and the
    /// loop's other work (frames, the watchdog) goes on between.
    package static let messagesPerWakeup = 32
    /// More messages than this waiting to be written: no new call is read.
    package static let maximumQueuedWrites: UInt64 = 64
    /// Seconds between two wakeups that dispatch messages: a caller that waits for each answer
    /// before its next call (a storm of Claim() and Release()) is answered at most 500
    /// times a second, each wakeup's cost to the loop paid once for all that came meanwhile.
    package static let minimumGap = 0.002

    /// The connection; nil while the bus is gone.
    package private(set) var bus: SystemBus?
    private var setUp: (SystemBus) throws(SystemBusError) -> Void = { _ in }
    private var retryAt = Double.infinity
    /// After a full batch: no processing before this.
    private var restUntil = -Double.infinity

    /// What `process` found.
    package enum Change: Equatable {
        /// The connection was lost; the next attempt is in `retryIn` seconds.
        case lost(retryIn: Double)
        /// A new connection is up and set up.
        case reconnected
        /// An attempt failed (why); the next is in `retryIn` seconds.
        case stillGone(String, retryIn: Double)
    }

    /// Connects (`sd_bus_open_system`).
    /// - Throws: when there is no bus.
    package init() throws(SystemBusError) {
        bus = try SystemBus()
    }

    /// Sets the connection up with `setUp` (its objects, matches, names), and every new
    /// connection after a loss.
    package func setUp(with setUp: @escaping (SystemBus) throws(SystemBusError) -> Void) throws(SystemBusError) {
        self.setUp = setUp
        if let bus { try setUp(bus) }
    }

    /// What to wait for: the descriptor and the poll(2) events sd-bus asks for (POLLOUT
    /// only while the writes are backed up; nil while disconnected), and the seconds from
    /// `now` after which `process` is due anyway (sd-bus's timeout, the next attempt).
    package func pollRequest(now: Double) -> (fd: Int32?, events: Int16, timeoutSeconds: Double?) {
        guard let bus else { return (nil, 0, max(0, retryAt - now)) }
        if now < restUntil { return (bus.fileDescriptor, 0, restUntil - now) }
        let events = bus.queuedWrites > Self.maximumQueuedWrites ? Int16(POLLOUT) : bus.events
        return (bus.fileDescriptor, events, bus.timeoutSeconds)
    }

    /// Processes what the connection has (at most `messagesPerWakeup` messages, one step
    /// while the writes are backed up), or tries to connect again when that is due.
    package func process(now: Double) -> Change? {
        guard let b = bus else { return now >= retryAt ? reconnect(now: now) : nil }
        guard now >= restUntil else { return nil }
        let limit = b.queuedWrites > Self.maximumQueuedWrites ? 1 : Self.messagesPerWakeup
        let started = Self.monotonicSeconds(), dispatched = b.messagesDispatched
        let progress = b.process(atMost: limit)
        if progress == .more {
            restUntil = now + (Self.monotonicSeconds() - started)
        } else if b.messagesDispatched != dispatched {
            restUntil = now + Self.minimumGap
        }
        guard progress == .lost else { return nil }
        bus = nil
        retryAt = now + Self.retryDelay
        return .lost(retryIn: Self.retryDelay)
    }

    /// CLOCK_MONOTONIC, for the length of a batch only (the caller's `now` may be on another clock).
    private static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func reconnect(now: Double) -> Change {
        do {
            let b = try SystemBus()
            try setUp(b)
            bus = b
            retryAt = .infinity
            return .reconnected
        } catch {
            retryAt = now + Self.retryDelay
            return .stillGone("\(error)", retryIn: Self.retryDelay)
        }
    }
}
