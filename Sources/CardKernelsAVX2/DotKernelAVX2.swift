// CardKernelsAVX2: CardKernels' blend compiled for x86-64 with AVX2 (Package.swift gives
// this module `-target-cpu haswell` on x86-64 hosts; elsewhere it is the baseline again).
// Call it only where the CPU has AVX2 (LinuxSystem.CPU.hasAVX2).
import CardKernels

package func blendDotRunsAVX2(
    _ runs: UnsafeBufferPointer<DotRun>, _ weights: UnsafePointer<UInt32>,
    _ start: UInt32, _ end: UInt32,
    _ base: UnsafeMutableRawPointer, _ stride: Int, _ clip: KernelClip
) -> Int {
    blendDotRuns(runs, weights, start, end, base, stride, clip)
}
