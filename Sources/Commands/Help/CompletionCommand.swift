import Runtime

/// `shimmerd completion bash|zsh`: the shell completion script on stdout, generated from
/// the option and configuration key tables (`ShellCompletion`). To try it without
/// installing: `source <(shimmerd completion bash)`.
struct CompletionCommand: Subcommand {
    static let name = "completion"
    static let abstract = "print the shell completion script for bash or zsh"
    static let options: [OptionSpec] = []
    static let positionals = [PositionalSpec.choice("SHELL", of: ShellCompletion.self)]

    var shell: ShellCompletion

    init(_ a: ParsedArguments) throws(Failure) {
        shell = try a.choice(ShellCompletion.self, command: Self.name, what: "shell")
    }

    func run(_ context: CommandContext) throws(Failure) {
        context.out(shell.script)
    }
}
