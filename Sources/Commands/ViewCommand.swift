import Color
import Glibc
import Runtime

/// `shimmerd view [--name NAME] [--background] [--fill #RRGGBB]`: a desktop window showing
/// the frames a running daemon writes to shared memory (Sink.type = shm), or, with
/// `--background`, the desktop's background on every output of a Wayland compositor with
/// wlr-layer-shell (docs/BACKGROUND.md). Both are the separate executable
/// `shimmerd-view` (Sources/shimmerd-view): the daemon's binary never links SDL2. This
/// command checks the arguments and execs it, from beside this executable (the build
/// directory, `scripts/install.sh`) or from `../libexec/shimmerd/` (the Debian package
/// shimmerd-view, which keeps the helper off PATH). docs/VIEWER.md has the desktop setup.
struct ViewCommand: Subcommand {
    static let name = "view"
    static let abstract =
        "show the shared-memory frames of a running daemon in a window (SDL2; X11 or "
        + "Wayland), or as the desktop's background"
    /// The colour around the card on the background, the window's own grey.
    static let defaultFill = "#202020"
    static let options: [OptionSpec] = [
        OptionSpec("--name", value: "NAME", help: "segment /dev/shm/NAME, the daemon's Sink.name (default shimmer)"),
        OptionSpec(
            "--background",
            help: "the card as the desktop's background, on every output, "
                + "instead of a window: a layer surface "
                + "under the windows on Wayland compositors with wlr-layer-shell (sway, Hyprland, KDE "
                + "Plasma, niri, labwc, Wayfire, "
                + "river); it claims the frames only while some output shows it (exit 69 on a "
                + "desktop without wlr-layer-shell)"),
        OptionSpec(
            "--fill", value: "#RRGGBB",
            help: "with --background: the colour around the card and in "
                + "its corners (default \(defaultFill))"),
    ]

    var name: String
    var background: Bool
    var fill: String?
    var path: String { "/dev/shm/" + name }

    init(_ a: ParsedArguments) throws(Failure) {
        name = a.value("--name") ?? SinkSettings().name
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw Failure(.usage, "view: --name \"\(name)\" is not a segment name (a file name in /dev/shm)")
        }
        background = a.flag("--background")
        fill = a.value("--fill")
        if let fill {
            guard background else {
                throw Failure(.usage, "view: --fill is the background's colour: give --background too")
            }
            guard RGB8(hex: fill) != nil else {
                throw Failure(
                    .usage,
                    "view: --fill \"\(fill)\" is not a colour #RRGGBB (six hexadecimal "
                        + "digits, e.g. \(Self.defaultFill))")
            }
        }
    }

    /// The viewer's arguments: `--name NAME [--background [--fill #RRGGBB]]`.
    var viewerArguments: [String] {
        ["--name", name] + (background ? ["--background"] + (fill.map { ["--fill", $0] } ?? []) : [])
    }

    /// Where the viewer executable may be, for this executable in `directory`, in the
    /// order tried: beside it (a build directory, `scripts/install.sh`), then
    /// `../libexec/shimmerd/` (the Debian package shimmerd-view keeps it off PATH).
    static func viewerCandidates(directory: String) -> [String] {
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? "."
        return [directory + "/shimmerd-view", parent + "/libexec/shimmerd/shimmerd-view"]
    }

    /// This executable's directory (`/proc/self/exe`); nil when it cannot be read.
    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
    }

    /// Whether `directory` is where SwiftPM puts what it builds: `.build/debug` or
    /// `.build/release`, or the same under the target triple (`.build/x86_64-unknown-linux-gnu/debug`),
    /// not merely any path with a `.build` somewhere above it.
    static func isSwiftPMBuildDirectory(_ directory: String) -> Bool {
        let parts = directory.split(separator: "/")
        guard let last = parts.last, last == "debug" || last == "release" else { return false }
        let n = parts.count
        return (n >= 2 && parts[n - 2] == ".build") || (n >= 3 && parts[n - 3] == ".build")
    }

    /// What to say when no candidate exists: where each kind of install puts the viewer,
    /// and, in a SwiftPM build directory, how to build it there.
    static func missingViewer(directory: String, tried: [String]) -> String {
        var s =
            "view: no viewer executable (tried \(tried.joined(separator: ", "))): the Debian package shimmerd-view "
            + "puts it in /usr/libexec/shimmerd/shimmerd-view, scripts/install.sh beside shimmerd"
        if isSwiftPMBuildDirectory(directory) {
            s += "; this shimmerd is a source build: swift build --product shimmerd-view builds it in \(directory)"
        }
        return s
    }

    func run(_ context: CommandContext) throws(Failure) {
        guard let directory = Self.executableDirectory() else {
            throw Failure(
                .unavailable,
                "view: cannot find this executable's directory (/proc/self/exe) "
                    + "to find shimmerd-view beside it")
        }
        let tried = Self.viewerCandidates(directory: directory)
        guard let viewer = tried.first(where: { access($0, X_OK) == 0 }) else {
            throw Failure(.unavailable, Self.missingViewer(directory: directory, tried: tried))
        }
        let argv = [viewer] + viewerArguments
        var cargs = argv.map { strdup($0) } + [nil]
        execv(viewer, &cargs)
        let reason = String(cString: strerror(errno))
        throw Failure(.unavailable, "view: cannot start the viewer \(viewer): \(reason)")
    }
}
