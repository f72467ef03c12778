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
