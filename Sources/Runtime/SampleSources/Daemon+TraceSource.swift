import Logging
import Sensors
import Tracing

/// `Sensor.device = trace:FILE`: the trace as the sensor, read as it plays.
extension Daemon {
    /// Opens the trace and reads its first batch (`TraceSource`): a missing file is exit
    /// 66, a damaged line in the first batch exit 65 naming file:line; the lines that say
    /// what the run will play are logged here.
    func traceSource(_ file: String, _ c: Configuration) throws(Failure) -> TraceSource {
        guard let traceClock else {
            throw Failure(
                .configuration,
                "Sensor.device = trace:\(file): a run that started on a device cannot switch to a trace; restart it")
        }
        let source = TraceSource(
            stream: try ConfigurationCheck.openTrace(file, c), clock: traceClock,
            gyroscope: c.sensor.gyro != GyroSelector.none)
        if let failure = source.failure { throw ConfigurationCheck.traceFailure(failure, c) }
        if source.isFullyRead && source.truncatedLastLine { logPartialLastLine(file) }
        if !source.isComplete && source.hasBaseline {
            log.notice(
                "trace \(file) has no reading records (written before they existed): the baseline comes from its first samples, so tilts may differ from the recording"
            )
        }
        if let recorded = source.header?.attitude {
            var differ: [String] = []
            if recorded.filter != c.attitude.filter.rawValue { differ.append("Attitude.filter=\(recorded.filter)") }
            if recorded.baselineSamples != c.attitude.baselineSamples {
                differ.append("Attitude.baseline_samples=\(recorded.baselineSamples)")
            }
            if !differ.isEmpty {
                log.notice(
                    "trace \(file) was recorded with " + differ.joined(separator: ", ")
                        + "; replaying with this run's configuration")
            }
        }
        let speed = c.sensor.traceSpeed.map { "speed \(formatNumber($0))" } ?? "as fast as possible"
        let readings = source.readings
        let gyro = source.gyroCount > 0 ? ", \(source.gyroCount) gyroscope readings" : ""
        let counts =
            source.isFullyRead
            ? "\(readings.count) readings\(gyro)"
            : "\(readings.count) readings\(gyro) read ahead, the rest read as it plays"
        log.notice("sensor: trace \(file), \(counts), \(speed)", ["sensor.device": "trace:" + file])
        if let s = c.sensor.traceSpeed {
            let say = { [log] (seconds: Double, from: Double) in
                // Played at its recorded times: a trace cut from a long run, or with a pause,
                // waits that long in real time; say so rather than wait silently.
                log.notice(
                    "trace \(file): \(formatNumber(seconds)) s without a reading "
                        + (from == 0 ? "before the first one" : "after t = \(formatNumber(from)) s")
                        + "; at speed \(formatNumber(s)) that is \(formatNumber(seconds / s)) s of waiting (Sensor.trace_speed = max plays it at once)",
                    ["sensor.device": "trace:" + file])
            }
            if let wait = Self.longestWait(readings.map(\.t)), wait.seconds > Self.longWait {
                say(wait.seconds, wait.from)
            }
            source.sayLongWaits(say)
        }
        return source
    }

    /// After a run on a trace: a partial last line met on the way is said now, and a
    /// damaged line met on the way ends the run as it would have ended the start.
    func traceEnded(_ source: any SampleSource, _ c: Configuration) throws(Failure) {
        guard let trace = source as? TraceSource else { return }
        if let failure = trace.failure { throw ConfigurationCheck.traceFailure(failure, c) }
        if trace.truncatedLastLine && !trace.readWholeAtStart { logPartialLastLine(trace.path) }
    }

    func logPartialLastLine(_ file: String) {
        log.warning("trace \(file) ends in a partial line (a crash mid-write?); it is ignored")
    }

    /// Seconds of trace time that a played trace spends waiting before its readings
    /// worth a line.
    static let longWait = 10.0

    /// The longest stretch without a reading, from t = 0 through the readings' times
    /// (file order), and where it starts; nil for no readings.
    static func longestWait(_ times: [Double]) -> (seconds: Double, from: Double)? {
        var previous = 0.0
        var best: (seconds: Double, from: Double)?
        for t in times {
            let gap = t - previous
            if gap > (best?.seconds ?? -1) { best = (gap, previous) }
            previous = max(previous, t)
        }
        return best
    }
}
