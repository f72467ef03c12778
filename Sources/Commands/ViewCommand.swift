import Glibc
import Runtime

/// `shimmerd view [--name NAME]`: a desktop window showing the frames a running daemon
/// writes to shared memory (Sink.type = shm). The window is the separate executable
/// `shimmerd-view` (Sources/shimmerd-view): the daemon's binary never links SDL2. This
/// command checks the arguments and execs it, from beside this executable (the build
/// directory, `scripts/install.sh`) or from `../libexec/shimmerd/` (the Debian package
/// shimmerd-view, which keeps the helper off PATH). docs/VIEWER.md has the desktop setup.
struct ViewCommand: Subcommand {
    static let name = "view"
    static let abstract = "show the shared-memory frames of a running daemon in a window (SDL2; X11 or Wayland)"
    static let options: [OptionSpec] = [
        OptionSpec("--name", value: "NAME", help: "segment /dev/shm/NAME, the daemon's Sink.name (default shimmer)"),
    ]

    var name: String
    var path: String { "/dev/shm/" + name }

    init(_ a: ParsedArguments) throws(Failure) {
        name = a.value("--name") ?? SinkSettings().name
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw Failure(.usage, "view: --name \"\(name)\" is not a segment name (a file name in /dev/shm)")
        }
    }

    /// Where the viewer executable may be, relative to this one's directory
    /// (`/proc/self/exe`), in the order tried.
    static let viewerLocations = ["shimmerd-view", "../libexec/shimmerd/shimmerd-view"]

    /// The first of `viewerLocations` that exists, else the first (its exec error names it).
    static func viewerPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "shimmerd-view" }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
        let candidates = viewerLocations.map { directory + "/" + $0 }
        return candidates.first { access($0, X_OK) == 0 } ?? candidates[0]
    }

    func run(_ context: CommandContext) throws(Failure) {
        let viewer = Self.viewerPath()
        let argv = [viewer, "--name", name]
        var cargs = argv.map { strdup($0) } + [nil]
        execv(viewer, &cargs)
        let reason = String(cString: strerror(errno))
        throw Failure(.unavailable, "view: cannot start the viewer \(viewer): \(reason) (the Debian package shimmerd-view installs it)")
    }
}
