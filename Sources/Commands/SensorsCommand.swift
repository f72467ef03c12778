import Runtime
import Sensors

/// `shimmerd sensors [--json]`: every IIO device found, what it is, and which one
/// `Sensor.device` picks and why (or why a device was skipped). The logic is
/// `SensorReport` in Sensors; this file only parses and prints.
struct SensorsCommand: Subcommand {
    static let name = "sensors"
    static let abstract = "list the accelerometers found, which one Sensor.device picks and why"
    static let options: [OptionSpec] = [.json, .config, .set]

    var json: Bool
    var configPath: String?
    var overrides: [String]

    init(_ a: ParsedArguments) throws(Failure) {
        json = a.flag("--json")
        configPath = a.value("--config")
        overrides = a.all("--set")
    }

    func run(_ context: CommandContext) throws(Failure) {
        let config = try MotionConfiguration(try ConfigurationLoader.load(path: configPath, overrides: overrides))
        let report: SensorReport
        do {
            report = try SensorReport.gather(settings: config.sensor)
        } catch {
            throw Failure(.unavailable, "sensors: \(error)")
        }
        if json {
            context.out(report.json.text + "\n")
        } else {
            report.lines.forEach(context.line)
        }
    }
}
