import Runtime

/// `--config PATH` and `--set Section.key=value`, as every command that reads the
/// configuration takes them, and the configuration they give.
struct ConfigurationArguments {
    var path: String?
    var overrides: [String]

    init(_ a: ParsedArguments) {
        path = a.value("--config")
        overrides = a.all("--set")
    }

    /// The file at `path` (else the default path, unless `useDefaultPath` is false), its
    /// drop-ins, then the overrides (`ConfigurationLoader.load`).
    func load(useDefaultPath: Bool = true) throws(Failure) -> Configuration {
        try ConfigurationLoader.load(path: path, overrides: overrides, useDefaultPath: useDefaultPath)
    }
}
