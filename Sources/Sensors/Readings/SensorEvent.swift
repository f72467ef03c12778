import Motion

/// What a sample source reports at a wakeup: the readings and recaptures the motion stage
/// takes (`MotionInput`), and the changes of the sensors themselves, which the caller
/// logs, prints or shows in STATUS=.
package enum SensorEvent: Sendable {
    /// Readings (m/s^2, rad/s, device frame, at their times) and recaptures.
    case motion(MotionInput)
    /// No accelerometer yet: why. Emitted once per distinct reason.
    case waiting(String)
    /// (Boxed, as the gyroscope's pairing is: readings, the common case, keep the event small.)
    indirect case attached(AccelerometerService.Attachment)
    /// The device went away: which, why.
    case detached(String, reason: String)
    /// A gyroscope taken up while the accelerometer is attached (it appeared later, or
    /// came back): the pairing, and how it is read (the text of the log line).
    indirect case gyroAttached(GyroPairing, how: String)
    /// The gyroscope in use went away (a udev `remove`, or reads that fail): which, why.
    /// The accelerometer goes on alone.
    case gyroDetached(String, reason: String)

    /// What the motion stage is told of this event, which happened at `now`: nil for
    /// what only the caller needs (why it waits, how a gyroscope is read).
    package func motionInput(at now: Double) -> MotionInput? {
        switch self {
        case .motion(let m): m
        case .attached: .attached(at: now)
        case .detached: .detached(at: now)
        case .gyroDetached: .gyroscopeGone(at: now)
        case .waiting, .gyroAttached: nil
        }
    }
}
