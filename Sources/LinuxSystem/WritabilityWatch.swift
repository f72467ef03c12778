import CLinux
import Glibc

/// One descriptor's writability as another's readability: an epoll(7) instance with the
/// watched descriptor registered for EPOLLOUT (level-triggered) polls readable while that
/// descriptor can take a write. A loop that waits only for readable descriptors
/// (`ReadinessPoll.waitReadable`, or a wait built on it) adds `fileDescriptor` to them and
/// so also wakes when a full pipe has room again. Other events may be watched instead
/// (`watch(_:events:)`: a bus connection asks for POLLIN, POLLOUT or both as it goes).
///
/// The watched descriptor changes only when `watch` is given another one or other events
/// (a system call then, none otherwise), so a loop may call it on every wakeup. A watched
/// descriptor must be unwatched (`watch(nil)`) before it is closed: its number may come
/// back for another descriptor, which would then look watched already.
package final class WritabilityWatch {
    /// The epoll instance: readable while the watched descriptor takes writes.
    package let fileDescriptor: Int32
    package private(set) var watched: Int32?
    private var watchedEvents: UInt32 = 0

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
        watch(fd, events: Int16(POLLOUT))
    }

    /// Watches `fd` for the poll(2) `events` (POLLIN, POLLOUT: the same bits as epoll's);
    /// the watch's descriptor polls readable while any of them holds.
    @discardableResult
    package func watch(_ fd: Int32?, events: Int16) -> Bool {
        let wanted = UInt32(UInt16(bitPattern: events))
        if fd == watched, fd == nil || wanted == watchedEvents { return true }
        var event = epoll_event()
        event.events = wanted
        if let fd, fd == watched {
            event.data.fd = fd
            guard epoll_ctl(fileDescriptor, EPOLL_CTL_MOD, fd, &event) == 0 else { return false }
            watchedEvents = wanted
            return true
        }
        if let old = watched {
            // Fails with EBADF or ENOENT once the old descriptor is closed, which has
            // removed it already.
            _ = epoll_ctl(fileDescriptor, EPOLL_CTL_DEL, old, nil)
            watched = nil
        }
        guard let fd else { return true }
        event.data.fd = fd
        guard epoll_ctl(fileDescriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        watched = fd
        watchedEvents = wanted
        return true
    }

    /// Whether `ready` (the readable descriptors of a wait) says the watched descriptor
    /// takes writes.
    package func isWritable(in ready: [Int32]) -> Bool {
        watched != nil && ready.contains(fileDescriptor)
    }
}
