import Glibc

// The one buffer a crash writes out, set by its owner after every change (the trace
// writer's queue of lines). Plain globals: the crash handler may not take locks or
// allocate, and runs on whatever thread crashed.
private nonisolated(unsafe) var crashFileDescriptor: Int32 = -1
private nonisolated(unsafe) var crashBytes: UnsafeRawPointer?
private nonisolated(unsafe) var crashByteCount = 0

/// The actions found for the fault signals when `install` replaced them (the Swift
/// runtime's backtracer, or the default), by signal number.
/// Set up by `install` (its first use), never from the handler.
private nonisolated(unsafe) let previousActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    actions.initialize(repeating: sigaction(), count: 65)
    return actions
}()

/// The last bytes a crash must not lose: when the process dies of a fault (SIGSEGV,
/// SIGBUS, SIGILL: a Swift runtime trap, SIGTRAP, SIGFPE, SIGABRT, SIGSYS), a handler
/// writes the registered bytes to the registered descriptor with write(2), which is
/// async-signal-safe, then hands the signal to the action it replaced (the Swift
/// runtime's backtrace, or the default: the same death, the same core dump). The daemon
/// registers its trace's queued lines, so a crash loses nothing that was traced before
/// it; only SIGKILL does.
///
/// Best effort by nature: a fault inside the very call that changes the buffer may find
/// it mid-change. Every other fault finds whole lines.
package enum CrashFlush {
    package static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// Installs the handler for `signals`, keeping the actions it replaces. Once per
    /// process: the daemon's start.
    package static func install() {
        for s in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { signal, info, _ in
                CrashFlush.writeRegistered()
                // The replaced action takes over. A fault (si_code > 0) happens again when
                // the handler returns, now with that action and the faulting context; a
                // signal that was sent (kill, abort: si_code <= 0) is sent again.
                sigaction(signal, previousActions + Int(signal), nil)
                if let info, info.pointee.si_code <= 0 { raise(signal) }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO
            sigaction(s, &action, previousActions + Int(s))
        }
    }
    /// `bytes` (valid until the next call) are what a crash writes to `fd`.
    package static func register(fileDescriptor fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        crashBytes = nil
        crashByteCount = bytes.count
        crashBytes = bytes.baseAddress.map { UnsafeRawPointer($0) }
        crashFileDescriptor = fd
    }

    /// Nothing to write any more, if `fd` is what was registered (a closed trace).
    package static func unregister(fileDescriptor fd: Int32) {
        guard crashFileDescriptor == fd else { return }
        crashFileDescriptor = -1
        crashBytes = nil
        crashByteCount = 0
    }

    private static func writeRegistered() {
        guard crashFileDescriptor >= 0, let base = crashBytes else { return }
        var done = 0
        while done < crashByteCount {
            let n = write(crashFileDescriptor, base + done, crashByteCount - done)
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
