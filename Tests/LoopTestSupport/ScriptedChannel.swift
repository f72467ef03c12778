import Runtime

/// The daemon's bus as a test scripts it: claims made and ended and `Recalibrate()` calls
/// at set times (each wakes the loop then), and every status the loop published.
package final class ScriptedChannel: StatusChannel {
    private let clock: ManualClock
    private var script: [(t: Double, change: Change)] = []
    private var held = 0
    package private(set) var claimedSinceProcess = false
    /// The statuses the loop gave, with the clock's time.
    package private(set) var published: [(status: StatusBus.Status, at: Double)] = []
    /// Seconds between two publications, as `StatusBus.minimumInterval`.
    package var minimumInterval = 0.1
    private var lastPublished = -Double.infinity

    private enum Change {
        case claim, release, claimAndRelease, recalibrate(String)
    }

    package init(clock: ManualClock) { self.clock = clock }

    private func schedule(_ change: Change, at t: Double) {
        script.append((t, change))
        script.sort { $0.t < $1.t }
        clock.alarm(at: t)
    }

    /// A connection claims at `t`.
    package func claim(at t: Double) { schedule(.claim, at: t) }
    /// A connection releases its claim at `t`.
    package func release(at t: Double) { schedule(.release, at: t) }
    /// A connection claims and releases within the same wakeup at `t`.
    package func claimAndRelease(at t: Double) { schedule(.claimAndRelease, at: t) }
    /// `caller` calls Recalibrate() at `t`.
    package func recalibrate(by caller: String, at t: Double) { schedule(.recalibrate(caller), at: t) }

    package var claims: Int { held }

    package func pollRequest() -> (fd: Int32, events: Int16, timeoutSeconds: Double?) { (-1, 0, nil) }

    package func process(readable: [Int32]) -> StatusBus.BusRequests {
        var requests = StatusBus.BusRequests()
        claimedSinceProcess = false
        let before = held
        while let first = script.first, first.t <= clock.now {
            script.removeFirst()
            switch first.change {
            case .claim:
                held += 1
                claimedSinceProcess = true
            case .release:
                held = max(0, held - 1)
            case .claimAndRelease:
                claimedSinceProcess = true
            case .recalibrate(let caller):
                if !requests.recalibrate { requests.recalibrateCaller = caller }
                requests.recalibrate = true
                requests.recalibrateCalls += 1
            }
        }
        requests.claimsChanged = held != before
        return requests
    }

    package func isDue(now: Double) -> Bool { now - lastPublished >= minimumInterval }

    package func publish(_ status: StatusBus.Status, now: Double) {
        published.append((status, now))
        lastPublished = now
    }

    /// The states published, each once where it repeats.
    package var states: [String] {
        published.map(\.status.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
    }
}
