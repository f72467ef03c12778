import CLinux

/// Atomic access and futex(2) calls on words of shared memory (the shm header's `frame`
/// at offset 48, spec/interfaces.md). The futexes are shared (no FUTEX_PRIVATE_FLAG):
/// the waiters are other processes that mapped the same object.
package enum SharedWord {
    /// `__atomic_store_n(p, v, __ATOMIC_RELEASE)`: every store before it (the pixels) is
    /// visible to a reader whose acquire load sees `value`.
    package static func storeRelease(_ value: UInt64, at p: UnsafeMutableRawPointer) {
        shim_store_release_u64(p.assumingMemoryBound(to: UInt64.self), value)
    }

    /// `__atomic_load_n(p, __ATOMIC_ACQUIRE)`.
    package static func loadAcquire(at p: UnsafeMutableRawPointer) -> UInt64 {
        shim_load_acquire_u64(p.assumingMemoryBound(to: UInt64.self))
    }

    package static func storeRelease32(_ value: UInt32, at p: UnsafeMutableRawPointer) {
        shim_store_release_u32(p.assumingMemoryBound(to: UInt32.self), value)
    }

    /// FUTEX_WAKE on the 32-bit word at `p`: wakes up to `count` waiters (Int32.max: all).
    /// Returns how many were woken; a failure (only EFAULT/EINVAL, programming errors) is -1.
    @discardableResult
    package static func wake(at p: UnsafeMutableRawPointer, count: Int32 = Int32.max) -> Int {
        Int(shim_futex_wake(p.assumingMemoryBound(to: UInt32.self), count))
    }
}
