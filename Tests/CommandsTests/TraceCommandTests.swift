import Testing
@testable import Commands
@testable import Runtime
import Tracing

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
