import Glibc
import LinuxSystem
import Logging
import Motion
import Sensors
import TestSupport
import Testing
import Tracing

@testable import Runtime

/// The daemon loop's parts, each alone: what pending signals ask for, when a frame is
/// due, and what the motion stage makes of sensor events.
struct SignalRequestTests {
    @Test func nothingPendingAsksNothing() {
        #expect(SignalRequest([]) == nil)
    }

    @Test(arguments: [
        ([Signal.hangup, .terminate, .user1], SignalRequest.stop(.terminate)),
        ([.user1, .interrupt], .stop(.interrupt)),
        ([.user1, .hangup], .reload),
        ([.user1], .recapture),
    ])
    func aStopOutranksAReloadWhichOutranksARecapture(pending: [Signal], expected: SignalRequest) {
        #expect(SignalRequest(pending) == expected)
    }

    /// SIGUSR2 is the console's switch signal, handed to the sink beside the others: it
    /// neither stops the daemon nor hides a stop that came with it.
    @Test func theConsoleSwitchSignalIsNoStop() {
        #expect(SignalRequest([.user2]) == nil)
        #expect(SignalRequest([.user2, .user1]) == .recapture)
        #expect(SignalRequest([.user2, .terminate]) == .stop(.terminate))
    }
}

struct FramePacerTests {
    @Test func theFirstFrameIsOwedAtOnceEvenWithNothingMoving() {
        var pacer = FramePacer(fps: 60, now: 0)
        #expect(pacer.frameIn(now: 0, moving: false, sinkReady: true, sampleIn: 1) == 0)
        let due1 = pacer.frame(at: 0, moving: false, sinkReady: true)
        #expect(due1)
        pacer.owesFrame = false
        let due2 = pacer.frame(at: 0.5, moving: false, sinkReady: true)
        #expect(!due2)
        #expect(pacer.frameIn(now: 0.5, moving: false, sinkReady: true, sampleIn: 1) == nil)
    }

    @Test func atMostFpsFrames() {
        var pacer = FramePacer(fps: 10, now: 0)
        pacer.owesFrame = false
        let due3 = pacer.frame(at: 0.05, moving: true, sinkReady: true)
        #expect(due3)
        let tooSoon = pacer.frame(at: 0.10, moving: true, sinkReady: true)  // 0.05 s after
        #expect(!tooSoon)
        let due4 = pacer.frame(at: 0.15, moving: true, sinkReady: true)
        #expect(due4)
    }

    @Test func aSinkThatCannotTakeAFrameHoldsItAndSetsNoTimer() {
        var pacer = FramePacer(fps: 60, now: 0)
        pacer.owesFrame = false
        let due5 = pacer.frame(at: 1, moving: true, sinkReady: false)
        #expect(!due5)
        #expect(pacer.frameIn(now: 1, moving: true, sinkReady: false, sampleIn: 0.5) == nil)
        let due6 = pacer.frame(at: 1.001, moving: true, sinkReady: true)
        #expect(due6)
    }

    @Test func aFrameWaitsForASampleDueWithinOneInterval() {
        var pacer = FramePacer(fps: 50, now: 0)
        pacer.owesFrame = false
        _ = pacer.frame(at: 0, moving: true, sinkReady: true)
        // Next frame due at 0.02; a sample at 0.025 comes within an interval: wait for it.
        #expect(pacer.frameIn(now: 0.01, moving: true, sinkReady: true, sampleIn: 0.015) == nil)
        // A sample 0.1 s away is too far: the frame timer stands.
        #expect(
            pacer.frameIn(now: 0.01, moving: true, sinkReady: true, sampleIn: 0.1).map { abs($0 - 0.01) < 1e-12 }
                == true)
    }
}

struct MotionStageTests {
    func stage() throws -> MotionStage {
        var c = Configuration()
        c.attitude.filter = .none
        c.attitude.baselineSamples = 1
        return MotionStage(MotionConfiguration(c))
    }

    @Test func noiseUnderTheDeadBandDoesNotMoveTheTarget() throws {
        let m = try stage()
        _ = m.take(.reading(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)  // the baseline
        // A few thousandths of a degree.
        _ = m.take(.reading(Vector3(0.0005, 0, -9.80665), at: 0.01), at: 0.01, trace: nil)
        #expect(m.isSettled(at: 0.01))
        _ = m.take(.reading(Vector3(0.5, 0, -9.80665), at: 0.02), at: 0.02, trace: nil)  // about 3 degrees
        #expect(!m.isSettled(at: 0.02))
    }

    /// A wakeup that delivers a buffered batch: each reading is used, and traced, at its
    /// own time, not at the wakeup's.
    @Test func readingsAreTakenAtTheirOwnTimes() throws {
        let m = try stage()
        let scratch = ScratchDirectory("shimmerd-motion-stage")
        defer { scratch.remove() }
        let path = scratch.file("trace.jsonl")
        do {
            let w = try TraceWriter(
                path: path, log: Logger(label: "test", handler: DescriptorLogHandler(minimumLevel: .error)))
            let up = Vector3(0, 0, -9.80665)
            _ = m.take(.rate(Vector3(0, 0, 0.1), at: 0.985), at: 1, trace: w)
            _ = m.take(.reading(up, at: 0.99), at: 1, trace: w)
            _ = m.take(.rate(Vector3(0, 0, 0.1), at: 0.995), at: 1, trace: w)
            w.close()
        }
        let c = try TraceReader.read(path: path)
        #expect(c.gyros.map(\.t) == [0.985, 0.995])
        #expect(c.entries.compactMap { if case .sample(let s) = $0 { s.t } else { nil } } == [0.99])
    }

    /// The gyroscope's device removed: the fusion stops at once, the accelerometer goes on.
    @Test func aGyroscopeThatWentAwayStopsTheFusionAtOnce() throws {
        let m = try stage()
        let up = Vector3(0, 0, -9.80665)
        for i in 0..<10 {
            let t = Double(i) * 0.01
            _ = m.take(.rate(.zero, at: t), at: t, trace: nil)
            _ = m.take(.reading(up, at: t), at: t, trace: nil)
        }
        #expect(m.isFusing)
        _ = m.take(.gyroDetached("iio:device3 (gyro_3d)", reason: "udev remove event"), at: 0.1, trace: nil)
        _ = m.take(.reading(up, at: 0.11), at: 0.11, trace: nil)
        #expect(!m.isFusing)
    }

    @Test func aDetachedSensorEasesTheCardHome() throws {
        let m = try stage()
        _ = m.take(.reading(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)
        _ = m.take(.reading(Vector3(1, 0, -9.80665), at: 0.01), at: 0.01, trace: nil)
        let moved = m.frames(from: 0.01, for: 2)
        #expect(moved != m.origin && m.isSettled(at: 2.01))
        guard case .sensorState = m.take(.detached("iio:device0", reason: "removed"), at: 1, trace: nil) else {
            Issue.record("no state change")
            return
        }
        #expect(!m.isSettled(at: 2.01))
        let home = m.frames(from: 2.01, for: 2)
        #expect(home == m.origin && m.isSettled(at: 4.01))
    }

    @Test func aRecaptureMakesTheNextReadingTheLevel() throws {
        let m = try stage()
        _ = m.take(.reading(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)
        _ = m.take(.motion(.recapture("test", at: 1)), at: 1, trace: nil)
        _ = m.take(.reading(Vector3(1, 0, -9.80665), at: 1.01), at: 1.01, trace: nil)  // the new baseline
        _ = m.take(.reading(Vector3(1, 0, -9.80665), at: 1.02), at: 1.02, trace: nil)
        let level = m.frames(from: 1.02, for: 0.01)
        #expect(m.isSettled(at: 1.03) && level == m.origin)
    }
}
