import Glibc

/// Signals taken synchronously: the listed signals are blocked for the process and
/// collected with `sigtimedwait(2)` (zero timeout) from the caller's loop, so no handler
/// runs on a signal stack and no global flag is needed. The caller's loop must wake at
/// least as often as it wants to notice a signal (the sensor loop wakes every sample).
package final class PendingSignals {
    private var mask = sigset_t()
    private var previousMask = sigset_t()

    /// Blocks `signals` (`pthread_sigmask(SIG_BLOCK)`).
    package init(signals: [Int32]) {
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        pthread_sigmask(SIG_BLOCK, &mask, &previousMask)
    }

    deinit { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }

    /// The pending signals among those blocked, without waiting.
    package func drain() -> [Int32] {
        var out: [Int32] = []
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        while true {
            let s = sigtimedwait(&mask, nil, &zero)
            if s <= 0 { break }
            out.append(s)
        }
        return out
    }
}
