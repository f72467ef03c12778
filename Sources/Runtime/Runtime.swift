// Runtime: configuration, the pipeline, signals and systemd: the one place where
// things are constructed and joined.
//
// Purpose: turn configuration into the objects of the lower layers, run them, and map
// every failure either to one log line and recovery (at runtime) or to a sysexits code
// (at startup, `ExitStatus`).
// Must not import: Commands (the layer above).

/// Exit codes (sysexits.h), spec/interfaces.md "Command line".
package enum ExitStatus: Int32, Sendable {
    case success = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
    case configuration = 78
}

/// A failure that ends a command: one line for stderr and the exit code.
package struct Failure: Error, CustomStringConvertible, Equatable {
    package var status: ExitStatus
    package var message: String

    package init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { message }
}
