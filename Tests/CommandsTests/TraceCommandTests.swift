import TestSupport
import Testing
import Tracing

@testable import Commands
@testable import Runtime

/// The command lines of `shimmerd replay` and `shimmerd plot`.
@Test(arguments: [
    (["replay"], "missing TRACE.jsonl"),
    (["replay", "t.jsonl"], "missing --out PATH: DIR/ or an existing directory (PNG frames), FILE.png or FILE.apng"),
    (["replay", "t.jsonl", "--out", "x/", "--from", "both"], "expected samples or frames"),
    (["replay", "t.jsonl", "u.jsonl", "--out", "x/"], "unexpected argument"),
    // A name of no kind replay writes is refused, naming the kinds (it would become a
    // directory of PNGs called r.mp4).
    (
        ["replay", "t.jsonl", "--out", "r.mp4"],
        "--out r.mp4: not an output replay knows by its name; it writes DIR/ or an existing directory"
    ),
    (["replay", "t.jsonl", "--out", "frames-not-made-yet"], "FILE.raw or - (raw XRGB8888 frames)"),
    (["plot", "--out", "x.svg"], "missing TRACE.jsonl"),
    (["plot", "t.jsonl", "--out", "x.svg", "--fps", "3"], "unknown option --fps"),
])
func traceCommandUsageErrors(_ args: [String], _ mention: String) {
    let f = dispatchFailure(args)
    #expect(f?.status == .usage && f?.message.contains(mention) == true, "\(f?.message ?? "no failure")")
}

/// `.` and `/` are existing directories, whatever their names say.
@Test(arguments: [
    ("-", "raw"), ("v.raw", "raw"), ("v.RAW", "raw"), ("a.png", "animation"), ("a.apng", "animation"),
    ("frames/", "directory"), ("out.mp4/", "directory"), (".", "directory"), ("/", "directory"),
])
func replayOutputKindFollowsThePath(_ path: String, _ kind: String) throws {
    guard case .command(let c) = try ShimmerdMain.dispatch(["replay", "t.jsonl", "--out", path]),
        let replay = c as? ReplayCommand
    else { Issue.record("not replay"); return }
    switch replay.output {
    case .raw(let p): #expect(kind == "raw" && p == path)
    case .animation(let p): #expect(kind == "animation" && p == path)
    case .directory(let p): #expect(kind == "directory" && p == path)
    case nil: Issue.record("no output for \(path)")
    }
    #expect(replay.source == .samples)
}

@Test func replayPrintSizeNeedsNoOutput() throws {
    guard case .command(let c) = try ShimmerdMain.dispatch(["replay", "t.jsonl", "--print-size"]),
        let replay = c as? ReplayCommand
    else { Issue.record("not replay"); return }
    #expect(replay.printSize && replay.output == nil)
    #expect(
        ReplayCommand.rate(15) == "15" && ReplayCommand.rate(12.5) == "12.5" && ReplayCommand.rate(29.97) == "29.97")
}

private func recorded(width: Double, fps: Double?) -> TraceContents {
    TraceContents(entries: [
        .header(
            TraceRecord.Header(
                sensor: .init(selector: "auto", rate: 60),
                card: .init(width: width, height: 150, scale: 1, origin: [100, 140]),
                mapper: .init(rollRange: 0.2, pitchRange: 0.1, maxOffset: 100, clamp: true), attitude: nil,
                sink: fps.map { .init(type: "null", fps: $0) }, shimmerd: nil))
    ])
}

/// replay and plot take the recording's card and frame rate from the header's typed
/// values, checked against the keys' ranges as text is.
@Test func theHeadersCardAndFrameRateBecomeTheConfiguration() throws {
    let c = try TraceInput.recordedConfiguration(recorded(width: 300, fps: 15), trace: "t.jsonl", command: "replay")
    #expect(c.card.width == 300 && c.card.height == 150 && c.card.scale == 1 && c.sink.fps == 15)
    #expect(c.card.origin?.x == 100 && c.card.origin?.y == 140)
    let defaults = try TraceInput.recordedConfiguration(TraceContents(), trace: "t.jsonl", command: "replay")
    #expect(defaults == Configuration())
}

@Test(arguments: [
    (-5.0, 30.0, "Card.width = \"-5.0\" is not a number from 1 to 10000"),
    (1e300, 30.0, "Card.width = \"1e+300\" is not a number from 1 to 10000"),
    (300.0, 5000.0, "Sink.fps = \"5000.0\" is not a number from 1 to 1000"),
])
func aHeaderOutsideTheKeysRangesIsBadInputData(_ width: Double, _ fps: Double, _ why: String) {
    let f = caught(Failure.self) {
        _ = try TraceInput.recordedConfiguration(recorded(width: width, fps: fps), trace: "t.jsonl", command: "plot")
    }
    #expect(
        f?.status == .dataError && f?.message == "plot: t.jsonl: the header's card or fps is unusable: " + why,
        "\(f?.message ?? "no failure")")
}
