/// What the motion stage is told: the sensors' readings, in the device frame, and the few
/// events that change how they are read. Every source speaks it: the accelerometer
/// service, a trace played as the sensor, the embedded simulated sensor, and a trace
/// replayed to frames (`MotionInterpreter` is the one reader of it).
///
/// Times are seconds on the caller's clock; readings come in time order.
package enum MotionInput: Sendable, Equatable {
    /// An accelerometer reading, m/s^2, after scale, offset and mount matrix.
    /// `scanTimestampNs`: the kernel's timestamp of the scan it came in, when it came from
    /// a buffer (shown by `monitor`; the attitude uses `at`).
    case acceleration(metersPerSecondSquared: Vector3, at: Double, scanTimestampNs: Int64? = nil)
    /// A gyroscope reading, rad/s, after scale, offset and the gyroscope's mount matrix.
    /// One read with an acceleration (the same scan, or polled with it) comes just
    /// before it, at its time.
    case angularVelocity(radiansPerSecond: Vector3, at: Double)
    /// A sensor is attached (the first, or one back after `detached`): a sensor back
    /// captures a new baseline; the gyroscope self-check starts over.
    case attached(at: Double)
    /// The sensor went away: the card eases back to its origin.
    case detached(at: Double)
    /// The gyroscope went away; the accelerometer goes on alone.
    case gyroscopeGone(at: Double)
    /// Capture the baseline again from the next readings: why (SIGUSR1, Recalibrate()).
    case recapture(String, at: Double)
    /// A big move is under way (the tablet-mode switch fires while the lid still moves):
    /// capture the baseline again once the device rests; why.
    case recaptureAtRest(String, at: Double)

    /// Seconds: when it happened.
    package var t: Double {
        switch self {
        case .acceleration(_, let t, _), .angularVelocity(_, let t), .attached(let t), .detached(let t),
            .gyroscopeGone(let t), .recapture(_, let t), .recaptureAtRest(_, let t):
            t
        }
    }
}
