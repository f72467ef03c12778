import Card
import Color
import Glibc
import LinuxSystem
import Output
import Raster

/// `shimmerd bench`: render costs measured in one process, interleaved so that machine
/// noise hits every case alike, reported as distributions (median, p90, min).
///
/// For every target (card at scale 1, at scale 2, at scale 2 centred in a 1920 x 1080
/// framebuffer-sized pixmap, and at scale 2 into a card-sized shadow whose changed rows
/// are then copied into two 1920 x 1080 dumb-buffer-sized buffers taking turns, as the
/// DRM sink does: there a frame is the render plus that copy) it times, round after
/// round, one frame of each case:
/// - `full`: everything redrawn (static layer and all dots), as after a sink restart;
/// - `move1`, `move10`: the focal point moving 1 or 10 points per frame;
/// - `all`: the focal point jumping between two far points so every dot changes;
/// - `none`: the same focal point again (must write nothing);
/// - `cold`: `all` after 8 MiB of other writes have pushed the renderer's weights and
///   the target out of the core's caches, as in the daemon, where 20 ms of other work
///   and two other shared-memory buffers pass between frames;
/// and, in the same rounds, a memset and a memcpy of as many bytes as the dot pixels:
/// the physical floor of writing the dot pixels once (and a memcpy after the same
/// eviction, the floor of `cold`).
///
/// Then `idle`: `all` frames, each after the thread sleeps 24 ms, the daemon's rhythm
/// (one frame per 3-scan batch of a 125 Hz sensor), alternating with a memcpy after the
/// same sleep. A core that slept runs the next frame several times slower than `all`
/// (on the VMs this was measured on, about 4x without prefetching: the lines leave the
/// caches while the core sleeps, see benchmarks/sleepcache), so this case, not `all`, is
/// what a frame costs the daemon; the renderer prefetches ahead here
/// (`CardRenderer.prefetchesAhead`), as the daemon's does, and not in the other cases,
/// whose frames come back to back. It also reports the thread's CPU time from before the
/// sleep to after the frame: the frame plus the sleep's own system call and wakeup.
package struct Benchmark {
    package struct Target: Sendable {
        package var name: String
        package var scale: Double
        /// Framebuffer size; nil = exactly the card.
        package var framebuffer: (width: Int, height: Int)?
        /// The card is rendered into a card-sized shadow and copied into two
        /// framebuffer-sized scanout buffers in turn (`ShadowCopier`, the DRM sink's path).
        package var scanout = false
    }

    package struct Stats: Sendable, Codable, Equatable {
        package var median: Double
        package var p90: Double
        package var min: Double
        package var mean: Double

        init(_ samples: [Double]) {
            let s = samples.sorted()
            median = s.isEmpty ? 0 : s[s.count / 2]
            p90 = s.isEmpty ? 0 : s[Swift.min(s.count - 1, s.count * 9 / 10)]
            min = s.first ?? 0
            mean = s.isEmpty ? 0 : s.reduce(0, +) / Double(s.count)
        }
    }

    package struct CaseResult: Sendable, Codable, Equatable {
        package var target: String
        package var name: String
        package var frames: Int
        /// Nanoseconds per frame.
        package var ns: Stats
        package var dotsRepaintedPerFrame: Double
        package var pixelsWrittenPerFrame: Double
        /// Median ns divided by the median pixels written (0 when none were written).
        package var nsPerPixel: Double
        package var distinctColorsPerFrame: Double
        package var tableHitsPerFrame: Double
        package var tableMissesPerFrame: Double
        /// Median of this case over the median memcpy of the dot pixels' bytes (for
        /// `cold`, over the memcpy after the same eviction; for `idle`, after the same sleep).
        package var ratioToMemcpy: Double
        /// `idle` only: the thread's CPU time per frame, sleep and wakeup included (ns).
        package var threadCPUNs: Stats?
        /// Scanout targets only: card rows copied into the scanout buffer per frame.
        package var scanoutRowsPerFrame: Double?
    }

    package struct TargetResult: Sendable, Codable, Equatable {
        package var target: String
        package var width: Int
        package var height: Int
        package var dots: Int
        /// Which compilation of the inner loop ran (baseline or avx2).
        package var kernel: String
        /// Dot pixels: what a frame in which every dot changes writes.
        package var dotPixels: Int
        package var memset: Stats
        package var memcpy: Stats
        /// The memcpy with its source and destination evicted first, as `cold` frames.
        package var memcpyCold: Stats
        /// The memcpy after the thread slept, as `idle` frames.
        package var memcpyIdle: Stats
        package var cases: [CaseResult]
        /// The incremental targets' pixels equal a full render of the same focal point.
        package var checksumsMatch: Bool
    }

    package var targets: [Target]
    package var rounds: Int
    /// `idle` frames per target (each after a sleep, so few): the rounds, at most 100.
    package var idleFrames: Int
    /// Called between measured frames with the steps done so far, of `steps` (a progress
    /// display; nothing of it is timed).
    package var progress: (Int) -> Void = { _ in }
    /// Every target's rounds and idle frames.
    package var steps: Int { targets.count * (rounds + max(idleFrames, 1)) }

    package init(rounds: Int) {
        self.rounds = rounds
        idleFrames = min(rounds, 100)
        targets = [
            Target(name: "scale1", scale: 1, framebuffer: nil),
            Target(name: "scale2", scale: 2, framebuffer: nil),
            Target(name: "fb1920x1080", scale: 2, framebuffer: (1920, 1080)),
            Target(name: "drm1920x1080", scale: 2, framebuffer: (1920, 1080), scanout: true),
        ]
    }

    static let caseNames = ["full", "move1", "move10", "all", "none", "cold"]
    /// Bytes written between frames to evict the caches before `cold` frames: more than
    /// this machine's 2 MiB L2 per core several times over.
    static let evictionBytes = 8 << 20

    /// The sleep before each `idle` frame: 3 scans of a 125 Hz sensor.
    static let idleSleepNanoseconds = 24_000_000

    /// The focal point of frame `i` of a case (points).
    static func focal(_ name: String, _ i: Int, origin: (Double, Double)) -> (Double, Double) {
        switch name {
        case "move1": return (origin.0 - 60 + Double(i % 120), origin.1 - 60)
        case "move10": return (origin.0 - 150 + Double(i % 30) * 10, origin.1 - 80)
        case "all", "cold", "idle": return i % 2 == 0 ? (origin.0, origin.1) : (origin.0 + 900, origin.1 - 700)
        default: return (origin.0 - 40, origin.1 - 50)  // full and none: a fixed point
        }
    }

    /// Runs every target; `makeRenderer` builds a renderer at a scale (fonts are I/O,
    /// so the caller supplies them).
    package func run(makeRenderer: (Double) throws -> CardRenderer) rethrows -> [TargetResult] {
        try targets.indices.map {
            try run(targets[$0], makeRenderer: makeRenderer, stepsBefore: $0 * (rounds + max(idleFrames, 1)))
        }
    }

    func run(_ t: Target, makeRenderer: (Double) throws -> CardRenderer, stepsBefore: Int = 0) rethrows -> TargetResult
    {
        let renderer = try makeRenderer(t.scale)
        var run = TargetRun(t, renderer: renderer)
        let floor = Floor(bytes: renderer.dotPixelCount * 4)
        run.warmUp()
        renderer.prefetchesAhead = false  // frames back to back: the lines are in the caches
        var memsetTimes = [Double](), memcpyTimes = [Double](), memcpyColdTimes = [Double]()
        for round in 0..<rounds {
            run.timeOneFrameOfEachCase(evict: floor.evict)
            memsetTimes.append(floor.timeMemset(Int32(round & 0xFF)))
            memcpyTimes.append(floor.timeMemcpy())
            floor.evict()
            memcpyColdTimes.append(floor.timeMemcpy())
            progress(stepsBefore + round + 1)
        }
        let memcpyStats = Stats(memcpyTimes), memcpyColdStats = Stats(memcpyColdTimes)
        let (idleCase, memcpyIdleStats) = timeIdleFrames(&run, floor: floor, stepsBefore: stepsBefore)
        let cases = run.cases(floor: memcpyStats, coldFloor: memcpyColdStats) + [idleCase]
        let match = run.incrementalTargetsMatch()
        return TargetResult(
            target: t.name, width: run.width, height: run.height, dots: renderer.dotCount,
            kernel: renderer.kernel.rawValue, dotPixels: renderer.dotPixelCount,
            memset: Stats(memsetTimes), memcpy: memcpyStats, memcpyCold: memcpyColdStats,
            memcpyIdle: memcpyIdleStats, cases: cases,
            checksumsMatch: match)
    }

    /// `idle`: a frame, or a memcpy, after each sleep; the case and its floor.
    private func timeIdleFrames(_ run: inout TargetRun, floor: Floor, stepsBefore: Int) -> (CaseResult, Stats) {
        let renderer = run.renderer, t = run.target, origin = run.origin, idleScanout = run.names.count
        let idleBuffer = PixelBuffer(width: run.renderWidth, height: run.renderHeight)
        var idleTarget = CardTarget(pixmap: idleBuffer.pixmap, originX: run.originX, originY: run.originY)
        var idle = Tally(), idleCPU = [Double](), memcpyIdleTimes = [Double]()
        var focal = Benchmark.focal("idle", 0, origin: origin)
        renderer.prefetchesAhead = true  // as the daemon's renderer, whose frames follow a sleep
        renderer.update(focalX: focal.0, focalY: focal.1)
        renderer.paint(into: &idleTarget)
        if t.scanout { for i in 0..<2 { run.scanouts[idleScanout].copy(idleBuffer.pixmap, into: i) } }
        for i in 1...max(idleFrames, 1) {
            let cpu0 = ThreadCPUClock.nanoseconds()
            Benchmark.sleepBetweenFrames()
            let start = MonotonicClock.nanoseconds()
            focal = Benchmark.focal("idle", i, origin: origin)
            renderer.update(focalX: focal.0, focalY: focal.1)
            let report = renderer.paint(into: &idleTarget)
            let rows = t.scanout ? run.scanouts[idleScanout].copy(idleBuffer.pixmap, into: Scanout.buffer(i)) : 0
            let end = MonotonicClock.nanoseconds()
            let cpu1 = ThreadCPUClock.nanoseconds()
            idle.add(report, ns: Double(end - start), scanoutRows: rows)
            idleCPU.append(Double(cpu1 - cpu0))
            Benchmark.sleepBetweenFrames()
            memcpyIdleTimes.append(floor.timeMemcpy())
            progress(stepsBefore + rounds + i)
        }
        let memcpyIdleStats = Stats(memcpyIdleTimes)
        var idleCase = idle.result(target: t.name, name: "idle", floor: memcpyIdleStats, scanout: t.scanout)
        idleCase.threadCPUNs = Stats(idleCPU)
        return (idleCase, memcpyIdleStats)
    }

    /// Sleeps as the daemon does between frames.
    static func sleepBetweenFrames() {
        var request = timespec(tv_sec: 0, tv_nsec: idleSleepNanoseconds)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// What one case's frames measured.
    struct Tally {
        var ns: [Double] = []
        var dots = 0, pixels = 0, distinct = 0, hits = 0, misses = 0

        var scanoutRows = 0

        mutating func add(_ report: FrameReport, ns frameNs: Double, scanoutRows rows: Int = 0) {
            ns.append(frameNs)
            scanoutRows += rows
            dots += report.dotsRepainted
            pixels += report.pixelsWritten
            distinct += report.colors.distinctColors
            hits += report.colors.tableHits
            misses += report.colors.tableMisses
        }

        /// Per-frame means, the time distribution, and its median over `floor`'s.
        func result(target: String, name: String, floor: Stats, scanout: Bool = false) -> CaseResult {
            let n = Double(max(ns.count, 1))
            let stats = Stats(ns)
            let px = Double(pixels) / n
            return CaseResult(
                target: target, name: name, frames: ns.count, ns: stats,
                dotsRepaintedPerFrame: Double(dots) / n, pixelsWrittenPerFrame: px,
                nsPerPixel: px > 0 ? stats.median / px : 0, distinctColorsPerFrame: Double(distinct) / n,
                tableHitsPerFrame: Double(hits) / n, tableMissesPerFrame: Double(misses) / n,
                ratioToMemcpy: Benchmark.ratio(stats, floor),
                scanoutRowsPerFrame: scanout ? Double(scanoutRows) / n : nil)
        }
    }

    /// Two framebuffer-sized buffers standing in for a DRM sink's dumb buffers (same
    /// size, a 64-byte aligned pitch as drivers choose), fed by the sink's `ShadowCopier`.
    struct Scanout {
        /// The buffer frame `i` goes to. The sink alternates every frame, and each buffer
        /// then holds the frame before last; here they take turns every two frames,
        /// because `all`, `cold` and `idle` alternate between two focal points: strict
        /// turns would give each buffer the same picture every time and copy nothing,
        /// where on a screen the frame before last differs in every dot.
        static func buffer(_ i: Int) -> Int { i / 2 % 2 }

        let buffers: [PixelBuffer]
        var copier: ShadowCopier
        let placement: CardPlacement

        init(width: Int, height: Int, card: CardRenderer) {
            let pitch = (width * 4 + 63) / 64 * 64
            buffers = (0..<2).map { _ in PixelBuffer(width: width, height: height, stride: pitch) }
            placement = CardPlacement(
                cardWidth: card.pixelWidth, cardHeight: card.pixelHeight, screenWidth: width,
                screenHeight: height, position: nil)
            copier = ShadowCopier(placement: placement, orientation: .normal, bufferCount: 2)
        }

        @discardableResult
        mutating func copy(_ shadow: Pixmap, into i: Int) -> Int {
            let b = buffers[i].pixmap
            return copier.copy(
                shadow, into: i, base: UnsafeMutableRawPointer(b.row(0)), pitch: b.stride,
                panelWidth: b.width, panelHeight: b.height)
        }

        /// Whether buffer `i` shows `card` at its place (compared here, in ordinary memory;
        /// the sink never reads its buffers).
        func holds(_ card: Pixmap, in i: Int) -> Bool {
            let b = buffers[i].pixmap
            return (0..<card.height).allSatisfy { y in
                memcmp(b.row(placement.originY + y) + placement.originX, card.row(y), card.width * 4) == 0
            }
        }
    }

    static func ratio(_ s: Stats, _ floor: Stats) -> Double { floor.median > 0 ? s.median / floor.median : 0 }

    /// FNV-1a over every pixel (64-bit).
    package static func checksum(_ p: Pixmap) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for y in 0..<p.height {
            let row = p.row(y)
            for x in 0..<p.width {
                h = (h ^ UInt64(row[x])) &* 0x0000_0100_0000_01B3
            }
        }
        return h
    }
}
