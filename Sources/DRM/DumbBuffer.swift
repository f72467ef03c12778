import CDRM
import Glibc

/// A dumb buffer (DRM_IOCTL_MODE_CREATE_DUMB) mapped into the process, with a
/// framebuffer object (DRM_IOCTL_MODE_ADDFB2, XRGB8888) so it can be scanned out.
/// Dumb buffers may be write-combined or uncached: write them, never read them.
/// Keeps its card alive; `destroy()` (or deinit) unmaps it, removes the framebuffer and
/// destroys the buffer.
package final class DumbBuffer {
    package let card: DRMCard
    package let width: Int
    package let height: Int
    /// Bytes per row, as the driver chose it.
    package let pitch: Int
    package let byteCount: Int
    package let handle: UInt32
    package let framebufferID: UInt32
    /// The mapping: `pitch * height` bytes, row-major, 4 bytes a pixel (B, G, R, X).
    package let base: UnsafeMutableRawPointer
    private var destroyed = false

    init(card: DRMCard, width: Int, height: Int) throws(DRMError) {
        self.card = card
        self.width = width
        self.height = height
        let fd = card.fileDescriptor
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        try DRMCall.check("drmModeCreateDumbBuffer \(width)x\(height)", card.path) {
            drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size)
        }
        func undoBuffer() { _ = drmModeDestroyDumbBuffer(fd, handle) }
        var offset: UInt64 = 0
        do {
            try DRMCall.check("drmModeMapDumbBuffer \(handle)", card.path) { drmModeMapDumbBuffer(fd, handle, &offset) }
        } catch { undoBuffer(); throw error }
        let mapped = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let mapped, mapped != MAP_FAILED else {
            let e = errno
            undoBuffer()
            throw DRMError(
                operation: "mmap dumb buffer \(handle) (\(size) bytes at \(offset))", device: card.path, code: e)
        }
        var fb: UInt32 = 0
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        do {
            try DRMCall.check("drmModeAddFB2 \(width)x\(height) XR24", card.path) {
                withUnsafePointer(to: &handles) { h in
                    withUnsafePointer(to: &pitches) { p in
                        withUnsafePointer(to: &offsets) { o in
                            h.withMemoryRebound(to: UInt32.self, capacity: 4) { h in
                                p.withMemoryRebound(to: UInt32.self, capacity: 4) { p in
                                    o.withMemoryRebound(to: UInt32.self, capacity: 4) { o in
                                        drmModeAddFB2(
                                            fd, UInt32(width), UInt32(height), shim_drm_format_xrgb8888(),
                                            h, p, o, &fb, 0)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        } catch {
            munmap(mapped, Int(size))
            undoBuffer()
            throw error
        }
        self.handle = handle
        self.pitch = Int(pitch)
        byteCount = Int(size)
        base = mapped
        framebufferID = fb
    }

    deinit { try? destroy() }

    /// `munmap(2)`, `drmModeRmFB()`, `drmModeDestroyDumbBuffer()`; the first failure is
    /// thrown after all three were tried.
    package func destroy() throws(DRMError) {
        guard !destroyed else { return }
        destroyed = true
        munmap(base, byteCount)
        let fd = card.fileDescriptor
        var failure: DRMError?
        do { try DRMCall.check("drmModeRmFB \(framebufferID)", card.path) { drmModeRmFB(fd, framebufferID) } } catch {
            failure = error
        }
        do {
            try DRMCall.check("drmModeDestroyDumbBuffer \(handle)", card.path) { drmModeDestroyDumbBuffer(fd, handle) }
        } catch { failure = failure ?? error }
        if let failure { throw failure }
    }
}
