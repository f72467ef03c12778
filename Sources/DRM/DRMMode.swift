import CDRM

/// A display mode (`drmModeModeInfo`, uapi `struct drm_mode_modeinfo`).
package struct DRMMode: @unchecked Sendable, CustomStringConvertible {
    package let raw: drmModeModeInfo

    package init(_ raw: drmModeModeInfo) { self.raw = raw }

    /// Pixels.
    package var width: Int { Int(raw.hdisplay) }
    package var height: Int { Int(raw.vdisplay) }
    /// Hz, as the kernel rounds it (`vrefresh`).
    package var refreshHz: Int { Int(raw.vrefresh) }
    /// The mode the display itself asks for (DRM_MODE_TYPE_PREFERRED, from its EDID).
    package var isPreferred: Bool { raw.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }
    package var name: String { DRMCall.string(raw.name) }

    package var description: String { "\(width)x\(height)@\(refreshHz)" }
}

/// A connector's link state (`drmModeConnection`).
package enum DRMConnection: Sendable, Equatable {
    case connected, disconnected, unknown
}

/// One display output (`drmModeConnector`): its name as the kernel spells it
/// (`eDP-1`, `HDMI-A-1`), link state, modes and the encoder driving it now.
package struct DRMConnector: Sendable {
    package let id: UInt32
    package let name: String
    package let connection: DRMConnection
    package let modes: [DRMMode]
    /// The encoder currently routed to it (0: none).
    package let encoderID: UInt32
    package let encoderIDs: [UInt32]
    /// Property ids and their values (`props`, `prop_values`).
    package let properties: [(id: UInt32, value: UInt64)]
}

/// An encoder (`drmModeEncoder`): the CRTC it is routed from now and the CRTCs it can
/// take (a bit per index into the card's CRTC list).
package struct DRMEncoder: Sendable {
    package let id: UInt32
    package let crtcID: UInt32
    package let possibleCRTCs: UInt32
}

/// A CRTC's state (`drmModeCrtc`): the framebuffer it scans out, where from, in which mode.
package struct DRMCrtc: Sendable {
    package let id: UInt32
    package let framebufferID: UInt32
    package let x: UInt32
    package let y: UInt32
    /// Nil when the CRTC is off (`mode_valid` 0).
    package let mode: DRMMode?
}

/// The card's mode-setting objects (`drmModeRes`).
package struct DRMResources: Sendable {
    package let crtcIDs: [UInt32]
    package let connectorIDs: [UInt32]
    package let encoderIDs: [UInt32]
}

/// A property's definition (`drmModePropertyRes`): its name and, for an enum property,
/// the names of its values.
package struct DRMProperty: Sendable {
    package let id: UInt32
    package let name: String
    package let enumNames: [UInt64: String]
}
