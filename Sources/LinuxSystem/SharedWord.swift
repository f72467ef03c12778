import CLinux
import Glibc

/// Atomic access and futex(2) calls on words of shared memory (the shm header's `frame`
/// at offset 48, docs/SHM.md). The futexes are shared (no FUTEX_PRIVATE_FLAG):
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
    /// Returns how many were woken. Throws EFAULT (the word is not mapped) or EINVAL (not
    /// 4-byte aligned): waiters would then sleep until their timeout, so callers say so.
    @discardableResult
    package static func wake(at p: UnsafeMutableRawPointer, count: Int32 = Int32.max) throws(SystemError) -> Int {
        let n = shim_futex_wake(p.assumingMemoryBound(to: UInt32.self), count)
        guard n >= 0 else { throw SystemError("futex wake", errno: errno) }
        return Int(n)
    }
}

extension SharedWord {
    /// How a `wait` ended.
    package enum WaitOutcome: Sendable, Equatable {
        /// A FUTEX_WAKE on the word.
        case woken
        /// The word did not hold `expected` when the wait began (EAGAIN): it has changed.
        case changed
        /// `timeoutSeconds` passed (ETIMEDOUT).
        case timedOut
        /// A signal interrupted the wait (EINTR); the caller decides whether to wait again.
        case interrupted
    }

    /// `__atomic_load_n(p, __ATOMIC_ACQUIRE)` of a 32-bit word.
    package static func loadAcquire32(at p: UnsafeRawPointer) -> UInt32 {
        shim_load_acquire_u32(p.assumingMemoryBound(to: UInt32.self))
    }

    /// FUTEX_WAIT (shared) on the 32-bit word at `p`: sleeps while it holds `expected`,
    /// until a FUTEX_WAKE or `timeoutSeconds` (a relative CLOCK_MONOTONIC timeout).
    /// The word may be in a read-only mapping: the kernel only reads it.
    package static func wait(at p: UnsafeRawPointer, expected: UInt32, timeoutSeconds: Double) throws -> WaitOutcome {
        let seconds = max(0, timeoutSeconds)
        var timeout = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        let word = UnsafeMutablePointer(mutating: p.assumingMemoryBound(to: UInt32.self))
        guard shim_futex_wait(word, expected, &timeout) != 0 else { return .woken }
        switch shim_errno() {
        case EAGAIN: return .changed
        case ETIMEDOUT: return .timedOut
        case EINTR: return .interrupted
        case let e: throw SystemError("futex wait", errno: e)
        }
    }
}
