import Output

/// Whether anyone looks at the card, and why (`Sink.demand`): the daemon reads the sensor
/// and paints only while someone does. Pure: the loop passes in what the sink says of its
/// audience and how many claims the bus holds.
///
/// - `always`: every sink is painted whenever the device moves (the behaviour before
///   claims existed, for a reader that cannot reach the system bus).
/// - `auto`:
///   - raw, png, null: their output is its own consumer (a raw reader reads what it
///     asked for; null is for tests and benchmarks): always painted;
///   - shm: while at least one connection holds a claim (`Claim()` on
///     org.shimmerd.Shimmerd1). With no system bus at start nobody can claim, so the frames
///     are painted, as with `always`: a daemon in a container keeps working. A bus lost
///     later ends every claim with the connections that held them: idle until a reader
///     claims again on the bus that comes back;
///   - drm and framebuffer: while the display is on and its console is in front.
package struct Demand: Equatable, Sendable {
    package var looking: Bool
    package var reason: String

    /// - Parameter claims: connections holding a claim; nil when the daemon found no system
    ///   bus at start (a bus that went away later holds none: 0).
    package static func of(_ setting: SinkDemand, audience: FrameAudience, claims: Int?) -> Demand {
        if setting == .always { return Demand(looking: true, reason: "Sink.demand = always") }
        switch audience {
        case .own:
            return Demand(looking: true, reason: "the sink's output is its own reader")
        case .claimants:
            guard let claims else {
                return Demand(
                    looking: true, reason: "no system bus: nobody could claim the frames, so they are painted")
            }
            return claims == 0
                ? Demand(looking: false, reason: "nobody has claimed the frames")
                : Demand(
                    looking: true,
                    reason: claims == 1 ? "1 claim on the system bus" : "\(claims) claims on the system bus")
        case .display(let unseen):
            guard let unseen else { return Demand(looking: true, reason: "the display is on and its console in front") }
            return Demand(looking: false, reason: unseen)
        }
    }
}
