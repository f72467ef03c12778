import Glibc
import Motion
import Sensors

/// `shimmerd sensors [--json] [--config PATH] [--set Section.key=value]...`: every IIO
/// device found, what it is, and which one `Sensor.device` picks and why. Logic in
/// `SensorReport` (Sensors); this file parses options and prints.
enum SensorsCommand {
    static let name = "sensors"
    static let abstract = "List the accelerometers found and which one Sensor.device picks, and why"
    static let usage = """
        Usage: shimmerd sensors [--json] [--config PATH] [--set Section.key=value]...
          --json          one JSON object with every device
          --config PATH   configuration file (Sensor.* keys)
          --set S.k=v     override one configuration key (repeatable)
        """

    static func run(_ args: [String]) -> Int32 {
        var json = false
        var options = MotionOptions()
        var i = 0
        do {
            while i < args.count {
                switch args[i] {
                case "--json": json = true
                case "--help", "-h":
                    print(usage)
                    return 0
                case "--config":
                    i += 1
                    guard i < args.count else { return usageError("--config needs a PATH") }
                    try options.applyFile(args[i])
                case "--set":
                    i += 1
                    guard i < args.count else { return usageError("--set needs Section.key=value") }
                    try options.applySet(args[i])
                default:
                    return usageError("unknown option \(args[i])")
                }
                i += 1
            }
        } catch {
            printError("shimmerd sensors: \(error)")
            return 78
        }
        do {
            let report = try SensorReport.gather(settings: options.sensor)
            if json {
                writeLine(report.json.text, to: 1)
            } else {
                for l in report.lines { writeLine(l, to: 1) }
            }
            return 0
        } catch {
            printError("shimmerd sensors: \(error)")
            return 69
        }
    }

    static func usageError(_ message: String) -> Int32 {
        printError("shimmerd \(name): \(message)\n\(usage)")
        return 64
    }
}

func printError(_ s: String) {
    writeLine(s, to: 2)
}

/// Writes one line with a single write(2): unbuffered, so a reader of a pipe sees each
/// line as it is produced.
func writeLine(_ s: String, to fd: Int32) {
    let bytes = Array((s + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        done += n
    }
}
