import Runtime

/// `shimmerd man shimmerd.8|shimmerd.conf.5` (or `shimmerd`, `shimmerd.conf`): a manual page in man(7) format on stdout,
/// generated from the option, configuration key, signal and exit code tables
/// (`ManualPage`). `shimmerd man shimmerd.8 | man -l -` reads it without installing.
struct ManCommand: Subcommand {
    static let name = "man"
    static let abstract = "print a manual page, shimmerd(8) or shimmerd.conf(5), in man(7) format"
    static let options: [OptionSpec] = []
    static let positionals = [
        PositionalSpec(
            "PAGE", help: "shimmerd.8 (or shimmerd) or shimmerd.conf.5 (or shimmerd.conf)",
            completion: .words(ManualPage.allCases.map(\.rawValue)))
    ]

    var page: ManualPage

    init(_ a: ParsedArguments) throws(Failure) {
        if let text = a.positionals.first, let named = ManualPage(name: text) {
            page = named
        } else {
            page = try a.choice(ManualPage.self, command: Self.name, what: "page")
        }
    }

    func run(_ context: CommandContext) throws(Failure) {
        context.out(page.text)
    }
}
