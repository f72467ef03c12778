import CLinux

/// The C heap.
package enum Heap {
    /// Gives freed heap memory back to the kernel (`malloc_trim(0)`). Startup allocates
    /// a lot once (fontconfig's cache, FreeType, the renderer's precomputation) that is
    /// freed before the loop starts; without this, RSS keeps it.
    package static func trim() {
        _ = malloc_trim(0)
    }
}
