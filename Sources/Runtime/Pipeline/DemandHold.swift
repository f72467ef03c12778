/// `Demand` with hysteresis: someone looking resumes at once, nobody looking idles only
/// once nobody has looked for `idleAfter` seconds. A claim taken and given back over and
/// over (a client's bug, or a neighbour's storm of `Claim()`/`Release()`), a display
/// toggled on and off, a console switched away and back, thus change nothing while they
/// flap faster than that: the sensor is not released and attached again, its sysfs
/// attributes (`buffer/enable`, `sampling_frequency`) are not written, and no line is said.
/// The state changes at most twice per `idleAfter`, and each change is one line.
///
/// Pure: the loop passes in the demand of each wakeup and its time.
package struct DemandHold: Equatable, Sendable {
    /// Seconds nobody must look before the daemon idles: longer than a client's
    /// Release() then Claim() takes, short enough that a closed viewer costs little.
    package static let idleAfter = 1.0

    /// What `update` says to do.
    package enum Change: Equatable, Sendable {
        /// Nobody has looked for `idleAfter` seconds (or ever, since the start): idle, because of the reason.
        case idle(String)
        /// Someone looks again: resume, because of the reason.
        case resumed(String)
    }

    package let idleAfter: Double
    /// Whether the daemon idles now.
    package private(set) var isIdle = false
    /// When someone was last seen looking; nil before anyone was.
    private var lookedAt: Double?

    package init(idleAfter: Double = DemandHold.idleAfter) {
        self.idleAfter = idleAfter
    }

    /// Weighs the demand of the wakeup at `now` (seconds, any origin, the same in every
    /// call). Nobody looking before anyone ever did idles at once (the start of a daemon
    /// nobody has claimed yet).
    package mutating func update(_ demand: Demand, at now: Double) -> Change? {
        if demand.looking {
            lookedAt = now
            guard isIdle else { return nil }
            isIdle = false
            return .resumed(demand.reason)
        }
        guard !isIdle else { return nil }
        if let lookedAt, now - lookedAt < idleAfter { return nil }
        isIdle = true
        return .idle(demand.reason)
    }

    /// Seconds from `now` until `update` would idle with nobody looking meanwhile; nil when
    /// there is nothing to wait for (idle already, or nobody seen looking).
    package func idleDue(now: Double) -> Double? {
        guard !isIdle, let lookedAt else { return nil }
        return max(0, lookedAt + idleAfter - now)
    }
}
