import Runtime
import Sensors
import Tracing

/// `shimmerd monitor [--json] [--dbus] [--config PATH] [--set ...] [--duration S]`: live lines
/// like iio-sensor-proxy's monitor-sensor (m/s^2, dPitch and dRoll in degrees, focal
/// point). `--json` prints one object per line: `sample` records with the fields of the
/// trace's sample records (`t`, `seq`, `accel`, `dpitch`, `droll`, `focal`), and
/// `attached`, `detached`, `waiting`, `baseline`, `gyro`, `gyro-attached`, `gyro-detached`
/// and `gyro-disagrees` records readers may ignore. The loop
/// is `MonitorSession` in Sensors; this file only parses and prints. `--dbus` reads the
/// running daemon's state from the system bus instead (`StatusMonitor`).
struct MonitorCommand: Subcommand {
    static let name = "monitor"
    static let abstract = "print live accelerometer, dPitch, dRoll and focal point lines until interrupted"
    static let options: [OptionSpec] = [.json, .config, .set, .duration,
                                        OptionSpec("--dbus", help: "the running daemon's state from the system bus (org.shimmerd.Shimmerd1) instead of the sensor")]

    var json: Bool
    var dbus: Bool
    var configPath: String?
    var overrides: [String]
    var duration: Double?

    init(_ a: ParsedArguments) throws(Failure) {
        json = a.flag("--json")
        dbus = a.flag("--dbus")
        configPath = a.value("--config")
        overrides = a.all("--set")
        duration = try a.seconds("--duration")
    }

    func run(_ context: CommandContext) throws(Failure) {
        if dbus {
            try StatusMonitor.run(json: json, duration: duration, emit: { context.out($0 + "\n") })
            return
        }
        let config = try MotionConfiguration(try ConfigurationLoader.load(path: configPath, overrides: overrides))
        if case .trace = config.sensor.device {
            throw Failure(.configuration, "monitor: Sensor.device = trace:... is replayed by `shimmerd replay`, not monitored")
        }
        let session = MonitorSession(settings: config.sensor, motion: config.interpreter, json: json, duration: duration)
        do {
            try session.run(log: context.log, emit: { context.out($0 + "\n") })
        } catch {
            throw Failure(.unavailable, "monitor: \(error)")
        }
    }
}
