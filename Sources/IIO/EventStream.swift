import CIIO
import Glibc

/// A device's event stream: the descriptor the kernel hands out for `IIO_GET_EVENT_FD_IOCTL`
/// on the device's character device (include/uapi/linux/iio/events.h; libiio 0.24 has no
/// event API). Readable when events wait; each is a `struct iio_event_data`, 16 bytes
/// (`recordSize`): the event code, then its timestamp in ns. The kernel hands out one
/// stream per device at a time (EBUSY for a second). Owns the descriptor: closed on deinit.
package final class EventStream {
    /// The event descriptor, non-blocking.
    package let fileDescriptor: Int32
    /// `sizeof(struct iio_event_data)`.
    package static let recordSize = MemoryLayout<iio_event_data>.size

    /// The stream of the device whose character device `deviceDescriptor` is open (in
    /// buffer mode, libiio's: `Buffer.pollFileDescriptor`).
    package init(deviceDescriptor: Int32, device: String) throws(IIOError) {
        let fd = try IIOCall.check("ioctl IIO_GET_EVENT_FD_IOCTL", device) { shimmerd_iio_event_fd(deviceDescriptor) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        fileDescriptor = fd
    }

    /// The stream of the device at `node` (`/dev/iio:deviceN`), opened for the ioctl and
    /// closed again: the event descriptor stands on its own, and the node stays free for
    /// another reader's buffer.
    package convenience init(node: String, device: String) throws(IIOError) {
        let fd = try IIOCall.check("open", node) { () -> Int32 in
            let r = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            return r < 0 ? -errno : r
        }
        defer { Glibc.close(fd) }
        try self.init(deviceDescriptor: fd, device: device)
    }

    deinit { Glibc.close(fileDescriptor) }

    /// Reads what waits into `buffer`: the byte count, 0 when nothing waits (EAGAIN).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(IIOError) -> Int {
        try IIOCall.check("read", "event stream \(fileDescriptor)") { () -> Int in
            let n = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
            if n < 0 { return errno == EAGAIN ? 0 : -Int(errno) }
            return n
        }
    }
}
