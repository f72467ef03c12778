import Motion
import Runtime
import Sensors

/// A sensor on a scripted path (a `TiltPath`, or any acceleration over time): a reading every `1 / rate` seconds (at k / rate
/// exactly), due when the loop wakes for it, and other events (attach, detach, a
/// recapture) at set times. It records what the loop asked of it: slower reads while the
/// device is still, suspension while nobody looks, resumption, release.
package final class ScriptedSource: SampleSource {
    private let clock: ManualClock
    /// m/s^2, device frame, at a time.
    private let acceleration: (Double) -> Vector3
    private let rate: Double
    /// The next reading's index (its time is `next / rate`).
    private var next = 0
    private var events: [(t: Double, event: SensorEvent)] = []
    /// Readings stop after this time (a sensor that goes silent); nil: never.
    package var silentAfter: Double?
    package var summary = "scripted accelerometer"
    package var isExhausted = false
    package private(set) var isSuspended = false
    /// The periods `setIdle` was given, in order (nil: full rate).
    package private(set) var idlePeriods: [Double?] = []
    /// Each suspension: why, and the clock's time.
    package private(set) var suspensions: [(why: String, at: Double)] = []
    /// When each resumption was asked for.
    package private(set) var resumptions: [Double] = []
    package private(set) var releases = 0
    /// Readings handed to the loop.
    package private(set) var readingsDelivered = 0

    /// - Parameter rate: readings a second.
    package convenience init(path: TiltPath, rate: Double = 100, clock: ManualClock) {
        self.init(acceleration: path.acceleration(at:), rate: rate, clock: clock)
    }

    /// - Parameter acceleration: m/s^2, device frame, at a time.
    package init(acceleration: @escaping (Double) -> Vector3, rate: Double = 100, clock: ManualClock) {
        self.acceleration = acceleration
        self.rate = rate
        self.clock = clock
    }

    /// `event` is handed to the loop at its first wakeup at or after `t`.
    package func add(_ event: SensorEvent, at t: Double) {
        events.append((t, event))
        events.sort { $0.t < $1.t }
        clock.alarm(at: t)
    }

    private var nextReadingAt: Double? {
        let t = Double(next) / rate
        if let silentAfter, t > silentAfter { return nil }
        return t
    }

    package func appendFileDescriptors(to fds: inout [Int32]) {}

    package func nextTimeout(now: Double) -> Double {
        guard !isSuspended, let t = nextReadingAt else { return .infinity }
        return max(0, t - now)
    }

    package func handle(now: Double, readable: [Int32], into out: inout [SensorEvent]) {
        while let first = events.first, first.t <= now {
            out.append(first.event)
            events.removeFirst()
        }
        while let t = nextReadingAt, t <= now {
            next += 1
            // A suspended device is not read: what it did meanwhile is lost, as on a real one.
            guard !isSuspended else { continue }
            out.append(.motion(.acceleration(metersPerSecondSquared: acceleration(t), at: t)))
            readingsDelivered += 1
        }
    }

    package func release() { releases += 1 }
    package func setIdle(period: Double?) { idlePeriods.append(period) }

    package func suspend(why: String) -> SensorEvent? {
        isSuspended = true
        suspensions.append((why, clock.now))
        return nil
    }

    package func resume(now: Double) {
        isSuspended = false
        resumptions.append(now)
    }
}

extension TiltPath {
    /// A device that lies still in the base pose (a laptop's screen leaned back 15 degrees).
    package static let still = TiltPath(
        basePitchRadians: 15 * Double.pi / 180,
        keyframes: [Keyframe(t: 0, rollRadians: 0, pitchRadians: 0)])

    /// Still until `start`, then rolled by `roll` radians over `seconds`, then held there.
    package static func roll(_ roll: Double, from start: Double, over seconds: Double) -> TiltPath {
        TiltPath(
            basePitchRadians: 15 * Double.pi / 180,
            keyframes: [
                Keyframe(t: 0, rollRadians: 0, pitchRadians: 0),
                Keyframe(t: start, rollRadians: 0, pitchRadians: 0),
                Keyframe(t: start + seconds, rollRadians: roll, pitchRadians: 0),
                Keyframe(t: 1e6, rollRadians: roll, pitchRadians: 0),
            ])
    }
}
