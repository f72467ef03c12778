import Foundation
import LoopTestSupport
import Motion
import Runtime
import TestSupport
import Testing
import Tracing

/// A new baseline taken by itself (`Attitude.recapture_after`, `Attitude.recapture_angle`),
/// through the loop and into its trace: a device folded 40 degrees and left there.
struct PipelineRecaptureTests {
    /// Flat for 2 s, then folded 40 degrees about its x axis and left there.
    static func fold(_ t: Double) -> Vector3 {
        let angle = t < 2 ? 0 : 40 * degree
        return Vector3(0, -standardGravity * sin(angle), -standardGravity * cos(angle))
    }

    static func run(_ configure: @escaping (inout Configuration) -> Void = { _ in }) throws -> (
        LoopHarness, [TraceEntry]
    ) {
        let scratch = ScratchDirectory("loop-recapture")
        defer { scratch.remove() }
        let path = scratch.file("trace.jsonl")
        let log = MemoryLogHandler()
        let trace = try TraceWriter(path: path, log: log.logger())
        let loop = try LoopHarness(acceleration: fold, trace: trace, configure: configure)
        loop.run(until: 8)
        trace.close()
        return (loop, try TraceReader.read(path: path).entries)
    }

    @Test func restingFarFromTheBaselineCapturesANewOne() throws {
        let (loop, entries) = try Self.run()
        let recaptures = entries.compactMap { if case .recapture(let r) = $0 { r } else { nil } }
        #expect(recaptures.count == 1)
        let r = try #require(recaptures.first)
        #expect(r.reason == "rested 3 s at 40 degrees from the baseline")
        #expect(r.t >= 5 && r.t <= 5.5)
        #expect(
            loop.log.messages(containing: "recapturing the baseline: rested 3 s at 40 degrees from the baseline").count
                == 1)
        // The new baseline is the folded pose: the samples after it are level again.
        let later = entries.compactMap { if case .sample(let s) = $0, s.t > r.t + 0.5 { s } else { nil } }
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { abs($0.dpitch) < 1e-3 && abs($0.droll) < 1e-3 })
    }

    /// Turned off, the card stays pinned at the clamp.
    @Test func withRecaptureAfterZeroTheBaselineStays() throws {
        let (_, entries) = try Self.run { $0.attitude.recaptureAfter = 0 }
        #expect(!entries.contains { if case .recapture = $0 { true } else { false } })
        let last = try #require(entries.compactMap { if case .sample(let s) = $0 { s } else { nil } }.last)
        #expect(abs(last.dpitch) > 0.6)
    }
}
