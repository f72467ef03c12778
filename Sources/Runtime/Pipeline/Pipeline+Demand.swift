import Logging
import Output
import Sensors
import Systemd
import Tracing

/// Idling while nobody looks (`Demand`, through `DemandHold`: only after nobody has looked
/// for a second): the sensor released as at exit (its buffer disabled, its sampling
/// frequency restored), no reads, no frames, no timers of the loop's own; hotplug,
/// signals, the bus and the tablet-mode switches still wake it. Someone looking again
/// resumes at once: the sensor attaches as at start, with a new baseline, and a frame of
/// the card at rest goes out right away.
extension Pipeline {
    /// Decides, at every wakeup, whether anyone looks; on a change suspends or resumes
    /// the source, says why (log, trace, STATUS=) and owes a frame on resuming.
    func followDemand(_ pacer: inout FramePacer, at now: Double) {
        // No bus at start: nobody can claim, so the frames are painted. A bus that went away
        // holds no claims: the daemon idles until it is back and a reader claims again. A
        // claim taken and released within this wakeup counts as one.
        let claims = bus.map { max($0.claims, $0.claimedSinceProcess ? 1 : 0) }
        let demand = Demand.of(parts.demand, audience: parts.sink.audience, claims: claims)
        guard demandHold.update(demand, at: now) != nil else { return }
        isIdle = demandHold.isIdle
        trace?.append(TraceRecord.Demand(t: now, idle: isIdle, reason: demand.reason))
        busStateChangedAt = now
        if isIdle {
            log.notice("idle: \(demand.reason); the sensor is released and nothing is painted until someone looks")
            if let event = parts.source.suspend(why: "nobody looks: \(demand.reason)") {
                _ = motion.take(event, at: now, trace: trace)
            }
            sourceIdle = false
            notifier.status("idle: \(demand.reason)")
            trace?.flush()
        } else {
            log.notice("resumed: \(demand.reason); reading the sensor again, with a new baseline")
            parts.source.resume(now: now)
            pacer.owesFrame = true
            notifier.status(status)
        }
    }

    /// While the bus still has to say that the state changed (its `PropertiesChanged` is
    /// rate-limited), the loop wakes for it even when idle.
    func busWakeup(now: Double) -> Double? {
        guard bus != nil, let at = busStateChangedAt, now - at < 2 * StatusBus.minimumInterval else { return nil }
        return StatusBus.minimumInterval / 2
    }
}
