import LinuxSystem
import Logging
import LoopTestSupport
import Motion
import Output
import Runtime
import Testing

/// The daemon's loop on the loop kit (Tests/LoopTestSupport): a scripted sensor, a
/// recording sink, signals and a service manager on a manual clock. Minutes of the
/// daemon's time run in milliseconds, and every run gives the same frames and lines.
struct PipelinePacingTests {
    /// Frames at most `Sink.fps`, with 0.1 % of slack (`FramePacer`).
    static func expectPaced(_ times: [Double], fps: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(b - a >= 0.999 / fps - 1e-9, "frames at \(a) and \(b) s", sourceLocation: sourceLocation)
        }
    }

    @Test func theFirstFrameGoesOutAtOnceAndReadyFollowsIt() throws {
        let loop = try LoopHarness()
        loop.run(until: 1)
        #expect(loop.sink.frameTimes.first == 0)
        #expect(
            loop.notifier.sent.first?.state
                == "READY=1\nSTATUS=sensor: scripted accelerometer; sink: recording; 1 frames")
        #expect(loop.notifier.sent.first?.at == 0)
    }

    @Test func aDeviceLyingStillGetsNoFrameAfterThePictureSettles() throws {
        let loop = try LoopHarness(path: .still)
        loop.run(until: 10)
        #expect(loop.sink.frames.count >= 1)
        #expect(loop.sink.frameTimes.allSatisfy { $0 < 1 })
        // Every reading was taken all the same: 100 a second, each a sample but the first
        // nine, which gather the baseline.
        #expect(loop.source.readingsDelivered == 1000)
        #expect(loop.pipeline.samples == 991)
    }

    @Test(arguments: [15.0, 30, 60])
    func aMovingDeviceGetsAtMostFpsFrames(fps: Double) throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 1, over: 2), fps: fps)
        loop.run(until: 5)
        let moving = loop.sink.frameTimes.filter { $0 >= 1 && $0 <= 3 }
        Self.expectPaced(loop.sink.frameTimes, fps: fps)
        #expect(Double(moving.count) <= 2 * fps + 1)
        #expect(Double(moving.count) >= fps)  // it moves all along: frames all along
    }

    @Test func framesAreNumberedOneByOneAndStampedWithTheClock() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 0.5, over: 1))
        loop.run(until: 3)
        let frames = loop.sink.frames
        #expect(frames.count > 10)
        #expect(frames.map(\.info.number) == Array(1...UInt64(frames.count)))
        for f in frames {
            #expect(f.info.timeNanoseconds == UInt64((f.at * 1e9).rounded()))
        }
        #expect(loop.pipeline.frames == UInt64(frames.count))
    }

    @Test func theCardFollowsTheTiltAndStopsWhereTheDeviceStops() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 0.5, over: 1))
        loop.run(until: 6)
        let origin = FocalPoint.cardOrigin(
            width: FocalPoint.cardWidth, height: FocalPoint.cardHeight(width: FocalPoint.cardWidth))
        let first = try #require(loop.sink.frames.first), last = try #require(loop.sink.frames.last)
        #expect(abs(first.info.focalX - origin.x) < 1e-9 && abs(first.info.focalY - origin.y) < 1e-9)
        // 0.2 rad of roll is the mapper's whole range: the full offset, sideways.
        #expect(abs(last.info.focalX - origin.x) > FocalMapper.defaultMaxOffsetPoints / 2)
        #expect(last.at < 4)
        #expect(loop.sink.frameTimes.filter { $0 > 4 }.isEmpty)
    }

    @Test func aFrameTheSinkCannotTakeGoesOutAsSoonAsItCan() throws {
        let loop = try LoopHarness(path: .still)
        loop.sink.isReadyForFrame = false
        loop.run(until: 1)
        #expect(loop.sink.frames.isEmpty)
        #expect(!loop.notifier.sent.contains { $0.state.hasPrefix("READY=1") })
        loop.sink.isReadyForFrame = true
        loop.run(until: 2)
        #expect(loop.sink.frameTimes == [1])
        #expect(loop.notifier.sent.first { $0.state.hasPrefix("READY=1") }?.at == 1)
    }

    /// A reader that was busy gets the picture it missed once it catches up, though
    /// nothing moves any more.
    @Test func aReaderThatCatchesUpGetsTheNewestPicture() throws {
        let loop = try LoopHarness(path: .still)
        loop.sink.willDeliver(.dropped(.readerBusy))
        loop.sink.isBacklogged = true
        loop.run(until: 1)
        #expect(loop.sink.drops.map(\.at) == [0])
        #expect(loop.sink.frames.isEmpty)
        loop.sink.isBacklogged = false
        loop.run(until: 2)
        #expect(loop.sink.frameTimes == [1])
    }

    @Test func newSinkMemoryIsPaintedAtOnceThoughNothingMoves() throws {
        let loop = try LoopHarness(path: .still)
        loop.run(until: 2)
        let before = loop.sink.frames.count
        loop.sink.targetGeneration += 1
        loop.run(until: 3)
        #expect(loop.sink.frames.count == before + 1)
        #expect(loop.sink.frameTimes.last == 2)
        #expect(loop.sink.maintenanceCalls > 0)
    }

    @Test func aDeviceAtRestIsReadSlowlyAndAtFullRateOnceItMoves() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 6, over: 1))
        loop.run(until: 5)
        // The first nil is the pipeline's own at its start (a source carried over may be idle).
        #expect(loop.source.idlePeriods == [nil, 0.1])
        #expect(loop.log.messages(containing: "device still: reading every 0.1 s").count == 1)
        loop.run(until: 8)
        #expect(loop.source.idlePeriods.prefix(3) == [nil, 0.1, nil])
        #expect(loop.log.messages(containing: "device moving: full rate").count == 1)
    }
}

/// What became of frames the sink did not deliver: a line a second at most per cause.
struct PipelineSinkFailureTests {
    @Test func dropsAreCountedAndSaidOnceASecond() throws {
        let loop = try LoopHarness(path: .roll(0.3, from: 0.5, over: 3))
        loop.sink.willDeliver(.dropped(.noReader), times: 10_000)
        loop.run(until: 4)
        let drops = loop.sink.drops
        let lines = loop.log.logged.filter { $0.message.hasPrefix("frame dropped: no reader") }
        #expect(drops.count > 60)
        // One at the first drop (t = 0), then at most one a second.
        #expect(lines.count >= 3 && lines.count <= 5)
        #expect(lines.allSatisfy { $0.level == .warning && $0.metadata == ["sink": "recording"] })
        #expect(lines.dropFirst().allSatisfy { $0.message.contains("more since the last report") })
        #expect(lines.first?.message == "frame dropped: no reader; 1 dropped in all")
        #expect(loop.sink.frames.isEmpty)
    }

    @Test func theRateLimitOfTheSinkIsNoNewsAndSaidAtDebugLevel() throws {
        let loop = try LoopHarness(path: .roll(0.3, from: 0.5, over: 2))
        loop.sink.willDeliver(.dropped(.rateLimit), times: 10_000)
        loop.run(until: 3)
        let lines = loop.log.logged.filter { $0.message.hasPrefix("frame dropped:") }
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.level == .debug })
    }

    @Test func aFailingSinkIsRetriedWithALineASecond() throws {
        let loop = try LoopHarness(path: .roll(0.3, from: 0.5, over: 3))
        loop.sink.willFail(SinkError(sink: "recording", "the device is busy"), times: 10_000)
        loop.run(until: 4)
        let lines = loop.log.logged.filter { $0.level == .error }
        #expect(lines.count >= 3 && lines.count <= 5)
        // Nothing was published: every line is about frame 1.
        #expect(lines.first?.message == "frame 1 not published: recording: the device is busy")
        #expect(lines.allSatisfy { $0.message.hasPrefix("frame 1 not published") })
        #expect(loop.pipeline.frames == 0)
    }

    @Test func aSinkThatFailsForGoodEndsTheRunAtOnce() throws {
        let loop = try LoopHarness(path: .still)
        loop.sink.willFail(SinkError(sink: "recording", "the reader went away", permanent: true))
        #expect(loop.run(until: 10) == .finished)
        // The failed frame was the first, at 0 s; the run ends at the next wakeup.
        #expect(loop.clock.now == 0.01)
        #expect(loop.sink.frames.isEmpty)
        #expect(loop.log.lines == ["shimmerd: recording: the reader went away; stopping sink=recording"])
    }
}

/// What the signals of `DaemonSignals` do to the loop, at the moment they arrive.
struct PipelineSignalTests {
    @Test func sigtermStopsTheLoopWhenItArrives() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 0, over: 5))
        loop.signals.send(.terminate, at: 2.5)
        #expect(loop.run(until: 10) == .finished)
        #expect(loop.clock.now == 2.5)
        #expect(loop.log.lines.last == "shimmerd: signal 15: stopping")
        #expect(loop.sink.frameTimes.allSatisfy { $0 < 2.5 })
    }

    @Test func sighupAsksForAReload() throws {
        let loop = try LoopHarness()
        loop.signals.send(.hangup, at: 1.5)
        #expect(loop.run(until: 10) == .reload)
        #expect(loop.clock.now == 1.5)
    }

    @Test func aStopOutranksAReloadThatCameWithIt() throws {
        let loop = try LoopHarness()
        loop.signals.send(.hangup, at: 1)
        loop.signals.send(.terminate, at: 1)
        #expect(loop.run(until: 10) == .finished)
        #expect(loop.clock.now == 1)
    }

    /// A reload that fails leaves the pipeline running exactly as it was: no extra frame,
    /// no early heartbeat.
    @Test func aPipelineRunAgainAfterAReloadGoesOnWhereItWas() throws {
        let loop = try LoopHarness(path: .still, watchdogSeconds: 2)
        loop.signals.send(.hangup, at: 1.5)
        #expect(loop.run(until: 10) == .reload)
        let frames = loop.sink.frames.count
        loop.run(until: 3)
        #expect(loop.sink.frames.count == frames)
        // Every second from the start, none at the reload (1.5 s).
        #expect(loop.notifier.watchdogTimes == [0, 1, 2])
    }

    @Test func sigusr1RecapturesTheBaselineAndTheCardEasesHome() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 0.5, over: 1))
        loop.signals.send(.user1, at: 3)
        loop.run(until: 8)
        #expect(loop.log.messages(containing: "SIGUSR1: recapturing the baseline").count == 1)
        let origin = try #require(loop.sink.frames.first).info
        let beforeRecapture = try #require(loop.sink.frames.last { $0.at < 3 }).info
        let last = try #require(loop.sink.frames.last).info
        #expect(abs(beforeRecapture.focalX - origin.focalX) > 10)
        #expect(abs(last.focalX - origin.focalX) < 0.5 && abs(last.focalY - origin.focalY) < 0.5)
        #expect(try #require(loop.sink.frames.last).at > 3)
    }

    @Test func sigusr2GoesToTheSinkAndTheLoopGoesOn() throws {
        let loop = try LoopHarness()
        loop.signals.send(.user2, at: 1)
        #expect(loop.run(until: 2) == .finished)
        #expect(loop.sink.consoleSwitches == 1)
        #expect(loop.clock.now == 2)
    }
}

/// WATCHDOG=1 comes from the loop itself, every half of `WatchdogSec`.
struct PipelineWatchdogTests {
    @Test func theLoopFeedsTheWatchdogEveryHalfPeriod() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 1, over: 2), watchdogSeconds: 2)
        loop.run(until: 4.5)
        let beats = loop.notifier.watchdogTimes
        #expect(beats.first == 0)
        #expect(beats.count == 5)
        #expect(zip(beats, beats.dropFirst()).allSatisfy { abs($1 - $0 - 1) < 1e-6 })
    }

    @Test func withoutAWatchdogNoneIsSent() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 1, over: 2))
        loop.run(until: 4)
        #expect(loop.notifier.watchdogTimes.isEmpty)
    }

    /// Idle, the loop wakes for the heartbeat and for nothing of its own.
    @Test func anIdleLoopStillFeedsTheWatchdogAndWakesForNothingElse() throws {
        let loop = try LoopHarness(audience: .display(unseenBecause: "the display is off"), watchdogSeconds: 4)
        loop.run(until: 10.5)
        let beats = loop.notifier.watchdogTimes
        #expect(beats.count == 6)
        #expect(zip(beats, beats.dropFirst()).allSatisfy { abs($1 - $0 - 2) < 1e-6 })
        #expect(loop.clock.waits(in: 0.5...10.5).count <= 6)
        #expect(loop.sink.frames.isEmpty)
    }
}
