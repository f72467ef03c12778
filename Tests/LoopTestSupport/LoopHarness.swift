import Card
import Motion
import Output
import Runtime
import Tracing

/// One `Pipeline` on the kit's parts: a scripted sensor (or the test's own, such as the
/// real `AccelerometerService`), a recording sink, the signals,
/// the service manager and (with `bus`) the bus of the test, all on one `ManualClock`,
/// its lines in a `MemoryLogHandler`. `run(until:)` runs the loop as the daemon does, in
/// daemon time.
package final class LoopHarness {
    package let clock: ManualClock
    package let log = MemoryLogHandler()
    /// The scripted sensor; the loop reads it unless the test gave its own `sensor`.
    package let source: ScriptedSource
    package let sink: RecordingSink
    package let notifier: RecordingNotifier
    package let signals: ScriptedSignals
    package let channel: ScriptedChannel?
    package let pipeline: Pipeline

    /// - Parameters:
    ///   - path: what the device does (or `acceleration`, m/s^2 over time); `rate`: its readings a second.
    ///   - fps: `Sink.fps`; `demand`: `Sink.demand`; `audience`: who sees the sink's frames.
    ///   - watchdogSeconds: `WatchdogSec=`, nil for none; `bus`: the daemon has a bus.
    ///   - sensor: the loop's sample source instead of the scripted one.
    ///   - configure: changes to the rest of the configuration (`Attitude`, `Mapper`, `Card`).
    package init(
        path: TiltPath = .still, acceleration: ((Double) -> Vector3)? = nil, rate: Double = 100, fps: Double = 30,
        demand: SinkDemand = .auto,
        audience: FrameAudience = .own, watchdogSeconds: Double? = nil, bus: Bool = false,
        trace: TraceWriter? = nil, sensor: (any SampleSource)? = nil,
        configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        var c = Configuration()
        c.card.scale = 1
        c.sink.fps = fps
        c.sink.demand = demand
        c.sensor.rate = rate
        configure(&c)
        let clock = ManualClock()
        self.clock = clock
        let renderer = try CardFactory.renderer(c)
        source =
            acceleration.map { ScriptedSource(acceleration: $0, rate: rate, clock: clock) }
            ?? ScriptedSource(path: path, rate: rate, clock: clock)
        sink = RecordingSink(width: renderer.pixelWidth, height: renderer.pixelHeight, clock: clock)
        sink.audience = audience
        notifier = RecordingNotifier(clock: clock, watchdogSeconds: watchdogSeconds)
        signals = ScriptedSignals(clock: clock)
        channel = bus ? ScriptedChannel(clock: clock) : nil
        let parts = Pipeline.Parts(
            source: sensor ?? source, sink: sink, renderer: renderer, motion: MotionConfiguration(c),
            fps: fps, demand: demand)
        pipeline = Pipeline(
            parts: parts, trace: trace, log: log.logger(), notifier: notifier, clock: { clock.now },
            wait: clock.pipelineWait, bus: channel, frameTime: { clock.nanoseconds })
    }

    /// Runs the loop until `t` seconds (or a stop, a reload, the sink's end).
    @discardableResult
    package func run(until t: Double) -> Pipeline.Outcome {
        pipeline.run(signals: signals, until: t)
    }
}
