// DRM: a typed wrapper of libdrm's KMS API (`xf86drm.h`, `xf86drmMode.h`, imported as CDRM).
//
// Purpose: what a program that owns a display through DRM/KMS needs and no more: the
// card's resources, connectors with their modes and properties, encoders and CRTCs; DRM
// master; dumb buffers (CPU-drawn scanout memory, mapped into the process); framebuffer
// objects; setting a CRTC (now, or prepared for later: a crash handler's restore) and
// queueing page flips whose completion is read as an event from the card's descriptor.
// Invariants: a `DRMCard` owns its descriptor and closes it in `deinit`; a `DumbBuffer`
// keeps its card alive and unmaps, removes its framebuffer and destroys its buffer in
// `deinit`. Every libdrm call goes through `DRMCall` (DRMCall.swift), which turns its
// return conventions into `DRMError` and retries EINTR. Not thread-safe: use from one thread.
// Must not import: LinuxSystem, Raster, Output or anything above layer 1a.
import CDRM
import Glibc

/// A failed libdrm call: what was done, on which card, and errno.
package struct DRMError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let device: String
    package let code: Int32

    /// Another program is DRM master (EBUSY), or this one may not become master or do
    /// what only the master may (EACCES, EPERM): a compositor or another console owns it.
    package var isMasterConflict: Bool { code == EBUSY || code == EACCES || code == EPERM }

    package var codeName: String {
        switch code {
        case EBUSY: "EBUSY"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case ENOENT: "ENOENT"
        case EINVAL: "EINVAL"
        case ENODEV: "ENODEV"
        case ENOMEM: "ENOMEM"
        case ENOTTY: "ENOTTY"
        default: "errno \(code)"
        }
    }

    package var description: String {
        "\(operation) \(device): \(String(cString: strerror(code))) (\(codeName))"
    }
}
