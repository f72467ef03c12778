import Runtime

/// `shimmerd check-config [--config PATH] [--set ...]`: validate and print effective values.
struct CheckConfigCommand: Subcommand {
    static let name = "check-config"
    static let abstract = "validate the configuration and print the effective values (exit 0 or 78)"
    static let options: [OptionSpec] = [.config, .set]

    var configPath: String?
    var overrides: [String]

    init(_ a: ParsedArguments) throws(Failure) {
        configPath = a.value("--config")
        overrides = a.all("--set")
    }

    func run(_ context: CommandContext) throws(Failure) {
        let config = try ConfigurationLoader.load(path: configPath, overrides: overrides)
        context.out(ConfigurationLoader.render(config))
    }
}
