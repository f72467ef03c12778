import Logging

/// The lines of bad readings: one line naming the attribute and the value, at most one a
/// second per cause, with how many were held back since (a sensor that goes bad must not
/// flood the journal). Shared by the attached accelerometer and its gyroscope, so that a
/// cause is limited once whichever part meets it.
final class ReadProblemLog {
    private let logger: Logger
    private var limiter = RateLimiter(interval: 1.0)
    /// Conditions of a device that last or come back (`DriverEvent.limited`).
    private var conditions = RateLimiter(interval: 60.0)

    init(log: Logger) { logger = log }

    /// The logger the lines go to.
    var log: Logger { logger }

    /// `what` (a sample, a gyroscope reading) skipped because of `p`.
    func report(_ p: ReadProblem, device: AccelerometerDescription, now: Double, what: String = "sample") {
        let (allowed, suppressed) = limiter.allow("\(device.id)|\(p.cause)", now: now)
        guard allowed else { return }
        logger.warning(
            "\(device.displayName): \(what) skipped: \(p.attribute) = \"\(p.value)\": \(p.reason)"
                + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""),
            ["sensor.device": device.id, "sensor.attribute": p.attribute, "sensor.value": p.value])
    }

    /// The kernel dropped an input device's events (SYN_DROPPED) and libevdev read its
    /// state again: one line a second at most.
    func resynchronised(_ why: String, device: AccelerometerDescription, now: Double) {
        let (allowed, suppressed) = limiter.allow("\(device.id)|resynchronised", now: now)
        guard allowed else { return }
        logger.warning(
            "\(device.displayName): \(why); the tilt goes on from the state now"
                + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""), ["sensor.device": device.id])
    }

    /// A condition of the device (a flood of events, a clock that cannot be trusted): one
    /// line a minute at most per cause.
    func condition(_ text: String, cause: String, device: AccelerometerDescription, now: Double) {
        let (allowed, suppressed) = conditions.allow("\(device.id)|\(cause)", now: now)
        guard allowed else { return }
        logger.warning(
            "\(device.displayName): \(text)" + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""),
            ["sensor.device": device.id])
    }
}
