import CLinux
import Glibc

/// Where a loop finds the signals sent to it: `PendingSignals` in the running process.
package protocol SignalSource: AnyObject {
    /// Readable while a signal is pending; nil when there is none to poll, and `drain`
    /// must be asked at every wakeup.
    var fileDescriptor: Int32? { get }
    /// Whether a loop that polled `readable` (the descriptors its wait reported) has a
    /// signal to drain.
    func mayBePending(readable: [Int32]) -> Bool
    /// The pending signals, without waiting, in arrival order.
    func drain() -> [Signal]
}

/// Signals taken synchronously: the listed signals are blocked for the process and
/// collected from the caller's loop, so no handler runs on a signal stack and no global
/// flag is needed.
///
/// They arrive through a `signalfd(2)`: a loop that adds `fileDescriptor` to the
/// descriptors it polls wakes as soon as a signal is pending, and looks (`drain`) only
/// when the descriptor is readable, so a loop iteration without a signal costs no system
/// call. Without a signalfd (`fileDescriptor` nil) `drain` asks `sigtimedwait(2)` with a
/// zero timeout, and the loop must wake at least as often as it wants to notice a signal.
package final class PendingSignals: SignalSource {
    private var mask = sigset_t()
    private var previousMask = sigset_t()
    /// The signalfd (nil if signalfd failed).
    private let signalFile: FileDescriptor?
    /// Readable while one of the signals is pending (nil if signalfd failed).
    package var fileDescriptor: Int32? { signalFile?.rawValue }

    /// Blocks `signals` (`pthread_sigmask(SIG_BLOCK)`) and opens a non-blocking signalfd for
    /// them; `ProcessSignals.take` is the one caller.
    init(taking signals: [Signal]) {
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s.rawValue) }
        pthread_sigmask(SIG_BLOCK, &mask, &previousMask)
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        signalFile = fd >= 0 ? FileDescriptor(adopting: fd, path: "signalfd") : nil
    }

    deinit { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }

    /// Whether a loop that polled `readable` (the descriptors its wait reported) has a
    /// signal to drain: the signalfd is among them, or there is no signalfd.
    package func mayBePending(readable: [Int32]) -> Bool {
        guard let fd = fileDescriptor else { return true }
        return readable.contains(fd)
    }

    /// The pending signals among those blocked, without waiting, in arrival order.
    package func drain() -> [Signal] {
        var out: [Signal] = []
        if let file = signalFile {
            var info = signalfd_siginfo()
            let size = MemoryLayout<signalfd_siginfo>.size
            // One record per read; EAGAIN (thrown) when none is left.
            while let n = try? retryingEINTR(
                "read", path: file.path,
                {
                    withUnsafeMutableBytes(of: &info) { Glibc.read(file.rawValue, $0.baseAddress, size) }
                }), n == size
            {
                out.append(Signal(rawValue: Int32(bitPattern: info.ssi_signo)))
            }
            return out
        }
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        while true {
            let s = sigtimedwait(&mask, nil, &zero)
            if s <= 0 { break }
            out.append(Signal(rawValue: s))
        }
        return out
    }
}
