import Card
import Glibc
import LinuxSystem
import Raster

extension Benchmark {
    /// One target's renderer with one buffer, renderer target, tally and frame count per
    /// case (and the DRM sink's scanout buffers for a scanout target): what `run(_:)`
    /// times round after round.
    struct TargetRun {
        let target: Target
        let renderer: CardRenderer
        /// The framebuffer's size (the card's without one).
        let width: Int, height: Int
        /// The renderer's own target: the framebuffer-sized pixmap, or for a scanout
        /// target the card-sized shadow; and the card's place in it.
        let renderWidth: Int, renderHeight: Int
        let originX: Int, originY: Int
        /// The card's origin in points, around which the cases move the focal point.
        let origin: (Double, Double)
        let names = Benchmark.caseNames
        let buffers: [PixelBuffer]
        /// One per case, and one for `idle`.
        var scanouts: [Scanout]
        var targets: [CardTarget]
        var tallies: [Tally]
        var frameIndex: [Int]

        init(_ t: Target, renderer: CardRenderer) {
            target = t
            self.renderer = renderer
            width = t.framebuffer?.width ?? renderer.pixelWidth
            height = t.framebuffer?.height ?? renderer.pixelHeight
            renderWidth = t.scanout ? renderer.pixelWidth : width
            renderHeight = t.scanout ? renderer.pixelHeight : height
            originX = (renderWidth - renderer.pixelWidth) / 2
            originY = (renderHeight - renderer.pixelHeight) / 2
            origin = (renderer.layout.geometry.originX, renderer.layout.geometry.originY)
            let (rw, rh, ox, oy) = (renderWidth, renderHeight, originX, originY)
            buffers = names.map { _ in PixelBuffer(width: rw, height: rh) }
            let (w, h) = (width, height)
            scanouts = (0..<(t.scanout ? names.count + 1 : 0)).map { _ in Scanout(width: w, height: h, card: renderer) }
            targets = buffers.map { CardTarget(pixmap: $0.pixmap, originX: ox, originY: oy) }
            tallies = names.map { _ in Tally() }
            frameIndex = names.map { _ in 0 }
        }

        /// Every case drawn once, so the rounds measure steady state.
        mutating func warmUp() {
            for c in names.indices {
                let f = Benchmark.focal(names[c], 0, origin: origin)
                renderer.update(focalX: f.0, focalY: f.1)
                renderer.paint(into: &targets[c])
                if target.scanout { for i in 0..<2 { scanouts[c].copy(buffers[c].pixmap, into: i) } }
            }
        }

        /// One timed frame of each case; `evict` runs before a `cold` frame, untimed.
        mutating func timeOneFrameOfEachCase(evict: () -> Void) {
            for c in names.indices {
                frameIndex[c] += 1
                let f = Benchmark.focal(names[c], frameIndex[c], origin: origin)
                if names[c] == "full" { targets[c].invalidate() }
                if names[c] == "cold" { evict() }
                let start = MonotonicClock.nanoseconds()
                renderer.update(focalX: f.0, focalY: f.1)
                let report = renderer.paint(into: &targets[c])
                let rows = target.scanout ? scanouts[c].copy(buffers[c].pixmap, into: Scanout.buffer(frameIndex[c])) : 0
                let end = MonotonicClock.nanoseconds()
                tallies[c].add(report, ns: Double(end - start), scanoutRows: rows)
            }
        }

        /// Each case's result, over the floor its frames are compared with.
        func cases(floor: Stats, coldFloor: Stats) -> [CaseResult] {
            names.indices.map { c in
                tallies[c].result(
                    target: target.name, name: names[c], floor: names[c] == "cold" ? coldFloor : floor,
                    scanout: target.scanout)
            }
        }

        /// Whether each incremental target holds exactly what a full render of its last
        /// focal point gives, and so do both scanout buffers once each is brought up to date.
        mutating func incrementalTargetsMatch() -> Bool {
            var match = true
            for c in names.indices {
                let f = Benchmark.focal(names[c], frameIndex[c], origin: origin)
                let fresh = PixelBuffer(width: renderWidth, height: renderHeight)
                var target = CardTarget(pixmap: fresh.pixmap, originX: originX, originY: originY)
                renderer.update(focalX: f.0, focalY: f.1)
                renderer.paint(into: &target)
                if Benchmark.checksum(fresh.pixmap) != Benchmark.checksum(buffers[c].pixmap) { match = false }
                if self.target.scanout {
                    for i in 0..<2 {
                        scanouts[c].copy(buffers[c].pixmap, into: i)
                        if !scanouts[c].holds(fresh.pixmap, in: i) { match = false }
                    }
                }
            }
            return match
        }
    }

    /// The floor a frame is compared with: a memset and a memcpy of as many bytes as the
    /// dot pixels, in and out of cache-line-aligned buffers, and the 8 MiB of other
    /// writes that evict the caches.
    final class Floor {
        let bytes: Int
        private let src: UnsafeMutableRawPointer
        private let dst: UnsafeMutableRawPointer
        private let scratch: UnsafeMutableRawPointer
        private var evictions = 0

        init(bytes: Int) {
            self.bytes = bytes
            src = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            dst = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            scratch = UnsafeMutableRawPointer.allocate(byteCount: Benchmark.evictionBytes, alignment: 64)
            src.initializeMemory(as: UInt8.self, repeating: 7, count: bytes)
        }

        deinit {
            src.deallocate()
            dst.deallocate()
            scratch.deallocate()
        }

        /// Pushes the renderer's weights and targets out of the core's caches.
        func evict() {
            evictions += 1
            memset(scratch, Int32(evictions & 0xFF), Benchmark.evictionBytes)
        }

        /// Nanoseconds of one memset of `value` (changed each round so nothing can be elided).
        func timeMemset(_ value: Int32) -> Double {
            let t0 = MonotonicClock.nanoseconds()
            memset(dst, value, bytes)
            let t1 = MonotonicClock.nanoseconds()
            return Double(t1 - t0)
        }

        /// Nanoseconds of one memcpy.
        func timeMemcpy() -> Double {
            let t0 = MonotonicClock.nanoseconds()
            memcpy(dst, src, bytes)
            let t1 = MonotonicClock.nanoseconds()
            return Double(t1 - t0)
        }
    }
}
