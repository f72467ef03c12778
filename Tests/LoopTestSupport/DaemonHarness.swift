import Motion
import Runtime

/// A whole `Daemon` on the kit's clock, signals and service manager (`DaemonHost`), its
/// lines in a `MemoryLogHandler`: the configuration it starts with, and what each SIGHUP
/// reads (the next of `reloads`; a `Failure` is a file the reload refuses).
package final class DaemonHarness {
    package let clock = ManualClock()
    package let log = MemoryLogHandler()
    package let notifier: RecordingNotifier
    package let signals: ScriptedSignals
    package let daemon: Daemon
    private let script = ReloadScript()
    /// What the next SIGHUPs read, first to last.
    package var reloads: [Result<Configuration, Failure>] {
        get { script.results }
        set { script.results = newValue }
    }

    /// - Parameter path: the simulated device (`shimmerd demo`'s source) on the clock.
    /// - Parameter configured: `Sensor.device` decides instead (a trace, on the trace's clock).
    package init(
        _ config: Configuration, path: TiltPath = .still, configured: Bool = false, watchdogSeconds: Double? = nil
    ) {
        let clock = self.clock
        let notifier = RecordingNotifier(clock: clock, watchdogSeconds: watchdogSeconds)
        let signals = ScriptedSignals(clock: clock)
        self.notifier = notifier
        self.signals = signals
        let host = DaemonHost(
            monotonicNanoseconds: { clock.nanoseconds }, utcNow: { "2026-01-01T00:00:00Z" },
            wait: clock.pipelineWait, takeSignals: { _ in signals }, prepareProcess: {},
            notifier: notifier, statusChannel: { _, _ in nil })
        let script = self.script
        daemon = Daemon(
            config: config, source: configured ? .configured : .simulated(path), log: log.logger(), host: host,
            reload: { () throws(Failure) -> Configuration in try script.next() })
    }

    /// Runs the daemon for `seconds` of its time (nil: until a stop signal).
    package func run(for seconds: Double?) throws(Failure) {
        try daemon.run(duration: seconds)
    }
}

/// The configurations the SIGHUPs of a `DaemonHarness` read.
private final class ReloadScript {
    var results: [Result<Configuration, Failure>] = []

    func next() throws(Failure) -> Configuration {
        guard !results.isEmpty else { throw Failure(.configuration, "no configuration scripted for this reload") }
        return try results.removeFirst().get()
    }
}
