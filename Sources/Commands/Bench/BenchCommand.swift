import Card
import LinuxSystem
import Runtime
import Tracing

/// `shimmerd bench [--json] [--frames N]`: render costs (see Benchmark.swift).
struct BenchCommand: Subcommand {
    static let name = "bench"
    static let abstract = "measure render costs: full and incremental frames, against a memset/memcpy floor"
    static let options: [OptionSpec] = [
        .json,
        OptionSpec("--frames", value: "N", help: "rounds (frames per case), default 3000"),
        OptionSpec(
            "--kernel", value: "auto|baseline|avx2",
            help: "which compilation of the inner loop "
                + "(default auto: the fastest the CPU runs)",
            completion: .words(["auto", "baseline", "avx2"])),
        .set,
    ]

    var json: Bool
    var rounds: Int
    var overrides: [String]
    var kernel: CardRenderer.Kernel?

    init(_ a: ParsedArguments) throws(Failure) {
        json = a.flag("--json")
        switch a.value("--kernel") ?? "auto" {
        case "auto": kernel = nil
        case "baseline": kernel = .baseline
        case "avx2":
            guard CPU.hasAVX2 else { throw Failure(.unavailable, "bench: --kernel avx2: this CPU has no AVX2") }
            kernel = .avx2
        case let other: throw Failure(.usage, "bench: --kernel \"\(other)\" is not auto, baseline or avx2")
        }
        overrides = a.all("--set")
        if let text = a.value("--frames") {
            guard let n = Int(text), n >= 1, n <= 10_000_000 else {
                throw Failure(.usage, "bench: --frames \"\(text)\" is not a count")
            }
            rounds = n
        } else {
            rounds = 3000
        }
    }

    func run(_ context: CommandContext) throws {
        let config = try ConfigurationLoader.load(path: nil, overrides: overrides, useDefaultPath: false)
        var bench = Benchmark(rounds: rounds)
        let progress = ProgressBar(total: bench.steps, unit: "rounds", context: context)
        bench.progress = progress.update
        let results = try bench.run { (scale: Double) throws(Failure) in
            var card = config.card
            card.scale = scale
            return try CardFactory.renderer(card, kernel: kernel)
        }
        progress.finish()
        if json {
            context.out(String(decoding: TraceJSON.document(results), as: UTF8.self) + "\n")
            return
        }
        context.out("shimmerd bench: \(rounds) frames per case, interleaved; times per frame (median / p90 / min)\n")
        for r in results {
            context.out(
                "\n\(r.target): \(r.width) x \(r.height) px, \(r.dots) dots, \(r.dotPixels) dot pixels"
                    + " (\(r.dotPixels * 4 / 1024) KiB), \(r.kernel) kernel; checksums "
                    + "\(r.checksumsMatch ? "match" : "DIFFER")\n")
            context.out(
                "  floor   memset \(us(r.memset.median)) / memcpy \(us(r.memcpy.median)) of the dot "
                    + "pixels' bytes; memcpy \(us(r.memcpyCold.median)) after an eviction (the floor of cold), "
                    + "\(us(r.memcpyIdle.median)) after a sleep (the floor of idle)\n")
            for c in r.cases {
                context.out(
                    "  " + c.name.padding(7) + " \(us(c.ns.median)) / \(us(c.ns.p90)) / \(us(c.ns.min))"
                        + "  \(Int(c.dotsRepaintedPerFrame)) dots, \(Int(c.pixelsWrittenPerFrame)) px"
                        + (c.nsPerPixel > 0
                            ? ", \(fixed(c.nsPerPixel, 2)) ns/px, "
                                + "\(fixed(c.ratioToMemcpy, 1))x memcpy" : "")
                        + ", \(Int(c.distinctColorsPerFrame)) colors, \(Int(c.tableHitsPerFrame)) table hits"
                        + scanoutText(c)
                        + (c.threadCPUNs.map { "; thread CPU \(us($0.median)) a frame with its sleep and wakeup" } ?? "")
                        + "\n")
            }
        }
        if let line = summary(results) { context.out("\n" + line + "\n") }
    }

    /// One line for the reader who wants the gist: the daemon's default card (scale 2).
    func summary(_ results: [Benchmark.TargetResult]) -> String? {
        guard let r = results.first(where: { $0.target == "scale2" }),
            let all = r.cases.first(where: { $0.name == "all" }),
            let idle = r.cases.first(where: { $0.name == "idle" }),
            let none = r.cases.first(where: { $0.name == "none" })
        else { return nil }
        return "summary: at \(r.width) x \(r.height) px a frame in which every dot changes "
            + "colour costs \(us(all.ns.median))"
            + " (median; \(fixed(all.ratioToMemcpy, 1))x a memcpy of the dot pixels), \(us(idle.ns.median)) "
            + "after a sleep as the daemon's;"
            + " a frame with no colour change \(us(none.ns.median))" + (r.checksumsMatch ? "" : "; CHECKSUMS DIFFER")
    }

    /// A scanout target's rows copied per frame (the DRM sink's path).
    private func scanoutText(_ c: Benchmark.CaseResult) -> String {
        guard let rows = c.scanoutRowsPerFrame else { return "" }
        return ", \(fixed(rows, 1)) rows copied to the scanout buffer"
    }

    func us(_ ns: Double) -> String { fixed(ns / 1000, 1) + " us" }

    func fixed(_ v: Double, _ digits: Int) -> String {
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (v * p).rounded() / p
        var s = String(r)
        if let dot = s.firstIndex(of: ".") {
            let decimals = s.distance(from: dot, to: s.endIndex) - 1
            if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
        }
        return s
    }
}
