import Glibc

/// `poll(2)` for readability on a few descriptors.
package enum ReadinessPoll {
    /// Waits until one of `fds` is readable or `timeoutSeconds` pass (EINTR counts as a
    /// timeout, so a signal wakes the caller). Returns the readable descriptors.
    ///
    /// The timeout is rounded UP to whole milliseconds: rounding down turns a 0.6 ms wait
    /// into poll(0), and a loop waiting for a deadline would spin until it comes. Waking
    /// up to 1 ms late is harmless for 100 Hz sensors and 60 fps frames.
    package static func waitReadable(_ fds: [Int32], timeoutSeconds: Double) -> [Int32] {
        let ms = Int32((max(0, min(timeoutSeconds, 3600)) * 1000).rounded(.up))
        // On the stack: the daemon's loop calls this at every wakeup.
        return withUnsafeTemporaryAllocation(of: pollfd.self, capacity: max(fds.count, 1)) { pfds in
            for (i, fd) in fds.enumerated() { pfds[i] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0) }
            let r = poll(pfds.baseAddress, nfds_t(fds.count), ms)
            guard r > 0 else { return [] }
            var ready: [Int32] = []
            for p in pfds[..<fds.count] where p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { ready.append(p.fd) }
            return ready
        }
    }
}
