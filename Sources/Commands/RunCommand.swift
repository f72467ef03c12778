import Logging
import Runtime
import Tracing

/// `shimmerd run`: the daemon (the default subcommand).
struct RunCommand: Subcommand {
    static let name = "run"
    static let abstract = "the daemon: read the accelerometer, render the card, write frames (default command)"
    static let options: [OptionSpec] = [.config, .set, .duration]

    var configuration: ConfigurationArguments
    var duration: Double?

    init(_ a: ParsedArguments) throws(Failure) {
        configuration = ConfigurationArguments(a)
        duration = try a.seconds("--duration")
    }

    func run(_ context: CommandContext) throws(Failure) {
        let configuration = self.configuration
        let load = { () throws(Failure) -> Configuration in try configuration.load() }
        let config = try load()
        let daemon = Daemon(
            config: config, log: context.log(level: config.log.level), argv: CommandLine.arguments,
            reload: load)
        try daemon.run(duration: duration)
    }
}

extension CommandContext {
    /// A logger at the configured level (`Log.level`).
    func log(level: LogLevel) -> Logging.Logger {
        Logging.Logger(label: "shimmerd", handler: DescriptorLogHandler(minimumLevel: level.loggerLevel))
    }
}
