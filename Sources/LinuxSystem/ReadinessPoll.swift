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
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ms = Int32((max(0, min(timeoutSeconds, 3600)) * 1000).rounded(.up))
        let r = pfds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), ms) }
        guard r > 0 else { return [] }
        return pfds.filter { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }.map(\.fd)
    }
}
