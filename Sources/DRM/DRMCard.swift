import CDRM
import Glibc

/// A completed page flip, as the kernel reports it (`struct drm_event_vblank` of type
/// DRM_EVENT_FLIP_COMPLETE): the vblank counter and when the new buffer went on screen.
package struct DRMFlipEvent: Sendable, Equatable {
    package let sequence: UInt32
    package let seconds: UInt32
    package let microseconds: UInt32
}

/// An open DRM card node (/dev/dri/cardN). Opened non-blocking: `readEvents()` returns
/// what is waiting and never blocks; the owner polls `fileDescriptor` for readability.
package final class DRMCard {
    package let path: String
    package let fileDescriptor: Int32
    /// Where drmHandleEvent's callback leaves the flips it read (passed to the kernel as
    /// each flip's user data and handed back in its event).
    private let inbox = FlipInbox()

    /// `open(2)` with O_RDWR | O_CLOEXEC | O_NONBLOCK.
    package init(path: String) throws(DRMError) {
        self.path = path
        fileDescriptor = try DRMCall.value("open", path) { open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK) }
    }

    deinit { close(fileDescriptor) }

    /// `drmSetMaster()`: fails with EBUSY while another program (a compositor) is master,
    /// EACCES when this one may not become master.
    package func becomeMaster() throws(DRMError) {
        try DRMCall.check("drmSetMaster", path) { drmSetMaster(fileDescriptor) }
    }

    /// `drmDropMaster()`.
    package func dropMaster() throws(DRMError) {
        try DRMCall.check("drmDropMaster", path) { drmDropMaster(fileDescriptor) }
    }

    /// `drmGetCap()`.
    package func capability(_ cap: UInt64) throws(DRMError) -> UInt64 {
        var value: UInt64 = 0
        try DRMCall.check("drmGetCap \(cap)", path) { drmGetCap(fileDescriptor, cap, &value) }
        return value
    }

    /// Whether the driver can create dumb buffers (DRM_CAP_DUMB_BUFFER).
    package func supportsDumbBuffers() throws(DRMError) -> Bool {
        try capability(UInt64(DRM_CAP_DUMB_BUFFER)) != 0
    }

    /// `drmModeGetResources()`.
    package func resources() throws(DRMError) -> DRMResources {
        let r = try DRMCall.pointer("drmModeGetResources", path) { drmModeGetResources(fileDescriptor) }
        defer { drmModeFreeResources(r) }
        let res = r.pointee
        return DRMResources(
            crtcIDs: Self.array(res.crtcs, res.count_crtcs),
            connectorIDs: Self.array(res.connectors, res.count_connectors),
            encoderIDs: Self.array(res.encoders, res.count_encoders))
    }

    /// `drmModeGetConnector()` (which probes the connector, as a hotplug needs).
    package func connector(_ id: UInt32) throws(DRMError) -> DRMConnector {
        let c = try DRMCall.pointer("drmModeGetConnector \(id)", path) { drmModeGetConnector(fileDescriptor, id) }
        defer { drmModeFreeConnector(c) }
        let conn = c.pointee
        let typeName =
            drmModeGetConnectorTypeName(conn.connector_type).map { String(cString: $0) }
            ?? "Unknown\(conn.connector_type)"
        let connection: DRMConnection =
            switch conn.connection {
            case DRM_MODE_CONNECTED: .connected
            case DRM_MODE_DISCONNECTED: .disconnected
            default: .unknown
            }
        var modes: [DRMMode] = []
        for i in 0..<Int(max(0, conn.count_modes)) { modes.append(DRMMode(conn.modes[i])) }
        var properties: [(id: UInt32, value: UInt64)] = []
        for i in 0..<Int(max(0, conn.count_props)) { properties.append((conn.props[i], conn.prop_values[i])) }
        return DRMConnector(
            id: conn.connector_id, name: "\(typeName)-\(conn.connector_type_id)", connection: connection,
            modes: modes, encoderID: conn.encoder_id,
            encoderIDs: Self.array(conn.encoders, conn.count_encoders), properties: properties)
    }

    /// `drmModeGetEncoder()`.
    package func encoder(_ id: UInt32) throws(DRMError) -> DRMEncoder {
        let e = try DRMCall.pointer("drmModeGetEncoder \(id)", path) { drmModeGetEncoder(fileDescriptor, id) }
        defer { drmModeFreeEncoder(e) }
        return DRMEncoder(id: e.pointee.encoder_id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs)
    }

    /// `drmModeGetCrtc()`.
    package func crtc(_ id: UInt32) throws(DRMError) -> DRMCrtc {
        let c = try DRMCall.pointer("drmModeGetCrtc \(id)", path) { drmModeGetCrtc(fileDescriptor, id) }
        defer { drmModeFreeCrtc(c) }
        let crtc = c.pointee
        return DRMCrtc(
            id: crtc.crtc_id, framebufferID: crtc.buffer_id, x: crtc.x, y: crtc.y,
            mode: crtc.mode_valid != 0 ? DRMMode(crtc.mode) : nil)
    }

    /// `drmModeGetProperty()`.
    package func property(_ id: UInt32) throws(DRMError) -> DRMProperty {
        let p = try DRMCall.pointer("drmModeGetProperty \(id)", path) { drmModeGetProperty(fileDescriptor, id) }
        defer { drmModeFreeProperty(p) }
        var names: [UInt64: String] = [:]
        for i in 0..<Int(max(0, p.pointee.count_enums)) {
            names[p.pointee.enums[i].value] = DRMCall.string(p.pointee.enums[i].name)
        }
        return DRMProperty(id: p.pointee.prop_id, name: DRMCall.string(p.pointee.name), enumNames: names)
    }

    /// The value name of the connector's enum property `name` (its id and value come with
    /// the connector; `drmModeGetProperty` names them); nil when it has no such property.
    package func enumProperty(_ name: String, of connector: DRMConnector) throws(DRMError) -> String? {
        for (id, value) in connector.properties {
            let p = try property(id)
            if p.name == name { return p.enumNames[value] ?? "\(value)" }
        }
        return nil
    }

    /// `drmModeSetCrtc()`: scan out `framebufferID` from (x, y) on `connectors` in
    /// `mode`; framebuffer 0 with no connectors and no mode turns the CRTC off.
    package func setCrtc(
        _ crtcID: UInt32, framebufferID: UInt32, x: UInt32 = 0, y: UInt32 = 0,
        connectors: [UInt32], mode: DRMMode?
    ) throws(DRMError) {
        var ids = connectors
        var info = mode?.raw ?? drmModeModeInfo()
        let hasMode = mode != nil
        try DRMCall.check("drmModeSetCrtc \(crtcID)", path) {
            ids.withUnsafeMutableBufferPointer { c in
                withUnsafeMutablePointer(to: &info) { m in
                    drmModeSetCrtc(
                        fileDescriptor, crtcID, framebufferID, x, y, c.baseAddress, Int32(c.count),
                        hasMode ? m : nil)
                }
            }
        }
    }

    /// `setCrtc` with these arguments, prepared now and made later (`perform()`), or by a
    /// crash handler through ioctl(2): see `DRMPreparedSetCrtc`.
    package func prepareSetCrtc(
        _ crtcID: UInt32, framebufferID: UInt32, x: UInt32 = 0, y: UInt32 = 0,
        connectors: [UInt32], mode: DRMMode?
    ) -> DRMPreparedSetCrtc {
        DRMPreparedSetCrtc(
            card: self, crtcID: crtcID, framebufferID: framebufferID, x: x, y: y, connectors: connectors,
            mode: mode)
    }

    /// `drmModePageFlip()` with DRM_MODE_PAGE_FLIP_EVENT: `framebufferID` goes on screen
    /// at the next vblank, and an event says when (`readEvents`). EBUSY while a flip is
    /// still pending on the CRTC.
    package func pageFlip(_ crtcID: UInt32, to framebufferID: UInt32) throws(DRMError) {
        let userData = Unmanaged.passUnretained(inbox).toOpaque()
        try DRMCall.check("drmModePageFlip \(crtcID) fb \(framebufferID)", path) {
            drmModePageFlip(fileDescriptor, crtcID, framebufferID, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData)
        }
    }

    /// `drmHandleEvent()`: reads the events waiting on the descriptor and returns the
    /// page flips among them; none (not an error) when nothing is waiting.
    package func readEvents() throws(DRMError) -> [DRMFlipEvent] {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, sequence, seconds, microseconds, userData in
            guard let userData else { return }
            Unmanaged<FlipInbox>.fromOpaque(userData).takeUnretainedValue().flips
                .append(DRMFlipEvent(sequence: sequence, seconds: seconds, microseconds: microseconds))
        }
        inbox.flips.removeAll()
        do {
            try DRMCall.check("drmHandleEvent", path) { drmHandleEvent(fileDescriptor, &context) }
        } catch  where error.code == EAGAIN {
            return []
        }
        return inbox.flips
    }

    /// `drmModeCreateDumbBuffer()` + `drmModeMapDumbBuffer()` + `mmap(2)` +
    /// `drmModeAddFB2()`: a `width` x `height` XRGB8888 buffer the CPU draws into, with
    /// its framebuffer object.
    package func makeDumbBuffer(width: Int, height: Int) throws(DRMError) -> DumbBuffer {
        try DumbBuffer(card: self, width: width, height: height)
    }

    private static func array(_ p: UnsafeMutablePointer<UInt32>?, _ count: Int32) -> [UInt32] {
        guard let p, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: Int(count)))
    }
}

/// Flip events read by one `drmHandleEvent` call.
final class FlipInbox {
    var flips: [DRMFlipEvent] = []
}
