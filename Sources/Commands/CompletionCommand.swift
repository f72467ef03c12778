import Runtime

/// `shimmerd completion bash|zsh`: the shell completion script on stdout, generated from
/// the option and configuration key tables (`ShellCompletion`). To try it without
/// installing: `source <(shimmerd completion bash)`.
struct CompletionCommand: Subcommand {
    static let name = "completion"
    static let abstract = "print the shell completion script for bash or zsh"
    static let options: [OptionSpec] = []
    static let positionals = [
        PositionalSpec("SHELL", help: ShellCompletion.allCases.map(\.rawValue).joined(separator: " or "),
                       completion: .words(ShellCompletion.allCases.map(\.rawValue))),
    ]

    var shell: ShellCompletion

    init(_ a: ParsedArguments) throws(Failure) {
        let names = ShellCompletion.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = a.positionals.first else { throw Failure(.usage, "completion: which shell? \(names)") }
        guard let shell = ShellCompletion(rawValue: name) else {
            throw Failure(.usage, "completion: no script for \"\(name)\"; shells: \(names)")
        }
        self.shell = shell
    }

    func run(_ context: CommandContext) throws(Failure) {
        context.out(shell.script)
    }
}
