import Glibc
import Motion
import Sensors

/// `shimmerd monitor [--json] [--config PATH] [--set ...] [--duration S]`: live
/// attitude lines like iio-sensor-proxy's monitor-sensor; `--json` prints one object per
/// sample with the fields of the trace's `sample` records (`t`, `seq`, `accel`,
/// `dpitch`, `droll`, `focal`) plus `attached`/`detached`/`waiting`/`baseline` records.
/// Logic in `MonitorSession` (Sensors); this file parses options and prints.
enum MonitorCommand {
    static let name = "monitor"
    static let abstract = "Print live accelerometer, dPitch, dRoll and focal point lines"
    static let usage = """
        Usage: shimmerd monitor [--json] [--config PATH] [--set Section.key=value]... [--duration SECONDS]
          --json            one JSON object per line (type sample: t, seq, accel, dpitch, droll, focal)
          --config PATH     configuration file
          --set S.k=v       override one configuration key (repeatable)
          --duration S      stop after S seconds
        """

    static func run(_ args: [String]) -> Int32 {
        var json = false
        var duration: Double?
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
                    guard i < args.count else { return SensorsCommand.usageError("--config needs a PATH") }
                    try options.applyFile(args[i])
                case "--set":
                    i += 1
                    guard i < args.count else { return SensorsCommand.usageError("--set needs Section.key=value") }
                    try options.applySet(args[i])
                case "--duration":
                    i += 1
                    guard i < args.count, case .success(let d) = SysfsNumber.parse(args[i], limit: 1e9), d >= 0 else {
                        return SensorsCommand.usageError("--duration needs a number of seconds")
                    }
                    duration = d
                default:
                    return SensorsCommand.usageError("unknown option \(args[i])")
                }
                i += 1
            }
        } catch {
            printError("shimmerd monitor: \(error)")
            return 78
        }
        if case .trace = options.sensor.device {
            printError("shimmerd monitor: Sensor.device = trace:... is replayed by `shimmerd replay`, not monitored")
            return 78
        }
        let session = MonitorSession(settings: options.sensor, attitude: options.attitudeConfiguration,
                                     mapper: options.mapper, json: json, duration: duration)
        do {
            try session.run(log: stderrLog, emit: { writeLine($0, to: 1) })
            return 0
        } catch {
            printError("shimmerd monitor: \(error)")
            return 69
        }
    }
}

/// Interim log handler: sd-daemon priority prefix on stderr (replaced by the runtime's
/// Logger when it lands).
func stderrLog(_ level: SensorLogLevel, _ message: String, _ metadata: [String: String]) {
    writeLine("<\(level.rawValue)>\(message)", to: 2)
}
