import Runtime
import Viewer

/// `shimmerd view [--name NAME]`: a desktop window showing the frames a running daemon
/// writes to shared memory (Sink.type = shm). The loop is `ViewerSession` in Viewer;
/// this file only parses. docs/VIEWER.md has the desktop setup.
struct ViewCommand: Subcommand {
    static let name = "view"
    static let abstract = "show the shared-memory frames of a running daemon in a window (SDL2; X11 or Wayland)"
    static let options: [OptionSpec] = [
        OptionSpec("--name", value: "NAME", help: "segment /dev/shm/NAME, the daemon's Sink.name (default shimmer)"),
    ]

    var settings: ViewerSettings

    init(_ a: ParsedArguments) throws(Failure) {
        let name = a.value("--name") ?? SinkSettings().name
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw Failure(.usage, "view: --name \"\(name)\" is not a segment name (a file name in /dev/shm)")
        }
        settings = ViewerSettings(name: name)
    }

    func run(_ context: CommandContext) throws(Failure) {
        do {
            try ViewerSession(settings: settings, log: context.log).run()
        } catch {
            throw Failure(.unavailable, error.message)
        }
    }
}
