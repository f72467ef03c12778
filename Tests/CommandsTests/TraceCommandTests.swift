import Testing
@testable import Commands
@testable import Runtime
import Tracing

/// The command lines of `shimmerd replay` and `shimmerd plot`.
@Test(arguments: [
    (["replay"], "missing TRACE.jsonl"),
    (["replay", "t.jsonl"], "missing --out PATH: DIR/ or an existing directory (PNG frames), FILE.png or FILE.apng"),
    (["replay", "t.jsonl", "--out", "x/", "--from", "both"], "expected samples or frames"),
    (["replay", "t.jsonl", "u.jsonl", "--out", "x/"], "unexpected argument"),
    // A name of no kind replay writes is refused, naming the kinds (it would become a
    // directory of PNGs called r.mp4).
    (["replay", "t.jsonl", "--out", "r.mp4"], "--out r.mp4: not an output replay knows by its name; it writes DIR/ or an existing directory"),
    (["replay", "t.jsonl", "--out", "frames-not-made-yet"], "FILE.raw or - (raw XRGB8888 frames)"),
    (["plot", "--out", "x.svg"], "missing TRACE.jsonl"),
    (["plot", "t.jsonl", "--out", "x.svg", "--fps", "3"], "unknown option --fps"),
])
func traceCommandUsageErrors(_ args: [String], _ mention: String) {
    let f = dispatchFailure(args)
    #expect(f?.status == .usage && f?.message.contains(mention) == true, "\(f?.message ?? "no failure")")
}

/// `.` and `/` are existing directories, whatever their names say.
@Test(arguments: [("-", "raw"), ("v.raw", "raw"), ("v.RAW", "raw"), ("a.png", "animation"), ("a.apng", "animation"),
                  ("frames/", "directory"), ("out.mp4/", "directory"), (".", "directory"), ("/", "directory")])
func replayOutputKindFollowsThePath(_ path: String, _ kind: String) throws {
    guard case .command(let c) = try ShimmerdMain.dispatch(["replay", "t.jsonl", "--out", path]),
          let replay = c as? ReplayCommand else { Issue.record("not replay"); return }
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
          let replay = c as? ReplayCommand else { Issue.record("not replay"); return }
    #expect(replay.printSize && replay.output == nil)
    #expect(ReplayCommand.rate(15) == "15" && ReplayCommand.rate(12.5) == "12.5" && ReplayCommand.rate(29.97) == "29.97")
}
