import Motion
import Sensors
import Testing
import Tracing

@testable import Runtime

@Test(arguments: [("0", 0), ("4096", 4096), ("512K", 512 << 10), ("64m", 64 << 20), ("1G", 1 << 30), ("1T", 1 << 40)])
func traceMaxSizeAcceptsBytesAndSuffixes(_ text: String, _ bytes: Int) throws {
    let c = try parse("[Trace]\nmax_size = \(text)\n")
    #expect(c.trace.maxSize == bytes)
}

@Test(arguments: ["100", "4095", "2T", "-1", "1.5M", "lots"])
func traceMaxSizeRejectsTooSmallOrUnreadable(_ text: String) {
    let f = failure { _ = try parse("[Trace]\nmax_size = \(text)\n", file: "t.conf") }
    #expect(f?.status == .configuration && f?.message.contains("t.conf:2") == true)
}

@Test func traceSpeedIsANumberOrMax() throws {
    #expect(Configuration().sensor.traceSpeed == 1)
    #expect(try parse("[Sensor]\ntrace_speed = max\n").sensor.traceSpeed == nil)
    #expect(try parse("[Sensor]\ntrace_speed = 2.5\n").sensor.traceSpeed == 2.5)
    #expect(failure { _ = try parse("[Sensor]\ntrace_speed = 0\n") }?.status == .configuration)
}

/// The trace clock moves only by the waits asked for, lands exactly on each reading's
/// recorded time, and at `max` never sleeps (the real clock here never moves).
@Test func traceSourceDeliversEachReadingAtItsRecordedTime() {
    let times = [0.1, 0.30000000000000004, 0.7, 0.7, 1.3]
    var entries: [TraceEntry] = times.enumerated().map { i, t in
        .sample(TraceRecord.Sample(t: t, seq: i, accel: [0, -9.8, Double(i)], dpitch: 0, droll: 0, focal: [0, 0]))
    }
    entries.insert(.reading(TraceRecord.Reading(t: 0.05, accel: [0, -9.8, -1], use: "baseline")), at: 0)
    let clock = TraceClock(speed: nil, realClock: { 0 })
    let source = TraceSource(path: "t.jsonl", contents: TraceContents(entries: entries), clock: clock)
    #expect(source.readings.count == 6 && source.isComplete)
    var delivered: [(Double, Double)] = []
    var steps = 0
    while !source.isExhausted && steps < 1000 {
        for case .motion(.acceleration(let a, _, _)) in source.handle(now: clock.now, readable: []) {
            delivered.append((clock.now, a.z))
        }
        // The loop's own timers cut waits short too (frames, heartbeat): 1/60 s here.
        let timeout = min(source.nextTimeout(now: clock.now), 1.0 / 60)
        _ = clock.wait([], timeoutSeconds: timeout)
        steps += 1
    }
    #expect(delivered.map(\.0) == [0.05] + times)
    #expect(delivered.map(\.1) == [-1, 0, 1, 2, 3, 4])
}

/// `gyro` records are replayed as the gyroscope, in file order with the readings: one at
/// the same `t` as a reading comes first.
@Test func traceSourceReplaysGyroRecordsInFileOrder() {
    let entries: [TraceEntry] = [
        .reading(TraceRecord.Reading(t: 0.01, accel: [0, 0, -9.8], use: "baseline")),
        .gyro(TraceRecord.Gyro(t: 0.02, anglvel: [0.1, 0, 0])),
        .reading(TraceRecord.Reading(t: 0.02, accel: [0, 0.1, -9.8], use: "baseline")),
        .gyro(TraceRecord.Gyro(t: 0.025, anglvel: [0.2, 0, 0])),
        .sample(TraceRecord.Sample(t: 0.03, seq: 0, accel: [0, 0.2, -9.8], dpitch: 0, droll: 0, focal: [0, 0])),
    ]
    let clock = TraceClock(speed: nil, realClock: { 0 })
    let source = TraceSource(path: "t.jsonl", contents: TraceContents(entries: entries), clock: clock)
    #expect(source.readings.count == 3 && source.gyroCount == 2)
    var order: [String] = []
    var steps = 0
    while !source.isExhausted && steps < 100 {
        for e in source.handle(now: clock.now, readable: []) {
            switch e {
            case .motion(.angularVelocity(let w, _)): order.append("gyro \(w.x) at \(clock.now)")
            case .motion(.acceleration(let a, _, _)): order.append("accel \(a.y) at \(clock.now)")
            default: break
            }
        }
        _ = clock.wait([], timeoutSeconds: source.nextTimeout(now: clock.now))
        steps += 1
    }
    #expect(
        order == [
            "accel 0.0 at 0.01", "gyro 0.1 at 0.02", "accel 0.1 at 0.02", "gyro 0.2 at 0.025", "accel 0.2 at 0.03",
        ])
}
