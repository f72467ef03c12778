import FoundationEssentials
import Testing
import Tracing

@testable import Commands

/// `shimmerd bench --json` is read by scripts (benchmarks/, docs/PERFORMANCE.md): its bytes
/// stay those Foundation's JSONEncoder wrote with `.prettyPrinted`, `.sortedKeys` and
/// `.convertToSnakeCase`, now that Tracing's writer and escaping lay it out.
struct BenchJSONTests {
    static func stats(_ base: Double) -> Benchmark.Stats {
        Benchmark.Stats([base, base * 1.5, base * 0.75, base * 2.25, 123_456.789])
    }

    static func results() -> [Benchmark.TargetResult] {
        let plain = Benchmark.CaseResult(
            target: "scale2", name: "move1", frames: 3000, ns: stats(4_321.5), dotsRepaintedPerFrame: 12.25,
            pixelsWrittenPerFrame: 3_456, nsPerPixel: 0.125, distinctColorsPerFrame: 11, tableHitsPerFrame: 0.1,
            tableMissesPerFrame: 1e-7, ratioToMemcpy: 2.5, threadCPUNs: nil, scanoutRowsPerFrame: nil)
        var idle = plain
        idle.name = "idle"
        idle.threadCPUNs = stats(99_000.5)
        var scanout = plain
        scanout.target = "drm1920x1080"
        scanout.scanoutRowsPerFrame = 17.5
        return [
            Benchmark.TargetResult(
                target: "scale2", width: 700, height: 440, dots: 175, kernel: "avx2", dotPixels: 41_000,
                memset: stats(1_000), memcpy: stats(2_000), memcpyCold: stats(3_000.25),
                memcpyIdle: stats(4_000), cases: [plain, idle], checksumsMatch: true),
            Benchmark.TargetResult(
                target: "drm1920x1080", width: 1920, height: 1080, dots: 175, kernel: "baseline",
                dotPixels: 41_000, memset: stats(0), memcpy: stats(1), memcpyCold: stats(2),
                memcpyIdle: stats(3), cases: [scanout], checksumsMatch: false),
            Benchmark.TargetResult(
                target: "scale1", width: 350, height: 220, dots: 175, kernel: "baseline", dotPixels: 0,
                memset: stats(5), memcpy: stats(6), memcpyCold: stats(7), memcpyIdle: stats(8),
                cases: [], checksumsMatch: true),
        ]
    }

    @Test func benchJSONHasTheBytesJSONEncoderGaveIt() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let expected = Array(try encoder.encode(Self.results()))
        let got = TraceJSON.document(Self.results())
        #expect(String(decoding: got, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(
            String(decoding: TraceJSON.document([Benchmark.TargetResult]()), as: UTF8.self)
                == String(decoding: try encoder.encode([Benchmark.TargetResult]()), as: UTF8.self))
    }
}
