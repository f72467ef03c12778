// CardKernels: the card renderer's inner loop, as inlinable source.
//
// Purpose: one definition of the per-pixel blend, compiled twice: here for the
// architecture's baseline (SSE2 on x86-64, NEON on arm64) and, inlined into
// CardKernelsAVX2, for x86-64 CPUs with AVX2, where each SIMD16<UInt16> operation is one
// 256-bit instruction instead of two 128-bit ones. The renderer picks one at startup
// (the caller asks the CPU). Both are the same integer arithmetic: identical pixels.
// Must not import: anything but the standard library and CPrefetch (a compiler builtin).

import CPrefetch

/// A horizontal run of one dot's pixels: row `y`, columns `x0 ..< x0 + count` (card
/// pixels), per-pixel weights from `weightStart`.
@usableFromInline
package struct DotRun: Sendable {
    @usableFromInline package var y: Int32
    @usableFromInline package var x0: Int32
    @usableFromInline package var count: Int32
    @usableFromInline package var weightStart: Int32

    package init(y: Int32, x0: Int32, count: Int32, weightStart: Int32) {
        self.y = y
        self.x0 = x0
        self.count = count
        self.weightStart = weightStart
    }
}

/// The visible card pixels, `x0 ..< x1` by `y0 ..< y1`; `whole` when nothing is clipped.
@usableFromInline
package struct KernelClip: Sendable {
    @usableFromInline package var x0: Int, y0: Int, x1: Int, y1: Int
    @usableFromInline package var whole: Bool

    package init(x0: Int, y0: Int, x1: Int, y1: Int, whole: Bool) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
        self.whole = whole
    }
}

extension KernelClip {
    /// The visible part of `run`: its row and its columns `xa ..< xb`, or nil when none
    /// of it is visible.
    @inlinable @inline(__always)
    package func visibleSpan(of run: DotRun) -> (y: Int, xa: Int, xb: Int)? {
        let y = Int(run.y)
        var xa = Int(run.x0), xb = xa + Int(run.count)
        if !whole {
            guard y >= y0, y < y1 else { return nil }
            xa = max(xa, x0)
            xb = min(xb, x1)
            guard xb > xa else { return nil }
        }
        return (y, xa, xb)
    }
}

/// Paints one dot's runs and returns the pixels written.
package typealias DotKernel = (
    _ runs: UnsafeBufferPointer<DotRun>, _ weights: UnsafePointer<UInt32>,
    _ start: UInt32, _ end: UInt32,
    _ base: UnsafeMutableRawPointer, _ stride: Int, _ clip: KernelClip
) -> Int

/// `(start * wa + end * wb + 128) >> 8` per channel and pixel into `base` (the card's
/// top-left pixel) with row pitch `stride` bytes.
///
/// A pixel's weights are one word, `wa | wb << 16` (wa, wb <= 256, wa + wb <= 256):
/// 4 bytes of weights per pixel, as many as the pixel itself. Each is copied into both
/// 16-bit halves of a word in registers (two weights pre-widened in memory doubled the
/// bytes a frame reads, which in the daemon, whose caches go cold between frames, cost
/// more than the widening does here).
///
/// Each XRGB word is seen as two 16-bit lanes, [B, R] (mask 0x00FF00FF) and [G, X] (the
/// word >> 8, same mask). With channels <= 255 a lane never exceeds 255 * 256 + 128, so
/// 16-bit multiplies are exact. Eight pixels go through `SIMD16<UInt16>` at a time, then
/// four, then the scalar tail computes the same lanes in 32-bit words: every path gives
/// identical bits.
@inlinable @inline(__always)
package func blendDotRuns(
    _ runs: UnsafeBufferPointer<DotRun>, _ weights: UnsafePointer<UInt32>,
    _ start: UInt32, _ end: UInt32,
    _ base: UnsafeMutableRawPointer, _ stride: Int, _ clip: KernelClip
) -> Int {
    let srb = start & 0x00FF_00FF, sg = (start >> 8) & 0x00FF_00FF
    let erb = end & 0x00FF_00FF, eg = (end >> 8) & 0x00FF_00FF
    let vsrb = unsafeBitCast(SIMD8<UInt32>(repeating: srb), to: SIMD16<UInt16>.self)
    let vsg = unsafeBitCast(SIMD8<UInt32>(repeating: sg), to: SIMD16<UInt16>.self)
    let verb = unsafeBitCast(SIMD8<UInt32>(repeating: erb), to: SIMD16<UInt16>.self)
    let veg = unsafeBitCast(SIMD8<UInt32>(repeating: eg), to: SIMD16<UInt16>.self)
    let round = SIMD16<UInt16>(repeating: 0x80)
    let low = SIMD8<UInt32>(repeating: 0xFFFF), high = SIMD8<UInt32>(repeating: 0xFFFF_0000)
    var written = 0
    for run in runs {
        guard let (y, xa, xb) = clip.visibleSpan(of: run) else { continue }
        let n = xb - xa
        let w = UnsafeRawPointer(weights + Int(run.weightStart) + (xa - Int(run.x0)))
        let dst = base + y * stride + xa * 4
        // Whole blocks of 8, then the last 8 (or 4) pixels of the run as one more block
        // overlapping pixels already written: a pixel's value depends only on its weights,
        // so writing it twice writes the same bits, and no run needs a scalar tail unless
        // it is shorter than 4 pixels.
        var j = 0
        while j + 8 <= n {
            blend8(w, dst, j, vsrb, vsg, verb, veg, round, low, high)
            j += 8
        }
        if j < n {
            if n >= 8 {
                blend8(w, dst, n - 8, vsrb, vsg, verb, veg, round, low, high)
            } else if n >= 4 {
                blend4(w, dst, 0, vsrb, vsg, verb, veg, round, low, high)
                blend4(w, dst, n - 4, vsrb, vsg, verb, veg, round, low, high)
            } else {
                while j < n {
                    let pair = w.load(fromByteOffset: j * 4, as: UInt32.self)
                    let a = pair & 0xFFFF, b = pair >> 16
                    let rb = ((srb &* a &+ erb &* b &+ 0x0080_0080) >> 8) & 0x00FF_00FF
                    let g = ((sg &* a &+ eg &* b &+ 0x0080_0080) >> 8) & 0x00FF_00FF
                    dst.storeBytes(of: rb | g << 8, toByteOffset: j * 4, as: UInt32.self)
                    j += 1
                }
            }
        }
        written += n
    }
    return written
}

/// Pixels `j ..< j + 8` of a run: weights from `w`, written to `dst`.
@inlinable @inline(__always)
func blend8(
    _ w: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ j: Int,
    _ vsrb: SIMD16<UInt16>, _ vsg: SIMD16<UInt16>, _ verb: SIMD16<UInt16>, _ veg: SIMD16<UInt16>,
    _ round: SIMD16<UInt16>, _ low: SIMD8<UInt32>, _ high: SIMD8<UInt32>
) {
    let pair = w.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<UInt32>.self)
    let a = unsafeBitCast((pair & low) | (pair &<< 16), to: SIMD16<UInt16>.self)
    let b = unsafeBitCast((pair & high) | (pair &>> 16), to: SIMD16<UInt16>.self)
    let rb = (vsrb &* a &+ verb &* b &+ round) &>> 8
    let g = (vsg &* a &+ veg &* b &+ round) &>> 8
    let word = unsafeBitCast(rb, to: SIMD8<UInt32>.self) | (unsafeBitCast(g, to: SIMD8<UInt32>.self) &<< 8)
    dst.storeBytes(of: word, toByteOffset: j * 4, as: SIMD8<UInt32>.self)
}

/// Pixels `j ..< j + 4` of a run, as `blend8` does eight.
@inlinable @inline(__always)
func blend4(
    _ w: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ j: Int,
    _ vsrb: SIMD16<UInt16>, _ vsg: SIMD16<UInt16>, _ verb: SIMD16<UInt16>, _ veg: SIMD16<UInt16>,
    _ round: SIMD16<UInt16>, _ low: SIMD8<UInt32>, _ high: SIMD8<UInt32>
) {
    let pair = w.loadUnaligned(fromByteOffset: j * 4, as: SIMD4<UInt32>.self)
    let a = unsafeBitCast((pair & low.lowHalf) | (pair &<< 16), to: SIMD8<UInt16>.self)
    let b = unsafeBitCast((pair & high.lowHalf) | (pair &>> 16), to: SIMD8<UInt16>.self)
    let rb = (vsrb.lowHalf &* a &+ verb.lowHalf &* b &+ round.lowHalf) &>> 8
    let g = (vsg.lowHalf &* a &+ veg.lowHalf &* b &+ round.lowHalf) &>> 8
    let word = unsafeBitCast(rb, to: SIMD4<UInt32>.self) | (unsafeBitCast(g, to: SIMD4<UInt32>.self) &<< 8)
    dst.storeBytes(of: word, toByteOffset: j * 4, as: SIMD4<UInt32>.self)
}

/// Asks the CPU to fetch the cache lines that `blendDotRuns` will touch for these runs
/// (one dot's), without waiting for them: their weights, for reading, and the target's
/// lines, for writing. Issued for a dot a few dots before it is painted, so its lines
/// arrive while the dots before it are blended: after the daemon sleeps between frames
/// they are no longer in the caches, and a run's loads and stores would otherwise wait
/// for its lines one short run at a time.
@inlinable
package func prefetchDotRuns(
    _ runs: UnsafeBufferPointer<DotRun>, _ weights: UnsafePointer<UInt32>,
    _ base: UnsafeMutableRawPointer, _ stride: Int, _ clip: KernelClip
) {
    guard let first = runs.first, let last = runs.last else { return }
    // A dot's weights are one block, run after run: each of its 64-byte lines.
    var line = Int(bitPattern: weights + Int(first.weightStart)) & ~63
    let end = Int(bitPattern: weights + Int(last.weightStart) + Int(last.count))
    while line < end {
        shim_prefetch_for_read(UnsafeRawPointer(bitPattern: line))
        line += 64
    }
    for run in runs {
        guard let (y, xa, xb) = clip.visibleSpan(of: run) else { continue }
        // The first and the last pixel's lines, and for a run longer than 16 pixels
        // (64 bytes) the middle one's: every line of a run up to 32 pixels.
        let row = base + y * stride
        shim_prefetch_for_write(row + xa * 4)
        if xb - xa > 16 { shim_prefetch_for_write(row + (xa + xb) / 2 * 4) }
        shim_prefetch_for_write(row + xb * 4 - 4)
    }
}

/// The kernel compiled for the baseline of the target architecture.
package func blendDotRunsBaseline(
    _ runs: UnsafeBufferPointer<DotRun>, _ weights: UnsafePointer<UInt32>,
    _ start: UInt32, _ end: UInt32,
    _ base: UnsafeMutableRawPointer, _ stride: Int, _ clip: KernelClip
) -> Int {
    blendDotRuns(runs, weights, start, end, base, stride, clip)
}
