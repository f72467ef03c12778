import CDRM
import Glibc

/// A DRM_IOCTL_MODE_SETCRTC built once, in memory of its own: the `struct drm_mode_crtc`
/// (uapi drm_mode.h) and the connector list it points to, allocated and filled at init,
/// freed in deinit, never changed in between. For a call that must build nothing when it
/// is made: a CRTC set back as it was found, by `perform()` on an ordinary release and,
/// through `fileDescriptor`, `request` and `argument`, by a crash handler calling ioctl(2)
/// itself (libdrm's drmModeSetCrtc fills the same struct on its stack first, which is
/// nothing a signal handler should rely on). Keeps its card, and so the descriptor, open.
package final class DRMPreparedSetCrtc {
    package let card: DRMCard
    package let crtcID: UInt32
    private let crtc: UnsafeMutablePointer<drm_mode_crtc>
    private let connectors: UnsafeMutablePointer<UInt32>

    /// The struct drmModeSetCrtc would pass for the same arguments (framebuffer 0 with no
    /// connectors and no mode turns the CRTC off).
    init(
        card: DRMCard, crtcID: UInt32, framebufferID: UInt32, x: UInt32, y: UInt32, connectors ids: [UInt32],
        mode: DRMMode?
    ) {
        self.card = card
        self.crtcID = crtcID
        connectors = .allocate(capacity: max(1, ids.count))
        connectors.initialize(repeating: 0, count: max(1, ids.count))
        for (i, id) in ids.enumerated() { connectors[i] = id }
        crtc = .allocate(capacity: 1)
        crtc.initialize(to: drm_mode_crtc())
        crtc.pointee.crtc_id = crtcID
        crtc.pointee.fb_id = framebufferID
        crtc.pointee.x = x
        crtc.pointee.y = y
        crtc.pointee.count_connectors = UInt32(ids.count)
        crtc.pointee.set_connectors_ptr = ids.isEmpty ? 0 : UInt64(UInt(bitPattern: connectors))
        if let mode {
            // drmModeModeInfo is libdrm's copy of struct drm_mode_modeinfo: drmModeSetCrtc
            // memcpy's one into the other.
            withUnsafeMutableBytes(of: &crtc.pointee.mode) { to in
                withUnsafeBytes(of: mode.raw) { to.copyMemory(from: $0) }
            }
            crtc.pointee.mode_valid = 1
        }
    }

    deinit {
        crtc.deallocate()
        connectors.deallocate()
    }

    /// The card's descriptor, for ioctl(2).
    package var fileDescriptor: Int32 { card.fileDescriptor }
    /// DRM_IOCTL_MODE_SETCRTC.
    package var request: UInt { shim_drm_ioctl_mode_setcrtc() }
    /// The address of the prepared `struct drm_mode_crtc`, ioctl's third argument.
    package var argument: UInt { UInt(bitPattern: crtc) }

    /// `drmIoctl(DRM_IOCTL_MODE_SETCRTC)` with the prepared struct (libdrm retries EINTR
    /// and EAGAIN).
    package func perform() throws(DRMError) {
        let (fd, request, crtc) = (fileDescriptor, request, crtc)
        try DRMCall.check("DRM_IOCTL_MODE_SETCRTC \(crtcID)", card.path) {
            drmIoctl(fd, request, UnsafeMutableRawPointer(crtc))
        }
    }
}
