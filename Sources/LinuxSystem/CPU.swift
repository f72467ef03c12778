import CLinux

/// What the processor can do.
package enum CPU {
    /// x86-64 with AVX2 (`__builtin_cpu_supports("avx2")`); false elsewhere.
    package static let hasAVX2: Bool = shim_cpu_has_avx2() != 0
}
