import Glibc

/// CLOCK_MONOTONIC (`clock_gettime`), the clock of the trace's `t` and the shm header's
/// `frame_time_ns`.
package enum MonotonicClock {
    package static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    package static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }
}
