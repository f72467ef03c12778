import Runtime

/// What a shell offers for the value of an option or an argument (`shimmerd completion`).
package enum ValueCompletion: Sendable, Equatable {
    /// Free text or a number: nothing to offer.
    case none
    /// A file name; with an extension ("png"), names that end in it and directories.
    case file(extension: String? = nil)
    case directory
    /// `Section.key=value`: the keys of `ConfigurationKeys.all`, then the key's `words`.
    case setting
    /// One of these words.
    case words([String])
}

/// One option of a subcommand's table.
package struct OptionSpec: Sendable {
    /// "--focal"
    package var name: String
    /// Placeholder of the value ("X,Y"); nil for a flag.
    package var value: String?
    package var help: String
    package var repeatable = false
    /// The command cannot run without it: the synopsis shows it without brackets.
    package var required = false
    package var completion: ValueCompletion

    package init(
        _ name: String, value: String? = nil, help: String, repeatable: Bool = false, required: Bool = false,
        completion: ValueCompletion = .none
    ) {
        self.name = name
        self.value = value
        self.help = help
        self.repeatable = repeatable
        self.required = required
        self.completion = completion
    }

    package static let config = OptionSpec(
        "--config", value: "PATH",
        help: "configuration file (default \(Configuration.defaultPath); drop-ins from PATH.d/)",
        completion: .file())
    /// `--config` of a command that reads only the built-in defaults unless it is given.
    package static let configWithoutDefault = OptionSpec(
        "--config", value: "PATH",
        help: "configuration file (default: none, the "
            + "built-in defaults only; drop-ins from PATH.d/)",
        completion: .file())
    package static let set = OptionSpec(
        "--set", value: "Section.key=value", help: "override one configuration key (repeatable)", repeatable: true,
        completion: .setting)
    package static let duration = OptionSpec("--duration", value: "SECONDS", help: "stop cleanly after this time")
    package static let json = OptionSpec("--json", help: "machine-readable output")
}

package struct PositionalSpec: Sendable {
    package var name: String
    package var help: String
    package var completion: ValueCompletion

    package init(_ name: String, help: String, completion: ValueCompletion = .none) {
        self.name = name
        self.help = help
        self.completion = completion
    }

    /// An argument that names one of `E`'s cases ("PAGE": shimmerd.8 or shimmerd.conf.5).
    package static func choice<E: CaseIterable & RawRepresentable>(_ name: String, of type: E.Type) -> PositionalSpec
    where E.RawValue == String {
        let words = E.allCases.map(\.rawValue)
        return PositionalSpec(name, help: words.joined(separator: " or "), completion: .words(words))
    }
}

/// A subcommand: its table, a validating initializer from parsed arguments, and `run`.
package protocol Subcommand: Sendable {
    static var name: String { get }
    static var abstract: String { get }
    static var options: [OptionSpec] { get }
    static var positionals: [PositionalSpec] { get }
    // Plain `throws` here: typed throws through an existential crashes Swift 6.3's
    // SILGen. Commands throw `Failure`; anything else is reported as an I/O error.
    init(_ arguments: ParsedArguments) throws
    func run(_ context: CommandContext) throws
}

extension Subcommand {
    package static var positionals: [PositionalSpec] { [] }
}

/// What the parser found.
package struct ParsedArguments: Sendable, Equatable {
    package var values: [String: [String]] = [:]
    package var flags: Set<String> = []
    package var positionals: [String] = []

    package func value(_ name: String) -> String? { values[name]?.last }
    package func all(_ name: String) -> [String] { values[name] ?? [] }
    package func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A required option's value, or a usage error naming it.
    package func required(_ name: String, command: String) throws(Failure) -> String {
        guard let v = value(name) else { throw Failure(.usage, "\(command): missing \(name)") }
        return v
    }

    /// The first positional argument as one of `E`'s cases; a usage error names them when
    /// it is missing or none of them.
    package func choice<E: CaseIterable & RawRepresentable>(_ type: E.Type, command: String, what: String)
        throws(Failure) -> E where E.RawValue == String
    {
        let names = E.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = positionals.first else { throw Failure(.usage, "\(command): which \(what)? \(names)") }
        guard let value = E(rawValue: text) else {
            throw Failure(.usage, "\(command): no \(what) \"\(text)\"; one of \(names)")
        }
        return value
    }

    /// A required output file option whose name must end in `.extension` (any case): the
    /// file is written in that format alone, so another name would mislabel it.
    package func outputFile(_ name: String, command: String, extension ext: String) throws(Failure) -> String {
        let path = try required(name, command: command)
        guard !path.isEmpty else { throw Failure(.usage, "\(command): \(name) is empty") }
        guard path.lowercased().hasSuffix("." + ext) else {
            throw Failure(
                .usage,
                "\(command): \(name) \"\(path)\": writes "
                    + "\(ext.uppercased()) only; name the file *.\(ext)")
        }
        return path
    }

    /// `--duration SECONDS` as a positive finite number.
    package func seconds(_ name: String) throws(Failure) -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = Double(text), v.isFinite, v >= 0 else {
            throw Failure(.usage, "\(name) \"\(text)\" is not a number of seconds")
        }
        return v
    }
}

/// The parser: `--name value`, `--name=value`, flags, `--` ends options.
package enum ArgumentParser {
    package static func parse(
        _ args: [String], options: [OptionSpec], positionals: [PositionalSpec],
        command: String
    ) throws(Failure) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw Failure(.usage, "\(command): unknown option \(name)" + suggestion(options))
            }
            if spec.value == nil {
                if inline != nil { throw Failure(.usage, "\(command): \(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < args.count else { throw Failure(.usage, "\(command): \(name) needs a value \(spec.value!)") }
                value = args[i]
                i += 1
            }
            if !spec.repeatable, parsed.values[name] != nil {
                throw Failure(.usage, "\(command): \(name) given more than once")
            }
            parsed.values[name, default: []].append(value)
        }
        // Every positional is required; a missing one is named before a missing option.
        if parsed.positionals.count < positionals.count {
            let p = positionals[parsed.positionals.count]
            throw Failure(.usage, "\(command): missing \(p.name) (\(p.help))")
        }
        for spec in options where spec.required && parsed.values[spec.name] == nil {
            throw Failure(.usage, "\(command): missing \(spec.name) \(spec.value ?? "")")
        }
        if parsed.positionals.count > positionals.count {
            throw Failure(.usage, "\(command): unexpected argument \"\(parsed.positionals[positionals.count])\"")
        }
        return parsed
    }

    static func suggestion(_ options: [OptionSpec]) -> String {
        options.isEmpty ? " (it takes no options)" : "; options: " + options.map(\.name).joined(separator: ", ")
    }
}

/// `--help` text from the same tables.
enum Help {
    static func overview(_ commands: [any Subcommand.Type]) -> String {
        var s = """
            shimmerd \(ShimmerdMain.version): a tilt-driven gradient card, driven by a real accelerometer.

            Usage: shimmerd [COMMAND] [OPTIONS]    (COMMAND defaults to run)

            Commands:

            """
        let width = commands.map { $0.name.count }.max() ?? 0
        for c in commands {
            s += "  " + c.name.padding(width) + "  " + c.abstract + "\n"
        }
        s += """

            Options:
              --help       show this help (or `shimmerd COMMAND --help`)
              --version    show the version

            Exit codes:

            """
        for status in ExitStatus.allCases {
            s += "  " + String(status.rawValue).padding(3) + "  " + status.meaning + "\n"
        }
        s += "\nManual pages: `shimmerd man shimmerd.8 | man -l -`, and shimmerd.conf.5 for the configuration.\n"
        return s
    }

    static func text(for c: any Subcommand.Type) -> String {
        var s = "Usage: shimmerd \(c.name)\(Synopsis.of(c))\n\n\(c.abstract)\n"
        var rows: [(String, String)] = c.positionals.map { ($0.name, $0.help) }
        for o in c.options {
            rows.append((o.value.map { "\(o.name) \($0)" } ?? o.name, o.help))
        }
        rows.append(("--help", "show this help"))
        let width = rows.map { $0.0.count }.max() ?? 0
        s += "\n"
        for (left, help) in rows {
            s += "  " + left.padding(width) + "  " + help + "\n"
        }
        return s
    }
}

/// The arguments of a command's synopsis, from its tables: positionals, then required
/// options, then the others in brackets (`...` after a repeatable one). `literal` and
/// `placeholder` format names and values (plain for `--help`, roff fonts for the manual).
enum Synopsis {
    static func of(
        _ c: any Subcommand.Type, literal: (String) -> String = { $0 },
        placeholder: (String) -> String = { $0 }
    ) -> String {
        var s = ""
        for p in c.positionals { s += " " + placeholder(p.name) }
        for o in c.options.filter(\.required) + c.options.filter({ !$0.required }) {
            let item = literal(o.name) + (o.value.map { " " + placeholder($0) } ?? "")
            s += " " + (o.required ? item : "[" + item + "]") + (o.repeatable ? "..." : "")
        }
        return s
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
