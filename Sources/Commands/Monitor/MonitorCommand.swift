import Runtime
import Sensors
import Tracing

/// `shimmerd monitor [--json] [--all] [--dbus] [--config PATH] [--set ...] [--duration S]`: live
/// lines like iio-sensor-proxy's monitor-sensor (m/s^2, dPitch and dRoll in degrees, focal
/// point), printed when they change (`--all`: for every sample). `--json` prints one object per line: `sample` records with the fields of the
/// trace's sample records (`t`, `seq`, `accel`, `dpitch`, `droll`, `focal`), and
/// `attached`, `detached`, `waiting`, `baseline`, `gyro`, `gyro-attached`, `gyro-detached`
/// and `gyro-disagrees` records readers may ignore. The loop
/// is `MonitorSession`; this file only parses and prints. `--dbus` reads the
/// running daemon's state from the system bus instead (`StatusMonitor`).
struct MonitorCommand: Subcommand {
    static let name = "monitor"
    static let abstract = "print accelerometer, dPitch, dRoll and focal point lines as they change, until interrupted"
    static let options: [OptionSpec] = [
        OptionSpec("--json", help: "machine-readable output: one object per sample, and per event"),
        OptionSpec(
            "--all",
            help: "a line for every sample, not only when "
                + "dPitch, dRoll or the focal point changes"),
        .config, .set, .duration,
        OptionSpec(
            "--dbus",
            help: "the running daemon's state from the "
                + "system bus (org.shimmerd.Shimmerd1) instead of the sensor"),
    ]

    var json: Bool
    var all: Bool
    var dbus: Bool
    var configuration: ConfigurationArguments
    var duration: Double?

    init(_ a: ParsedArguments) throws(Failure) {
        json = a.flag("--json")
        all = a.flag("--all")
        dbus = a.flag("--dbus")
        configuration = ConfigurationArguments(a)
        duration = try a.seconds("--duration")
    }

    func run(_ context: CommandContext) throws(Failure) {
        // Lines carry device names, reasons and bus values: escaped (`CommandContext.line`).
        let json = json
        let emit = { (line: String) in json ? context.out(line + "\n") : context.line(line) }
        if dbus {
            try StatusMonitor.run(json: json, duration: duration, emit: emit)
            return
        }
        let config = MotionConfiguration(try configuration.load())
        if case .trace = config.sensor.device {
            throw Failure(
                .configuration,
                "monitor: Sensor.device = trace:... is replayed by "
                    + "`shimmerd replay`, not monitored")
        }
        var session = MonitorSession(
            settings: config.sensor, motion: config.interpreter, json: json, duration: duration)
        session.everySample = all
        do {
            try session.run(log: context.log, emit: emit)
        } catch {
            throw Failure(.unavailable, "monitor: \(error)")
        }
    }
}
