import Runtime
import Sensors

/// `shimmerd sensors [--json]`: every IIO device found, what it is, and which one
/// `Sensor.device` picks and why (or why a device was skipped). The logic is
/// `SensorReport`; this file only parses and prints. Exit 69 when no
/// accelerometer is usable (the report says why).
struct SensorsCommand: Subcommand {
    static let name = "sensors"
    static let abstract = "list the accelerometers found, which one Sensor.device picks and why (exit 69: none usable)"
    static let options: [OptionSpec] = [.json, .config, .set]

    var json: Bool
    var configuration: ConfigurationArguments

    init(_ a: ParsedArguments) throws(Failure) {
        json = a.flag("--json")
        configuration = ConfigurationArguments(a)
    }

    func run(_ context: CommandContext) throws(Failure) {
        let config = MotionConfiguration(try configuration.load())
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
        // The report is printed either way; a script tells "nothing usable" by the code.
        if report.selection.chosen == nil {
            throw Failure(.unavailable, "sensors: no usable accelerometer: \(report.selection.reason)")
        }
    }
}
