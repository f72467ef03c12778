import Motion
import Sensors

/// Where samples come from: the real accelerometer service, or the simulated one of
/// `shimmerd demo`. Single-threaded: the loop polls the descriptors `appendFileDescriptors`
/// gives for at most `nextTimeout(now:)` seconds, then calls `handle`. Both append to
/// arrays the loop keeps, so a wakeup allocates nothing.
package protocol SampleSource: AnyObject {
    var summary: String { get }
    func appendFileDescriptors(to fds: inout [Int32])
    func nextTimeout(now: Double) -> Double
    /// When the next sample should arrive, for lining a frame up with it; sooner than
    /// `nextTimeout` when a descriptor delivers samples and the timeout is a fallback.
    func nextSampleExpected(now: Double) -> Double
    /// Appends what happened since the last call (samples, attach and detach) to `events`.
    func handle(now: Double, readable: [Int32], into events: inout [SensorEvent])
    /// Releases the device (restores what was changed on it).
    func release()
    /// Slows reading down to `period` seconds while the device lies still; nil: full rate.
    func setIdle(period: Double?)
    /// At rest, the last reading lay near the edge of the rest band: a device read seldom
    /// at rest (a backstop read besides its own motion events) is read at full rate for a
    /// moment, so that a slow creep is drawn without waiting for the next backstop read.
    func lookCloser(now: Double)
    /// No sample will ever come again (a trace played to its end): the loop finishes
    /// once the last frame has settled.
    var isExhausted: Bool { get }
    /// The most events one `handle` appends, so the loop keeps room for them and a
    /// wakeup that catches up on a late batch allocates nothing either.
    var maximumEventsPerWakeup: Int { get }
    /// Nobody looks (`Sink.demand`): stop reading and release what reading holds, until
    /// `resume`; returns what the motion stage must be told (the sensor detached), if anything.
    func suspend(why: String) -> SensorEvent?
    /// Someone looks again: read again from the next `handle` on.
    func resume(now: Double)
    /// The device read now, its mode and why, and its gyroscope, as the bus shows them
    /// (the properties `Sensor`, `SensorMode`, `SensorModeReason`, `Gyroscope`); nil while no
    /// device is attached, and always for a source without one (a trace, the simulation).
    var attachment: AccelerometerService.Attachment? { get }
}

extension SampleSource {
    package var isExhausted: Bool { false }
    package var maximumEventsPerWakeup: Int { 64 }
    package func nextSampleExpected(now: Double) -> Double { nextTimeout(now: now) }
    /// A simulated or recorded sensor costs nothing to keep reading: it never suspends.
    package func suspend(why: String) -> SensorEvent? { nil }
    package func resume(now: Double) {}
    package func lookCloser(now: Double) {}
    package var attachment: AccelerometerService.Attachment? { nil }

    /// `handle(now:readable:into:)` into a new array.
    package func handle(now: Double, readable: [Int32]) -> [SensorEvent] {
        var events: [SensorEvent] = []
        handle(now: now, readable: readable, into: &events)
        return events
    }
}

extension AccelerometerService: SampleSource {
    package var summary: String {
        attachment.map { "\($0.device.displayName) (\($0.mode))" }
            ?? "waiting for an accelerometer (\(settings.device))"
    }

    package func release() { detach() }

    package func setIdle(period: Double?) { idlePeriod = period }
}

/// The embedded simulated accelerometer: a scripted tilt path sampled at `rate` Hz.
package final class SimulatedSource: SampleSource {
    private let path: TiltPath
    private let period: Double
    private var next = 0.0

    package init(path: TiltPath = .demo, rate: Double) {
        self.path = path
        period = 1 / max(rate, 1)
    }

    package var summary: String { "simulated accelerometer (scripted tilt path)" }
    package func appendFileDescriptors(to fds: inout [Int32]) {}  // timed: nothing to poll
    package func nextTimeout(now: Double) -> Double { max(0, next - now) }

    package func handle(now: Double, readable: [Int32], into events: inout [SensorEvent]) {
        guard now >= next else { return }
        next = max(next + period, now - period)
        let a = path.acceleration(at: now)
        events.append(.motion(.acceleration(metersPerSecondSquared: a, at: now)))
    }

    package func release() {}

    /// The scripted path never lies still long; the demo keeps its rate.
    package func setIdle(period: Double?) {}

    /// Seconds the scripted path takes.
    package var duration: Double { path.keyframes.last?.t ?? 0 }
}
