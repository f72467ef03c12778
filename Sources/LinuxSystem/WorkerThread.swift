import CLinux
import Glibc

/// A thread of its own running one closure (`pthread_create`), joined with `join()`
/// (`pthread_join`) or when the object goes away. Every signal is blocked in it: SIGTERM,
/// SIGHUP and the others reach the thread that waits for them (the daemon's signalfd,
/// `PendingSignals`), never a worker, whose default action would end the process.
package final class WorkerThread {
    private var thread: pthread_t?

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    package init(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        // A new thread starts with its creator's signal mask: block everything around the
        // creation, so the worker never runs a moment with signals open.
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(
            &t, nil,
            { data in
                Unmanaged<Body>.fromOpaque(data!).takeRetainedValue().run()
                return nil
            }, box)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: rc)
        }
        thread = t
    }

    deinit { join() }

    /// Waits for the closure to return; once.
    package func join() {
        guard let t = thread else { return }
        thread = nil
        pthread_join(t, nil)
    }

    /// Lets the thread run on unjoined (`pthread_detach`): for one that may sleep long in
    /// a call nothing can interrupt (FUTEX_WAIT with a timeout), which the process's exit
    /// ends. Once; `join` then does nothing.
    package func detach() {
        guard let t = thread else { return }
        thread = nil
        pthread_detach(t)
    }
}

/// A mutex and one condition variable (`pthread_mutex_t`, `pthread_cond_t`), for state
/// that a `WorkerThread` and its owner share. The C objects live at fixed addresses, as
/// POSIX requires.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `withLock`: releases the mutex until `signal` is called, then holds it again
    /// (`pthread_cond_wait`; callers re-check their condition, wakeups may be spurious).
    package func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every thread in `wait` (`pthread_cond_broadcast`).
    package func signal() {
        pthread_cond_broadcast(condition)
    }
}
