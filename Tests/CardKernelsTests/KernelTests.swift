import CardKernels
import CardKernelsAVX2
import LinuxSystem
import Testing

/// One pixel as the kernel's contract defines it: `(start * wa + end * wb + 128) >> 8`
/// per channel, `wa` and `wb` from the pixel's weight word.
func referencePixel(_ start: UInt32, _ end: UInt32, _ word: UInt32) -> UInt32 {
    let wa = word & 0xFFFF, wb = word >> 16
    var out: UInt32 = 0
    for shift: UInt32 in [0, 8, 16, 24] {
        let s = (start >> shift) & 0xFF, e = (end >> shift) & 0xFF
        out |= ((s * wa + e * wb + 128) >> 8) << shift
    }
    return out
}

/// Runs of every length from 1 to 40 pixels at every alignment within a 32-byte block,
/// whole and clipped: each kernel writes exactly the run's pixels, each with the
/// reference value (the blocks that overlap the end of a run write the same bits twice),
/// and leaves every other pixel as it was.
@Test(arguments: CPU.hasAVX2 ? ["baseline", "avx2"] : ["baseline"])
func kernelWritesExactlyEachRunsPixels(_ name: String) {
    let kernel: DotKernel
    if name == "avx2" {
        kernel = { blendDotRunsAVX2($0, $1, $2, $3, $4, $5, $6) }
    } else {
        kernel = { blendDotRunsBaseline($0, $1, $2, $3, $4, $5, $6) }
    }
    let width = 64, height = 2, stride = width * 4
    let untouched: UInt32 = 0xDEAD_BEEF
    var weights = [UInt32]()
    var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<64 {
        rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let wsum = UInt32(truncatingIfNeeded: rng >> 33) % 257
        let wb = wsum == 0 ? 0 : UInt32(truncatingIfNeeded: rng >> 13) % (min(wsum, 192) + 1)
        weights.append((wsum - wb) | wb << 16)
    }
    weights[0] = 256  // a solid pixel: wa = 256, wb = 0
    let start: UInt32 = 0x00FF_8001, end: UInt32 = 0x0012_FE7F
    let clips = [
        KernelClip(x0: 0, y0: 0, x1: width, y1: height, whole: true),
        KernelClip(x0: 5, y0: 0, x1: 37, y1: 1, whole: false),
    ]
    for clip in clips {
        for count in 1...40 {
            for x0 in 0..<8 {
                var pixels = [UInt32](repeating: untouched, count: width * height)
                let run = DotRun(y: 0, x0: Int32(x0), count: Int32(count), weightStart: 3)
                let written = pixels.withUnsafeMutableBytes { p in
                    weights.withUnsafeBufferPointer { w in
                        [run].withUnsafeBufferPointer {
                            kernel($0, w.baseAddress!, start, end, p.baseAddress!, stride, clip)
                        }
                    }
                }
                let xa = clip.whole ? x0 : max(x0, clip.x0), xb = clip.whole ? x0 + count : min(x0 + count, clip.x1)
                #expect(written == max(0, xb - xa), "count \(count) at \(x0)")
                for x in 0..<width * height {
                    let inside = x >= xa && x < xb
                    let expected = inside ? referencePixel(start, end, weights[3 + x - x0]) : untouched
                    if pixels[x] != expected {
                        Issue.record(
                            "\(name): count \(count) at \(x0), clip \(clip.whole ? "none" : "5..<37"): pixel \(x) is \(pixels[x]), not \(expected)"
                        )
                        return
                    }
                }
            }
        }
    }
}
