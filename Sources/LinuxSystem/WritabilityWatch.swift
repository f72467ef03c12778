import CLinux
import Glibc

/// One descriptor's writability as another's readability: an epoll(7) instance with the
/// watched descriptor registered for EPOLLOUT (level-triggered) polls readable while that
/// descriptor can take a write. A loop that waits only for readable descriptors
/// (`ReadinessPoll.waitReadable`, or a wait built on it) adds `fileDescriptor` to them and
/// so also wakes when a full pipe has room again.
///
/// The watched descriptor changes only when `watch` is given another one (a system call
/// then, none otherwise), so a loop may call it on every wakeup.
package final class WritabilityWatch {
    /// The epoll instance: readable while the watched descriptor takes writes.
    package let fileDescriptor: Int32
    package private(set) var watched: Int32?

    package init() throws(SystemError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError("epoll_create1", errno: errno) }
        fileDescriptor = fd
    }

    deinit { Glibc.close(fileDescriptor) }

    /// Watches `fd` for writability from now on (nil: none). A descriptor that cannot be
    /// watched (a regular file, which is always writable) is not: false, and `watched`
    /// is nil.
    @discardableResult
    package func watch(_ fd: Int32?) -> Bool {
        guard fd != watched else { return true }
        if let old = watched {
            // Fails with EBADF or ENOENT once the old descriptor is closed, which has
            // removed it already.
            _ = epoll_ctl(fileDescriptor, EPOLL_CTL_DEL, old, nil)
            watched = nil
        }
        guard let fd else { return true }
        var event = epoll_event()
        event.events = EPOLLOUT.rawValue
        event.data.fd = fd
        guard epoll_ctl(fileDescriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        watched = fd
        return true
    }

    /// Whether `ready` (the readable descriptors of a wait) says the watched descriptor
    /// takes writes.
    package func isWritable(in ready: [Int32]) -> Bool {
        watched != nil && ready.contains(fileDescriptor)
    }
}
