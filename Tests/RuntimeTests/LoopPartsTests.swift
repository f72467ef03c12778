import Glibc
import Motion
import Sensors
import Testing
import TestSupport
import Tracing
@testable import Runtime

/// The daemon loop's parts, each alone: what pending signals ask for, when a frame is
/// due, and what the motion stage makes of sensor events.
struct SignalRequestTests {
    @Test func nothingPendingAsksNothing() {
        #expect(SignalRequest([]) == nil)
    }

    @Test(arguments: [
        ([SIGHUP, SIGTERM, SIGUSR1], SignalRequest.stop(SIGTERM)),
        ([SIGUSR1, SIGINT], .stop(SIGINT)),
        ([SIGUSR1, SIGHUP], .reload),
        ([SIGUSR1], .recapture),
    ])
    func aStopOutranksAReloadWhichOutranksARecapture(pending: [Int32], expected: SignalRequest) {
        #expect(SignalRequest(pending) == expected)
    }
}

struct FramePacerTests {
    @Test func theFirstFrameIsOwedAtOnceEvenWithNothingMoving() {
        var pacer = FramePacer(fps: 60, now: 0)
        #expect(pacer.frameIn(now: 0, moving: false, sinkReady: true, sampleIn: 1) == 0)
        #expect(pacer.frame(at: 0, moving: false, sinkReady: true) == 0)
        pacer.owesFrame = false
        #expect(pacer.frame(at: 0.5, moving: false, sinkReady: true) == nil)
        #expect(pacer.frameIn(now: 0.5, moving: false, sinkReady: true, sampleIn: 1) == nil)
    }

    @Test func atMostFpsFramesAndTheStepCoversTheTimeSinceTheLastOne() {
        var pacer = FramePacer(fps: 10, now: 0)
        pacer.owesFrame = false
        #expect(pacer.frame(at: 0.05, moving: true, sinkReady: true) == 0.05)
        #expect(pacer.frame(at: 0.10, moving: true, sinkReady: true) == nil)     // 0.05 s after: too soon
        let dt = pacer.frame(at: 0.15, moving: true, sinkReady: true)
        #expect(dt.map { abs($0 - 0.10) < 1e-12 } == true)
    }

    @Test func stillTimeIsNotStepped() {
        var pacer = FramePacer(fps: 10, now: 0)
        pacer.owesFrame = false
        #expect(pacer.frame(at: 5, moving: false, sinkReady: true) == nil)
        // The point starts moving at 5 s: its first step is from then, not from 0.
        #expect(pacer.frame(at: 5.02, moving: true, sinkReady: true).map { abs($0 - 0.02) < 1e-12 } == true)
    }

    @Test func aSinkThatCannotTakeAFrameHoldsItAndSetsNoTimer() {
        var pacer = FramePacer(fps: 60, now: 0)
        pacer.owesFrame = false
        #expect(pacer.frame(at: 1, moving: true, sinkReady: false) == nil)
        #expect(pacer.frameIn(now: 1, moving: true, sinkReady: false, sampleIn: 0.5) == nil)
        #expect(pacer.frame(at: 1.001, moving: true, sinkReady: true) != nil)
    }

    @Test func aFrameWaitsForASampleDueWithinOneInterval() {
        var pacer = FramePacer(fps: 50, now: 0)
        pacer.owesFrame = false
        _ = pacer.frame(at: 0, moving: true, sinkReady: true)
        // Next frame due at 0.02; a sample at 0.025 comes within an interval: wait for it.
        #expect(pacer.frameIn(now: 0.01, moving: true, sinkReady: true, sampleIn: 0.015) == nil)
        // A sample 0.1 s away is too far: the frame timer stands.
        #expect(pacer.frameIn(now: 0.01, moving: true, sinkReady: true, sampleIn: 0.1).map { abs($0 - 0.01) < 1e-12 } == true)
    }
}

struct MotionStageTests {
    func stage() throws -> MotionStage {
        var c = Configuration()
        c.attitude.filter = "none"
        c.attitude.baselineSamples = 1
        return MotionStage(try MotionConfiguration(c))
    }

    func sample(_ a: Vector3, at t: Double) -> AccelerometerService.Event { .sample(a, RawReading(raw: a), at: t) }

    @Test func noiseUnderTheDeadBandDoesNotMoveTheTarget() throws {
        var m = try stage()
        _ = m.take(sample(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)          // the baseline
        _ = m.take(sample(Vector3(0.0005, 0, -9.80665), at: 0.01), at: 0.01, trace: nil)  // a few thousandths of a degree
        #expect(m.isSettled)
        _ = m.take(sample(Vector3(0.5, 0, -9.80665), at: 0.02), at: 0.02, trace: nil)     // about 3 degrees
        #expect(!m.isSettled)
    }

    /// A wakeup that delivers a buffered batch: each reading is used, and traced, at its
    /// own time, not at the wakeup's.
    @Test func readingsAreTakenAtTheirOwnTimes() throws {
        var m = try stage()
        let scratch = ScratchDirectory("shimmerd-motion-stage")
        defer { scratch.remove() }
        let path = scratch.file("trace.jsonl")
        do {
            let w = try TraceWriter(path: path, log: Logger(label: "test", handler: LogHandler(minimumLevel: .error)))
            let up = Vector3(0, 0, -9.80665)
            _ = m.take(.gyro(Vector3(0, 0, 0.1), at: 0.985), at: 1, trace: w)
            _ = m.take(.sample(up, RawReading(raw: up), at: 0.99), at: 1, trace: w)
            _ = m.take(.gyro(Vector3(0, 0, 0.1), at: 0.995), at: 1, trace: w)
            w.close()
        }
        let c = try TraceReader.read(path: path)
        #expect(c.gyros.map(\.t) == [0.985, 0.995])
        #expect(c.entries.compactMap { if case .sample(let s) = $0 { s.t } else { nil } } == [0.99])
    }

    /// The gyroscope's device removed: the fusion stops at once, the accelerometer goes on.
    @Test func aGyroscopeThatWentAwayStopsTheFusionAtOnce() throws {
        var m = try stage()
        let up = Vector3(0, 0, -9.80665)
        for i in 0..<10 {
            let t = Double(i) * 0.01
            _ = m.take(.gyro(.zero, at: t), at: t, trace: nil)
            _ = m.take(sample(up, at: t), at: t, trace: nil)
        }
        #expect(m.isFusing)
        _ = m.take(.gyroDetached("iio:device3 (gyro_3d)", reason: "udev remove event"), at: 0.1, trace: nil)
        _ = m.take(sample(up, at: 0.11), at: 0.11, trace: nil)
        #expect(!m.isFusing)
    }

    @Test func aDetachedSensorEasesTheCardHome() throws {
        var m = try stage()
        _ = m.take(sample(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)
        _ = m.take(sample(Vector3(1, 0, -9.80665), at: 0.01), at: 0.01, trace: nil)
        for _ in 0..<200 { _ = m.advance(by: 0.01) }
        #expect(m.isSettled && m.advance(by: 0.01) != m.origin)
        guard case .sensorState = m.take(.detached("iio:device0", reason: "removed"), at: 1, trace: nil) else {
            Issue.record("no state change")
            return
        }
        #expect(!m.isSettled)
        for _ in 0..<200 { _ = m.advance(by: 0.01) }
        #expect(m.isSettled && m.advance(by: 0.01) == m.origin)
    }

    @Test func aRecaptureMakesTheNextReadingTheLevel() throws {
        var m = try stage()
        _ = m.take(sample(Vector3(0, 0, -9.80665), at: 0), at: 0, trace: nil)
        _ = m.take(.recapture("test"), at: 1, trace: nil)
        _ = m.take(sample(Vector3(1, 0, -9.80665), at: 1.01), at: 1.01, trace: nil)   // the new baseline
        _ = m.take(sample(Vector3(1, 0, -9.80665), at: 1.02), at: 1.02, trace: nil)
        #expect(m.isSettled && m.advance(by: 0.01) == m.origin)
    }
}
