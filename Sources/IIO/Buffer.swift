import CIIO
import Glibc

/// An input buffer of a device (`struct iio_buffer`): created with the enabled
/// channels, refilled, read as raw scans. Destroying it disables the kernel buffer.
package final class Buffer {
    package let device: Device
    let raw: OpaquePointer

    /// `iio_device_create_buffer()`: enables the kernel buffer for the channels enabled
    /// with `Channel.enable()`.
    /// - Parameter samples: scans per refill.
    package init(device: Device, samples: Int) throws(IIOError) {
        self.device = device
        raw = try IIOCall.pointer("iio_device_create_buffer", device.id) {
            iio_device_create_buffer(device.raw, samples, false)
        }
    }

    deinit { iio_buffer_destroy(raw) }

    /// `iio_buffer_get_poll_fd()`: readable when a refill would not block.
    package func pollFileDescriptor() throws(IIOError) -> Int32 {
        try IIOCall.check("iio_buffer_get_poll_fd", device.id) { iio_buffer_get_poll_fd(raw) }
    }

    /// `iio_buffer_set_blocking_mode()`.
    package func setBlocking(_ blocking: Bool) throws(IIOError) {
        try IIOCall.check("iio_buffer_set_blocking_mode", device.id) { iio_buffer_set_blocking_mode(raw, blocking) }
    }

    /// `iio_buffer_refill()`: bytes read, or nil when a non-blocking buffer has nothing
    /// waiting (EAGAIN, the end of every drain: no error value is built for it).
    package func refill() throws(IIOError) -> Int? {
        while true {
            let r = iio_buffer_refill(raw)
            if r == -Int(EAGAIN) { return nil }
            if r == -Int(EINTR) { continue }
            return try IIOCall.check("iio_buffer_refill", device.id) { r }
        }
    }

    /// `iio_buffer_step()`: bytes per scan.
    package var step: Int { iio_buffer_step(raw) }

    /// `iio_buffer_start()` .. `iio_buffer_end()`: the bytes of the last refill.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let start = iio_buffer_start(raw), let end = iio_buffer_end(raw) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: end - start))
    }

    /// `iio_buffer_cancel()`.
    package func cancel() { iio_buffer_cancel(raw) }
}
