import Runtime

/// `shimmerd check-config [--config PATH] [--set ...]`: validate and print effective values.
struct CheckConfigCommand: Subcommand {
    static let name = "check-config"
    static let abstract =
        "validate the configuration as run and a reload would, and print the effective "
        + "values (exit 0; 78: invalid; 69: the drm or framebuffer sink's device is missing)"
    static let options: [OptionSpec] = [
        .config, .set,
        OptionSpec(
            "--documented",
            help: "print every key with its default and help "
                + "(the shipped config/shimmerd.conf)"),
    ]

    var configuration: ConfigurationArguments
    var documented: Bool

    init(_ a: ParsedArguments) throws(Failure) {
        configuration = ConfigurationArguments(a)
        documented = a.flag("--documented")
    }

    func run(_ context: CommandContext) throws(Failure) {
        if documented {
            context.out(ConfigurationLoader.documentedDefaults())
            return
        }
        let config = try configuration.load()
        // The checks `run` makes at start and on SIGHUP, with its lines; whatever `run`
        // would exit with, a configuration it refuses is exit 78 here.
        do {
            _ = try ConfigurationCheck.settings(config)
            try ConfigurationCheck.files(config)
        } catch {
            throw Failure(.configuration, error.message)
        }
        // Values may hold any character but a newline: escaped line by line (`line`).
        var lines = ConfigurationLoader.render(config).split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        for line in lines { context.line(String(line)) }
        // What `auto` does is decided at start, on the machine it runs on: say how (the
        // key table's own help, so there is one wording).
        if config.sink.type == .auto, let key = ConfigurationKeys.find(section: "Sink", name: "type") {
            context.out("\n# Sink.type = auto: \(key.help)\n")
        }
        // The configuration is valid; whether the display it names is there now is a
        // question of the machine (run would wait for it, retrying): exit 69, not 78.
        if let missing = SinkFactory.missingDevice(config.sink) {
            throw Failure(
                .unavailable,
                "\(config.describe("Sink.type", config.sink.type.rawValue)): "
                    + "\(missing); run would wait for it, retrying")
        }
    }
}
