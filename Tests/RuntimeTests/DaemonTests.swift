import Foundation
import LinuxSystem
import LoopTestSupport
import Motion
import Runtime
import TestSupport
import Testing

/// The whole daemon (`Daemon`: assembly, the loop, SIGHUP's transaction, the stop) on the
/// loop kit's host: its time, signals and service manager are the test's, and the
/// simulated sensor (`shimmerd demo`'s) paints into the null sink.
struct DaemonTests {
    static func configuration(_ change: (inout Configuration) -> Void = { _ in }) -> Configuration {
        var c = Configuration()
        c.card.scale = 1
        c.sink.type = .null
        c.sink.fps = 30
        change(&c)
        return c
    }

    @Test func aStopSaysWhatTheRunDid() throws {
        let d = DaemonHarness(Self.configuration(), path: .demo)
        d.signals.send(.terminate, at: 3)
        try d.run(for: nil)
        #expect(d.clock.now == 3)
        let frames = d.daemon.framesPublished
        #expect(frames > 30)
        // 60 readings a second (Sensor.rate), each a sample but the nine that gather the baseline.
        #expect(
            d.log.lines.suffix(2) == [
                "shimmerd: signal 15: stopping",
                "shimmerd: stopped after \(frames) frames and 171 samples",
            ])
        #expect(d.notifier.states.last == "STOPPING=1")
    }

    @Test func theRunEndsAfterItsDuration() throws {
        let d = DaemonHarness(Self.configuration())
        try d.run(for: 2)
        #expect(d.clock.now == 2)
        #expect(d.log.lines.last?.hasPrefix("shimmerd: stopped after 1 frame and ") == true)
    }

    @Test func theStartSaysWhatWasBuilt() throws {
        let d = DaemonHarness(Self.configuration())
        try d.run(for: 0.5)
        #expect(d.log.lines.first?.hasPrefix("shimmerd: card 350 x 233 px, ") == true)
        #expect(
            d.log.lines.first?.hasSuffix("; sink null; sensor simulated accelerometer (scripted tilt path)") == true)
        #expect(
            d.notifier.states.first
                == "READY=1\nSTATUS=sensor: simulated accelerometer (scripted tilt path); sink: null; 1 frames")
    }

    @Test func sighupWithTheSameSettingsKeepsTheSensorAndTheSink() throws {
        let d = DaemonHarness(Self.configuration())
        d.reloads = [.success(Self.configuration())]
        d.signals.send(.hangup, at: 1)
        try d.run(for: 2)
        #expect(
            d.log.messages(containing: "SIGHUP:")
                == ["SIGHUP: configuration reloaded (sensor kept, sink kept); capturing a new baseline"])
        let states = d.notifier.states
        let reloading = try #require(states.firstIndex(of: "RELOADING=1"))
        #expect(states[reloading + 1].hasPrefix("READY=1\nSTATUS="))
    }

    @Test func sighupWithNewCardSettingsRebuildsWhatChanged() throws {
        let d = DaemonHarness(Self.configuration())
        d.reloads = [.success(Self.configuration { $0.card.scale = 2 })]
        d.signals.send(.hangup, at: 1)
        try d.run(for: 2)
        #expect(
            d.log.messages(containing: "SIGHUP:")
                == ["SIGHUP: configuration reloaded (sensor kept); capturing a new baseline"])
        #expect(d.daemon.config.card.scale == 2)
        #expect(d.log.messages(containing: "card 700 x 467 px").count == 1)
    }

    @Test func aConfigurationThatCannotBeReadKeepsTheRunningOne() throws {
        let d = DaemonHarness(Self.configuration())
        d.reloads = [.failure(Failure(.configuration, "/etc/shimmerd/shimmerd.conf:3: unknown key Sink.colour"))]
        d.signals.send(.hangup, at: 1)
        try d.run(for: 2)
        #expect(
            d.log.messages(containing: "SIGHUP:")
                == [
                    "SIGHUP: configuration not reloaded, keeping the running one: /etc/shimmerd/shimmerd.conf:3: unknown key Sink.colour"
                ])
        #expect(d.notifier.states.contains("READY=1\nSTATUS=configuration reload failed; running the previous one"))
        #expect(d.clock.now == 2)
    }

    @Test func aConfigurationThatCannotStartKeepsTheRunningOne() throws {
        let scratch = ScratchDirectory("daemon-reload")
        defer { scratch.remove() }
        let d = DaemonHarness(Self.configuration())
        // A sink directory under a file: the png sink cannot be built.
        let file = try scratch.write("", to: "file")
        d.reloads = [
            .success(
                Self.configuration {
                    $0.sink.type = .png; $0.sink.path = file + "/frames"
                })
        ]
        d.signals.send(.hangup, at: 1)
        try d.run(for: 2)
        let lines = d.log.messages(containing: "SIGHUP:")
        #expect(lines.count == 1)
        #expect(
            lines.first?.hasPrefix("SIGHUP: the new configuration cannot start, keeping the running one: Sink.path = ")
                == true)
        #expect(d.daemon.config.sink.type == .null)
    }

    /// Frames are counted over the daemon's whole run, across reloads.
    @Test func framesAreCountedAcrossReloads() throws {
        let d = DaemonHarness(Self.configuration(), path: .demo)
        d.reloads = [.success(Self.configuration()), .success(Self.configuration())]
        d.signals.send(.hangup, at: 2)
        d.signals.send(.hangup, at: 4)
        try d.run(for: 6)
        let frames = d.daemon.framesPublished
        #expect(d.log.messages(containing: "configuration reloaded").count == 2)
        // 360 readings, less the nine of each of the three baselines (each reload takes one).
        #expect(d.log.lines.last == "shimmerd: stopped after \(frames) frames and 333 samples")
        #expect(frames > 60)
    }

    @Test func theDaemonFeedsTheWatchdogFromItsLoop() throws {
        let d = DaemonHarness(Self.configuration(), watchdogSeconds: 1)
        try d.run(for: 3.2)
        let beats = d.notifier.watchdogTimes
        #expect(beats.count == 7)
        #expect(zip(beats, beats.dropFirst()).allSatisfy { abs($1 - $0 - 0.5) < 1e-6 })
    }

    /// The trace's header says when the run started, by the host's wall clock.
    @Test func theTraceHeaderTakesTheHostsTime() throws {
        let scratch = ScratchDirectory("daemon-trace")
        defer { scratch.remove() }
        let path = scratch.file("run.jsonl")
        let d = DaemonHarness(Self.configuration { $0.trace.path = path })
        try d.run(for: 1)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first)
        #expect(header.contains("\"started\":\"2026-01-01T00:00:00Z\""))
    }
}
