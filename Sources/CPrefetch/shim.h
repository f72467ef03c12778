// A compiler builtin Swift has no spelling for: a hint to the CPU to fetch a cache line
// that is about to be written (x86-64 PREFETCHW or PREFETCHT0, arm64 PRFM PSTL1KEEP) or
// read (PREFETCHT0, PRFM PLDL1KEEP).
// Not a library: no code, no I/O, never faults. Imported by CardKernels only.
#ifndef SHIMMERD_CPREFETCH_SHIM_H
#define SHIMMERD_CPREFETCH_SHIM_H
static inline void shim_prefetch_for_write(const void *p) { __builtin_prefetch(p, 1, 3); }
static inline void shim_prefetch_for_read(const void *p) { __builtin_prefetch(p, 0, 3); }
#endif
