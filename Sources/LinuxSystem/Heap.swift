import CLinux

/// The C heap.
package enum Heap {
    /// Gives freed heap memory back to the kernel (`malloc_trim(0)`). Startup allocates
    /// a lot once (fontconfig's cache, FreeType, the renderer's precomputation) that is
    /// freed before the loop starts; without this, RSS keeps it.
    package static func trim() {
        _ = malloc_trim(0)
    }

    /// Blocks of more than `bytes` are mapped on their own and unmapped when freed
    /// (`mallopt(M_MMAP_THRESHOLD)`, which also stops glibc from raising that threshold
    /// to the largest block freed so far, after which such blocks stay in the heap).
    package static func mapBlocks(largerThan bytes: Int) {
        _ = mallopt(M_MMAP_THRESHOLD, Int32(clamping: bytes))
    }
}
