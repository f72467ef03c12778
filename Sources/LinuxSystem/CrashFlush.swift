import CLinux
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

// The restore calls a crash makes, in slots the handler walks in order. A slot is armed
// by its state word (1), stored with release ordering once its call is written and
// loaded with acquire ordering by the handler, so a handler on another thread never sees
// an armed slot with half a call. Set up by `install` or the first registration (their
// first use), never from the handler; changed by registrations only, from one thread at
// a time (the daemon's loop).
private let restoreCapacity = 8
private nonisolated(unsafe) let restoreStates: UnsafeMutablePointer<UInt32> = {
    let states = UnsafeMutablePointer<UInt32>.allocate(capacity: restoreCapacity)
    states.initialize(repeating: 0, count: restoreCapacity)
    return states
}()
private nonisolated(unsafe) let restoreCalls: UnsafeMutablePointer<CrashFlush.Restore> = {
    let calls = UnsafeMutablePointer<CrashFlush.Restore>.allocate(capacity: restoreCapacity)
    calls.initialize(repeating: CrashFlush.Restore(fileDescriptor: -1, request: 0, argument: 0), count: restoreCapacity)
    return calls
}()

/// What a crash must not leave behind: when the process dies of a fault (SIGSEGV,
/// SIGBUS, SIGILL: a Swift runtime trap, SIGTRAP, SIGFPE, SIGABRT, SIGSYS), a handler
/// first puts back what registered owners changed on devices (the display's CRTC, the
/// console's mode: ioctl(2) calls prepared beforehand), then writes the registered bytes
/// to the registered descriptor with write(2), then hands the signal to the action it
/// replaced (the Swift runtime's backtrace, or the default: the same death, the same
/// core dump). The daemon registers its trace's queued lines, so a crash loses nothing
/// that was traced before it, and the DRM sink its CRTC as it found it, so the console
/// comes back; only SIGKILL prevents both.
///
/// The handler takes no lock, allocates nothing and calls nothing of the Swift runtime
/// that could: it reads plain globals set up before it can run, and makes only
/// ioctl(2) and write(2) calls. write(2) is on POSIX's list of async-signal-safe
/// functions; ioctl(2) is not on the list, but in glibc it is the bare system call, as
/// write is (libdrm's drmModeSetCrtc, which builds its struct and may be wrapped, is not
/// called from here: its struct is prepared by the owner).
///
/// Best effort by nature: a fault inside the very call that changes the buffer may find
/// it mid-change. Every other fault finds whole lines.
package enum CrashFlush {
    package static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// One ioctl(2) a crash makes to put a device back as it was found, prepared whole by
    /// its owner: the handler only makes the call. `argument` is ioctl's third argument
    /// as the kernel takes it (an unsigned long): a value (KDSETMODE's mode), or the
    /// address of memory that stays valid and unchanged while the call is registered
    /// (DRM_IOCTL_MODE_SETCRTC's `struct drm_mode_crtc`).
    package struct Restore: Sendable {
        package let fileDescriptor: Int32
        package let request: UInt
        package let argument: UInt

        package init(fileDescriptor: Int32, request: UInt, argument: UInt) {
            self.fileDescriptor = fileDescriptor
            self.request = request
            self.argument = argument
        }
    }

    /// Restore calls armed for a crash until this is released (deinit disarms them).
    /// Holds the objects that own their descriptors and argument memory, so neither is
    /// closed or freed while a crash may still use it.
    package final class Registration {
        private let slots: [Int]
        private let owners: [AnyObject]

        fileprivate init(slots: [Int], owners: [AnyObject]) {
            self.slots = slots
            self.owners = owners
        }

        deinit {
            for slot in slots { shim_store_release_u32(restoreStates + slot, 0) }
        }
    }

    /// Installs the handler for `signals`, keeping the actions it replaces. Once per
    /// process: the daemon's start.
    package static func install() {
        _ = restoreStates
        _ = restoreCalls
        for s in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { signal, info, _ in
                // The display first, then the trace. The restore calls use memory prepared
                // once and never changed while armed, and are a few ioctls that return;
                // the trace's queue may be found mid-change (reading it can fault again,
                // and a second fault in the handler kills the process at once, before
                // anything after it) and its write may wait on a slow disk. So nothing the
                // trace's write does can leave the console dark, and the restore touches
                // nothing the trace needs.
                CrashFlush.restoreRegistered()
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

    /// Arms `calls`, made by a crash in this order (after those registered before them),
    /// until the registration is released; `owners` (the holders of their descriptors and
    /// argument memory) are kept alive as long. Nil when fewer than `calls.count` of the
    /// crash handler's 8 slots are free. From the thread that makes every registration.
    package static func register(restoring calls: [Restore], keeping owners: [AnyObject]) -> Registration? {
        var free: [Int] = []
        var slot = 0
        while slot < restoreCapacity, free.count < calls.count {
            if shim_load_acquire_u32(restoreStates + slot) == 0 { free.append(slot) }
            slot += 1
        }
        guard free.count == calls.count else { return nil }
        for (slot, call) in zip(free, calls) {
            restoreCalls[slot] = call
            shim_store_release_u32(restoreStates + slot, 1)
        }
        return Registration(slots: free, owners: owners)
    }

    /// The handler's first step: each armed restore call, in slot order; a failing call
    /// does not stop the others. Called by the handler only (and by tests).
    package static func restoreRegistered() {
        var slot = 0
        while slot < restoreCapacity {
            if shim_load_acquire_u32(restoreStates + slot) == 1 {
                let call = restoreCalls[slot]
                while shim_ioctl(call.fileDescriptor, call.request, call.argument) < 0 && errno == EINTR {}
            }
            slot += 1
        }
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
