// shimmerd-view: the window behind `shimmerd view`, a separate executable so that the
// daemon never loads SDL2 and the display libraries it pulls in (X11, Wayland, audio):
// a system service should map only what it uses. `shimmerd view` checks its arguments
// and execs this program next to itself with `--name NAME`.
import Glibc
import Logging
import Viewer

let args = Array(CommandLine.arguments.dropFirst())
guard args.count == 2, args[0] == "--name", !args[1].isEmpty, !args[1].contains("/") else {
    let usage = "shimmerd-view: usage: shimmerd-view --name NAME (normally started by `shimmerd view`)\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
let log = Logger(label: "shimmerd", handler: LogHandler())
do {
    try ViewerSession(settings: ViewerSettings(name: args[1]), log: log).run()
    exit(0)
} catch {
    let line = "shimmerd: \(error.message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(69)
}
