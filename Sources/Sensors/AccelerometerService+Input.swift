import Logging
import Motion

/// An input device's own cases: its events dropped by the kernel and read again, its node
/// gone, its poller's interval, its read pace.
extension AccelerometerService {
    /// The kernel dropped events (SYN_DROPPED) and libevdev read the device's state again:
    /// one line, and the motion stage is told that the gyroscope's stream broke, so the
    /// fusion starts again from the readings that follow (the state now) rather than
    /// carrying the turns it never saw until the accelerometer's slow correction undoes them.
    func resynchronised(_ why: String, device: AccelerometerDescription, now: Double, into events: inout [SensorEvent]) {
        let (allowed, suppressed) = limiter.allow("\(device.id)|resynchronised", now: now)
        if allowed {
            log.warning("\(device.displayName): \(why); the tilt goes on from the state now"
                + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""), ["sensor.device": device.id])
        }
        events.append(.motion(.gyroscopeGone(at: now)))
    }

    /// A read of the event node failed: the device is gone (ENODEV once unplugged) or
    /// cannot be read. One line; released, and looked for again as on a udev `remove`.
    func inputNodeFailed(_ p: ReadProblem, device: AccelerometerDescription, now: Double, into events: inout [SensorEvent]) {
        let reason = "\(p.attribute): \(p.reason)"
        detach(deviceGone: true)
        nextAttachAttempt = now + 1
        log.warning("accelerometer \(device.displayName) vanished (\(reason)); released it, waiting for it to come back",
            ["sensor.device": device.id])
        events.append(.detached(device.displayName, reason: reason))
    }

    /// An input poller's interval set for `Sensor.rate`, or why not; what to put back.
    func setPollInterval(_ d: AccelerometerDescription, driver: any AccelerometerDriver, shared: Bool) -> String {
        guard let p = d.input?.poller, let dir = d.input?.inputSyspath else {
            return "no poll interval (the device reports on its own)"
        }
        let (text, restore) = InputPollInterval.set(p, rateHz: settings.rateHz, syspath: dir, shared: shared,
                                                    write: driver.writeAttribute)
        restoreFrequency = restore
        return text
    }

    /// Seconds between an input device's reads at full rate: one per frame (`Sink.fps`),
    /// else `Sensor.rate`; they drain what has come since, so the device's own rate costs
    /// no wakeups.
    var inputReadPeriod: Double { 1 / max(settings.framesPerSecond ?? settings.rateHz, 0.1) }

    /// The period to read at while the device lies still: `requested`, but never longer
    /// than the attached input device's kernel buffer lasts (half of it), so that a
    /// device picked up again loses nothing before the next read.
    func idleReadPeriod(_ requested: Double?) -> Double? {
        guard let requested, let longest = driver?.longestReadInterval else { return requested }
        return max(schedule.fullRatePeriod, min(requested, longest))
    }
}
