import Card
import Sensors
import Tracing

/// What `run` refuses in a configuration the parser accepted, as one set of checks for
/// `run` (at start and on SIGHUP) and `check-config`, so that a check before `systemctl
/// reload` says what the reload would say, with the same line.
package enum ConfigurationCheck {
    /// What the settings decide by themselves: the sensor, attitude and mapper values, the
    /// card (its size in pixels, its font) and the sink's settings.
    package static func settings(_ c: Configuration) throws(Failure) -> (
        motion: MotionConfiguration, renderer: CardRenderer
    ) {
        let motion = MotionConfiguration(c)
        let renderer = try CardFactory.renderer(c)
        try SinkFactory.checkSettings(c.sink, describe: c.describe)
        return (motion, renderer)
    }

    /// The files `run` opens at start, checked without creating or changing anything:
    /// `Sensor.device = trace:FILE` must be a readable, well-formed trace and `Trace.path`
    /// a file this process may create or write.
    package static func files(_ c: Configuration) throws(Failure) {
        if case .trace(let file) = c.sensor.device {
            // Read to its end, keeping nothing: what `run` meets anywhere in it is said here.
            let stream = try openTrace(file, c)
            do { try stream.readToEnd() } catch { throw traceFailure(error, c) }
        }
        if !c.trace.path.isEmpty {
            do { try TraceWriter.checkCreatable(c.trace.path) } catch { throw traceFailure(c, error) }
        }
    }

    /// `Sensor.device = trace:FILE` opened for reading as it plays.
    static func openTrace(_ file: String, _ c: Configuration) throws(Failure) -> TraceStream {
        do { return try TraceStream(path: file) } catch { throw traceFailure(error, c) }
    }

    /// A trace that cannot be read: a missing file is exit 66, a damaged one exit 65
    /// naming file:line, both named where `Sensor.device` was set.
    static func traceFailure(_ error: TraceReadError, _ c: Configuration) -> Failure {
        let at = c.origin(of: "Sensor.device").map { " (\($0))" } ?? ""
        return Failure(error.line == nil ? .noInput : .dataError, "Sensor.device\(at) = trace:\(error.description)")
    }

    /// `Trace.path` cannot be opened (exit 73), named where it was set.
    static func traceFailure(_ c: Configuration, _ error: any Error) -> Failure {
        Failure(.cannotCreate, "\(c.describe("Trace.path", c.trace.path)): \(error)")
    }
}
