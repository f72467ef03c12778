import LinuxSystem
import Logging
import Runtime
import Tracing

/// `shimmerd plot TRACE.jsonl --out FILE.svg`: a trace as one picture (see `TracePlot`).
struct PlotCommand: Subcommand {
    static let name = "plot"
    static let abstract = "draw a trace as one SVG: tilt and focal point over time, the focal path over the card"
    static let options: [OptionSpec] = [
        OptionSpec(
            "--out", value: "FILE.svg", help: "output SVG (written atomically)", required: true,
            completion: .file(extension: "svg"))
    ]
    static let positionals = [
        PositionalSpec(
            "TRACE.jsonl", help: "a trace (Trace.path, or DIR/trace.jsonl of shimmerd demo)",
            completion: .file(extension: "jsonl"))
    ]

    var trace: String
    var out: String

    init(_ a: ParsedArguments) throws(Failure) {
        guard let trace = a.positionals.first, !trace.isEmpty else {
            throw Failure(.usage, "plot: missing TRACE.jsonl")
        }
        self.trace = trace
        out = try a.outputFile("--out", command: Self.name, extension: "svg")
    }

    func run(_ context: CommandContext) throws(Failure) {
        let contents = try TraceInput.read(trace, command: Self.name, log: context.log)
        // The card panel is drawn at the header's size: checked as replay checks it.
        _ = try TraceInput.recordedConfiguration(contents, trace: trace, command: Self.name)
        let title = "shimmerd trace " + (trace.split(separator: "/").last.map(String.init) ?? trace)
        let svg = TracePlot(contents, title: title).svg()
        do { try FileSystem.writeAtomically(Array(svg.utf8), to: out) } catch {
            throw Failure(.cannotCreate, "plot: cannot write \(out): \(error)")
        }
        context.log.info(
            "wrote \(out): \(counted(contents.samples.count, "sample")), "
                + "\(counted(contents.baselines.count, "baseline"))")
    }
}

/// Reading a trace for a command: missing or unreadable is exit 66, damaged exit 65
/// naming file:line; a partial last line is a warning.
enum TraceInput {
    static func read(_ path: String, command: String, log: Logging.Logger) throws(Failure) -> TraceContents {
        let contents: TraceContents
        do { contents = try TraceReader.read(path: path) } catch {
            throw Failure(error.line == nil ? .noInput : .dataError, "\(command): \(error)")
        }
        if contents.truncatedLastLine {
            log.warning("\(path):\(contents.lineCount): partial last line (a crash mid-write?) ignored")
        }
        if !contents.unknownTypes.isEmpty {
            log.info(
                "\(path): skipped records of unknown types: "
                    + contents.unknownTypes.keys.sorted().map { "\($0) (\(contents.unknownTypes[$0]!))" }.joined(
                        separator: ", "))
        }
        return contents
    }

    /// The defaults with the recording's card and frame rate, set from the header's typed
    /// values and checked against the keys' ranges: a header with values this version
    /// rejects (a card 1e300 or -5 points wide) is bad input data (exit 65), not a
    /// configuration error.
    static func recordedConfiguration(_ contents: TraceContents, trace: String, command: String) throws(Failure)
        -> Configuration
    {
        var c = Configuration()
        guard let h = contents.header else { return c }
        c.card.width = h.card.width
        c.card.height = h.card.height
        c.card.scale = h.card.scale
        if h.card.origin.count == 2 { c.card.origin = (h.card.origin[0], h.card.origin[1]) }
        if let fps = h.sink?.fps { c.sink.fps = fps }
        if let problem = ConfigurationKeys.firstValueOutOfRange(c) {
            throw Failure(.dataError, "\(command): \(trace): the header's card or fps is unusable: \(problem)")
        }
        return c
    }
}
