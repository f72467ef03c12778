import CLinux
import Glibc

/// CLOCK_MONOTONIC (`clock_gettime`), the clock of the trace's `t` and the shm header's
/// `frame_time_ns`.
package enum MonotonicClock {
    package static func nanoseconds() -> UInt64 { clockNanoseconds(CLOCK_MONOTONIC) }

    package static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }
}

/// CLOCK_THREAD_CPUTIME_ID: the CPU time the calling thread has used, in user and kernel
/// mode (what `shimmerd bench` charges a frame that follows a sleep).
package enum ThreadCPUClock {
    package static func nanoseconds() -> UInt64 { clockNanoseconds(CLOCK_THREAD_CPUTIME_ID) }
}

/// `clock_gettime(clock)` in nanoseconds.
private func clockNanoseconds(_ clock: clockid_t) -> UInt64 {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
