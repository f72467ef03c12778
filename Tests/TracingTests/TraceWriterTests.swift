import Foundation
import Logging
import TestSupport
import Testing

@testable import Tracing

private let header = TraceRecord.Header(
    sensor: .init(selector: "auto", rate: 60),
    card: .init(width: 350, height: 350 * 2 / 3, scale: 2, origin: [175, 350 * 2 / 3]),
    mapper: .init(rollRange: 0.2, pitchRange: 0.1, maxOffset: 100, clamp: true),
    attitude: nil, sink: nil, shimmerd: "test", run: .init(started: "2025-01-01T00:00:00Z"))

@Test func rotatesBySizeKeepingHeaderAndBaselineInEveryFile() throws {
    let scratch = ScratchDirectory("shimmerd-trace")
    defer { scratch.remove() }
    let dir = scratch.path
    let path = dir + "/trace.jsonl"
    let log = Logger(label: "test", handler: DescriptorLogHandler(minimumLevel: .error))
    var seq = 0
    do {
        let w = try TraceWriter(path: path, log: log, maxSize: 4096, keep: 3)
        w.append(header)
        w.append(TraceRecord.Baseline(t: 0.1, up: [0, 1, 0]))
        for i in 0..<400 {
            w.append(
                TraceRecord.Sample(
                    t: Double(i) / 60, seq: i, accel: [0, -9.8, 0.1], dpitch: 0.01, droll: 0.02, focal: [175, 233]))
            seq = i
        }
        #expect(w.rotations >= 3)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    #expect(names == ["trace.jsonl", "trace.jsonl.1", "trace.jsonl.2"])
    var parts: [Int] = []
    var seqs: [Int] = []
    for name in ["trace.jsonl.2", "trace.jsonl.1", "trace.jsonl"] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
        // Each file stands alone: header first, then the baseline, then whole lines.
        let c = try TraceReader.parse(bytes, path: name)
        #expect(!c.truncatedLastLine)
        guard case .header(let h) = c.entries.first, case .baseline = c.entries.dropFirst().first else {
            Issue.record("\(name) does not start with header and baseline")
            continue
        }
        #expect(name == "trace.jsonl" || bytes.count < 4096 + 300)
        parts.append(h.run?.part ?? -1)
        seqs += c.samples.map(\.seq)
    }
    // The newest samples, in order, none lost between the kept files.
    #expect(parts == parts.sorted() && parts.allSatisfy { $0 > 0 })
    #expect(seqs.last == seq && seqs == Array(seqs.first!...seq))
}

@Test func noRotationWithoutMaxSize() throws {
    let scratch = ScratchDirectory("shimmerd-trace")
    defer { scratch.remove() }
    let dir = scratch.path
    let log = Logger(label: "test", handler: DescriptorLogHandler(minimumLevel: .error))
    do {
        let w = try TraceWriter(path: dir + "/t.jsonl", log: log)
        for i in 0..<200 { w.append(TraceRecord.Baseline(t: Double(i), up: [0, 1, 0])) }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["t.jsonl"])
    let c = try TraceReader.read(path: dir + "/t.jsonl")
    #expect(c.baselines.count == 200)
}
