import Testing
@testable import Commands
@testable import Runtime

/// The command lines of `shimmerd replay` and `shimmerd plot`.
@Test(arguments: [
    (["replay"], "missing TRACE.jsonl"),
    (["replay", "t.jsonl"], "missing --out"),
    (["replay", "t.jsonl", "--out", "x", "--from", "both"], "expected samples or frames"),
    (["replay", "t.jsonl", "u.jsonl", "--out", "x"], "unexpected argument"),
    (["plot", "--out", "x.svg"], "missing TRACE.jsonl"),
    (["plot", "t.jsonl", "--out", "x.svg", "--fps", "3"], "unknown option --fps"),
])
func traceCommandUsageErrors(_ args: [String], _ mention: String) {
    let f = dispatchFailure(args)
    #expect(f?.status == .usage && f?.message.contains(mention) == true, "\(f?.message ?? "no failure")")
}

@Test(arguments: [("-", "raw"), ("v.raw", "raw"), ("v.RAW", "raw"), ("a.png", "animation"), ("a.apng", "animation"),
                  ("frames", "directory"), ("out/", "directory")])
func replayOutputKindFollowsThePath(_ path: String, _ kind: String) throws {
    guard case .command(let c) = try ShimmerdMain.dispatch(["replay", "t.jsonl", "--out", path]),
          let replay = c as? ReplayCommand else { Issue.record("not replay"); return }
    switch replay.output {
    case .raw(let p): #expect(kind == "raw" && p == path)
    case .animation(let p): #expect(kind == "animation" && p == path)
    case .directory(let p): #expect(kind == "directory" && p == path)
    }
    #expect(replay.source == .samples)
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
            case .gyro(let w, _): order.append("gyro \(w.x) at \(clock.now)")
            case .sample(let a, _, _): order.append("accel \(a.y) at \(clock.now)")
            default: break
            }
        }
        _ = clock.wait([], timeoutSeconds: source.nextTimeout(now: clock.now))
        steps += 1
    }
    #expect(order == ["accel 0.0 at 0.01", "gyro 0.1 at 0.02", "accel 0.1 at 0.02", "gyro 0.2 at 0.025", "accel 0.2 at 0.03"])
}
