// Runtime: the daemon: configuration, the pipeline, signals and systemd: the one place
// where its things are constructed and joined. The other subcommands' bodies are in
// Commands.
//
// Purpose: turn configuration into the objects of the lower layers, run them, and map
// every failure either to one log line and recovery (at runtime) or to a sysexits code
// (at startup, `ExitStatus`).
// Must not import: Commands (the layer above).
// Folders: Configuration, SampleSources, Pipeline, Daemon, Construction
// (docs/ARCHITECTURE.md, section 3).

/// Exit codes (sysexits.h), README.md, "Running".
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
    case configuration = 78

    /// What the code means, for `--help` and shimmerd(8) "EXIT STATUS".
    package var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage error: an unknown command or option, a missing or malformed argument"
        case .dataError: "bad input data, such as a malformed trace"
        case .noInput: "an input file (configuration, trace) does not exist"
        case .unavailable:
            "a required device or program is unavailable: sensors finds no usable accelerometer, check-config "
                + "no card, display or device for Sink.type = drm or framebuffer, view no display or no viewer"
        case .cannotCreate: "an output file cannot be created"
        case .ioError: "an I/O error"
        case .configuration:
            "configuration error: an unknown section or key, a value of the wrong type or range (named with file:line)"
        }
    }

    /// The sysexits.h name ("EX_USAGE").
    package var sysexitsName: String {
        switch self {
        case .success: "EX_OK"
        case .usage: "EX_USAGE"
        case .dataError: "EX_DATAERR"
        case .noInput: "EX_NOINPUT"
        case .unavailable: "EX_UNAVAILABLE"
        case .cannotCreate: "EX_CANTCREAT"
        case .ioError: "EX_IOERR"
        case .configuration: "EX_CONFIG"
        }
    }
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
