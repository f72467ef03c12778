// Commands: the command line. One type per subcommand with a name, an abstract and an
// option table; the same table drives parsing and `--help` (swift-argument-parser's
// shape, by hand). Parsing is a pure function of [String]. Every subcommand's body is
// here too (`MonitorSession`, `StatusMonitor`, `SensorReport`, `Benchmark`, `TracePlot`):
// the modules below format nothing for a terminal.
//
// Must not: construct pipelines itself (Runtime does), print from anywhere but
// `CommandContext`, or exit from anywhere but `ShimmerdMain`.
// Folders: the longer subcommands' bodies in Bench, Monitor, Plot and Sensors; man pages
// and completion in Help (docs/ARCHITECTURE.md, section 3).
import Glibc
import LinuxSystem
import Logging
import Runtime
import Tracing

/// The executable's entry point.
public enum ShimmerdMain {
    /// The version, as the daemon writes it into its traces' headers.
    package static let version = Daemon.version

    /// Every subcommand, in the order `--help` lists them. The first is the default.
    package static let commands: [any Subcommand.Type] = [
        RunCommand.self, DemoCommand.self, RenderCommand.self, ReplayCommand.self, PlotCommand.self, BenchCommand.self,
        CheckConfigCommand.self, SensorsCommand.self, MonitorCommand.self, ViewCommand.self, ManCommand.self,
        CompletionCommand.self,
    ]

    public static func main(_ argv: [String]) -> Never {
        // A closed pipe on stdout (`shimmerd ... | head`) must be an EPIPE error, not a kill.
        ProcessSignals.ignore([.brokenPipe])
        let context = CommandContext()
        let status = run(Array(argv.dropFirst()), context)
        exit(status.rawValue)
    }

    /// Parses and runs; prints the one error line. Separate from `main` for tests.
    package static func run(_ args: [String], _ context: CommandContext) -> ExitStatus {
        do {
            switch try dispatch(args) {
            case .help(let text):
                context.out(text)
                return .success
            case .version:
                context.out("shimmerd \(version)\n")
                return .success
            case .command(let command):
                try command.run(context)
                return .success
            }
        } catch {
            let failure = error as? Failure ?? Failure(.ioError, "\(error)")
            // The message may quote a device name, a file name or a value: one line, no
            // escape sequence reaches the terminal.
            context.err("shimmerd: \(failure.message.escapingControlCharacters())\n")
            return failure.status
        }
    }

    package enum Invocation {
        case help(String)
        case version
        case command(any Subcommand)
    }

    /// Which subcommand, with what arguments: a pure function of argv.
    package static func dispatch(_ args: [String]) throws -> Invocation {
        if let first = args.first {
            if first == "--help" || first == "-h" || first == "help" {
                if args.count > 1, let sub = commands.first(where: { $0.name == args[1] }) {
                    return .help(Help.text(for: sub))
                }
                return .help(Help.overview(commands))
            }
            if first == "--version" {
                guard args.count == 1 else { throw Failure(.usage, "--version takes no arguments, got \"\(args[1])\"") }
                return .version
            }
            if let sub = commands.first(where: { $0.name == first }) {
                return try parse(sub, Array(args.dropFirst()))
            }
            if !first.hasPrefix("-") {
                throw Failure(
                    .usage,
                    "unknown command \"\(first)\"; commands: " + commands.map { $0.name }.joined(separator: ", "))
            }
        }
        return try parse(commands[0], args)  // `run` is the default subcommand
    }

    static func parse(_ sub: any Subcommand.Type, _ args: [String]) throws -> Invocation {
        if args.contains("--help") || args.contains("-h") { return .help(Help.text(for: sub)) }
        let parsed = try ArgumentParser.parse(
            args, options: sub.options, positionals: sub.positionals, command: sub.name)
        return .command(try make(sub, parsed))
    }

    /// Opens the existential metatype in a generic context (constructing through
    /// `any Subcommand.Type` directly crashes Swift 6.3's SILGen).
    static func make<C: Subcommand>(_ type: C.Type, _ parsed: ParsedArguments) throws -> any Subcommand {
        try C(parsed)
    }
}

/// Where commands write: stdout for results, stderr for the logger and errors.
package final class CommandContext: Sendable {
    package let log: Logger

    package init(log: Logger? = nil) {
        self.log = log ?? Logger(label: "shimmerd", handler: DescriptorLogHandler())
    }

    /// Writes to stdout; a closed stdout is an I/O error for the caller to see.
    package func out(_ text: String) {
        writeAll(1, text)
    }

    /// Writes one human-readable line to stdout, its control characters escaped
    /// (`escapingControlCharacters`): a device's name or label, a remote `iiod`'s answer or
    /// a bus value can neither split it nor send a terminal an escape sequence.
    package func line(_ text: String) {
        out(text.escapingControlCharacters() + "\n")
    }

    package func err(_ text: String) {
        writeAll(2, text)
    }

    @discardableResult
    package func writeAll(_ fd: Int32, _ text: String) -> Bool {
        FileSystem.writeAsMuchAsPossible(fd, Array(text.utf8)).errno == nil
    }
}
