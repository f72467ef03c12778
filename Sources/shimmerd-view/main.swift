// shimmerd-view: the window behind `shimmerd view`, and the desktop background behind
// `shimmerd view --background`, a separate executable so that the daemon never loads
// SDL2, libwayland-client and the display libraries they pull in (X11, Wayland, audio):
// a system service should map only what it uses. `shimmerd view` checks its arguments
// and execs this program next to itself with `--name NAME [--background [--fill #RRGGBB]]`.
import Color
import Glibc
import Logging
import Viewer

func usage() -> Never {
    let text =
        "shimmerd-view: usage: shimmerd-view --name NAME [--background [--fill #RRGGBB]] "
        + "(normally started by `shimmerd view`)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

var args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2, args[0] == "--name", !args[1].isEmpty, !args[1].contains("/") else { usage() }
let settings = ViewerSettings(name: args[1])
args.removeFirst(2)
let background = args.first == "--background"
if background { args.removeFirst() }
var fill: RGB8?
if background, args.count == 2, args[0] == "--fill" {
    guard let color = RGB8(hex: args[1]) else { usage() }
    fill = color
    args.removeFirst(2)
}
guard args.isEmpty else { usage() }

let log = Logger(label: "shimmerd", handler: DescriptorLogHandler())
do {
    if background {
        var backgroundSettings = BackgroundSettings(viewer: settings)
        if let fill { backgroundSettings.fill = fill.xrgb }
        try BackgroundSession(settings: backgroundSettings, log: log).run()
    } else {
        try ViewerSession(settings: settings, log: log).run()
    }
    exit(0)
} catch {
    let line = "shimmerd: \(error.message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(69)
}
