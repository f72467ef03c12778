/// One outcome of a driver read.
package enum DriverEvent: Sendable {
    case reading(AccelerometerReading)
    case problem(ReadProblem)
    /// The gyroscope's part of a reading could not be read (the reading itself is fine).
    case gyroProblem(ReadProblem)
    /// An informational note (e.g. a buffer reopened).
    case note(String)
    /// Readings were lost and the device's state was read again (an input device's
    /// `SYN_DROPPED`): why. The readings that follow start from that state.
    case resynchronised(String)
    /// A condition of the device that lasts or comes back (a flood of events, a clock
    /// that cannot be trusted): said at most once a minute per `cause`, with how often it
    /// was held back. The readings go on.
    case limited(cause: String, String)
}

extension Result<AccelerometerReading, ReadProblem> {
    /// The reading, or the problem, as a driver reports it.
    var driverEvent: DriverEvent {
        switch self {
        case .success(let r): .reading(r)
        case .failure(let p): .problem(p)
        }
    }
}
