import Glibc

/// `poll(2)` for readability on a few descriptors.
package enum ReadinessPoll {
    /// Waits until one of `fds` is readable or `timeoutSeconds` pass (EINTR counts as a
    /// timeout, so a signal wakes the caller). Replaces the contents of `ready` with the
    /// readable descriptors; a caller that keeps `ready` between calls allocates nothing
    /// (the pollfd array is on the stack), which the daemon's loop, calling this at every
    /// wakeup, relies on.
    ///
    /// The timeout is rounded UP to whole milliseconds: rounding down turns a 0.6 ms wait
    /// into poll(0), and a loop waiting for a deadline would spin until it comes. Waking
    /// up to 1 ms late is harmless for 100 Hz sensors and 60 fps frames.
    package static func waitReadable(_ fds: [Int32], timeoutSeconds: Double, into ready: inout [Int32]) {
        ready.removeAll(keepingCapacity: true)
        // Infinity: no timeout at all (-1), only a descriptor wakes the caller.
        let ms = timeoutSeconds == .infinity ? -1 : Int32((max(0, min(timeoutSeconds, 3600)) * 1000).rounded(.up))
        withUnsafeTemporaryAllocation(of: pollfd.self, capacity: max(fds.count, 1)) { pfds in
            for (i, fd) in fds.enumerated() { pfds[i] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0) }
            guard poll(pfds.baseAddress, nfds_t(fds.count), ms) > 0 else { return }
            for p in pfds[..<fds.count] where p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { ready.append(p.fd) }
        }
    }

    /// Waits until `fd` can take a write (POLLOUT), an error or hang-up is reported on it
    /// (the next write then says which), or `timeoutSeconds` pass; false on the timeout.
    package static func waitWritable(_ fd: Int32, timeoutSeconds: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ms = Int32((max(0, min(timeoutSeconds, 3600)) * 1000).rounded(.up))
        return poll(&p, 1, ms) > 0
    }

    /// The bounded drain of a non-blocking writer being closed: while `pending()` and
    /// within `seconds`, waits until `fd` takes writes and calls `write`, which returns
    /// false to give up. A reader that is slow, not stalled, gets the rest; a stop stays
    /// prompt whatever it does.
    package static func drain(_ fd: Int32, forAtMost seconds: Double, while pending: () -> Bool, write: () -> Bool) {
        let deadline = MonotonicClock.seconds() + seconds
        while pending() {
            let left = deadline - MonotonicClock.seconds()
            guard left > 0, waitWritable(fd, timeoutSeconds: left), write() else { return }
        }
    }

    /// The readable descriptors among `fds`, as a new array.
    package static func waitReadable(_ fds: [Int32], timeoutSeconds: Double) -> [Int32] {
        var ready: [Int32] = []
        waitReadable(fds, timeoutSeconds: timeoutSeconds, into: &ready)
        return ready
    }
}
