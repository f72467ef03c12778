import CDRM
import Glibc

/// The one place that turns libdrm's return conventions into `DRMError`. libdrm
/// reports failure three ways: `drmIoctl` and the calls built on it return -1 with errno
/// set; the `DRM_IOCTL` macro calls (drmModeSetCrtc, drmModePageFlip, drmModeAddFB2, ...)
/// return -errno and leave errno set too; the getters return NULL with errno set. errno
/// is cleared before each call, so a set errno wins over the return value (-1 is also
/// -EPERM). EINTR is retried (drmIoctl already retries EINTR and EAGAIN itself; the
/// calls that are not ioctls, such as read(2) in drmHandleEvent, do not).
enum DRMCall {
    static func check(_ operation: @autoclosure () -> String, _ device: String, _ body: () -> Int32) throws(DRMError) {
        while true {
            errno = 0
            let r = body()
            if r >= 0 { return }
            let code = errno != 0 ? errno : -r
            if code == EINTR { continue }
            throw DRMError(operation: operation(), device: device, code: code)
        }
    }

    static func value(_ operation: @autoclosure () -> String, _ device: String, _ body: () -> Int32) throws(DRMError)
        -> Int32
    {
        while true {
            errno = 0
            let r = body()
            if r >= 0 { return r }
            let code = errno != 0 ? errno : -r
            if code == EINTR { continue }
            throw DRMError(operation: operation(), device: device, code: code)
        }
    }

    static func pointer<P>(_ operation: @autoclosure () -> String, _ device: String, _ body: () -> P?) throws(DRMError)
        -> P
    {
        while true {
            errno = 0
            if let p = body() { return p }
            if errno == EINTR { continue }
            throw DRMError(operation: operation(), device: device, code: errno == 0 ? ENOENT : errno)
        }
    }

    /// A NUL-padded fixed-size C string field (mode and property names).
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
