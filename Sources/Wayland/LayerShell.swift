import CWaylandClient

/// The layer shell global (zwlr_layer_shell_v1, wlr-layer-shell-unstable-v1): surfaces
/// that are layers of an output (background, bottom, top, overlay) rather than windows.
package final class LayerShell {
    let proxy: OpaquePointer
    let connection: WaylandConnection

    /// The layers, bottom to top (`zwlr_layer_shell_v1.layer`).
    package enum Layer: UInt32, Sendable {
        case background = 0
        case bottom = 1
        case top = 2
        case overlay = 3
    }

    /// Binds `global` (an announced "zwlr_layer_shell_v1") at version 4 or the
    /// compositor's own (sway 1.7 offers 4).
    package init?(_ connection: WaylandConnection, _ global: WaylandGlobal) {
        guard
            let p = connection.bind(global.name, shim_zwlr_layer_shell_v1_interface(), version: min(global.version, 4))
        else {
            return nil
        }
        proxy = p
        self.connection = connection
    }

    deinit {
        // The destroy request exists from version 3; before it, only the proxy goes.
        if wl_proxy_get_version(proxy) >= 3 { zwlr_layer_shell_v1_destroy(proxy) } else { wl_proxy_destroy(proxy) }
    }

    /// Gives `surface` the layer surface role on `output` (`get_layer_surface`), in
    /// `layer`, under `namespace` (how the compositor's rules name it).
    package func makeLayerSurface(_ surface: Surface, on output: Output, layer: Layer, namespace: String)
        -> LayerSurface?
    {
        guard
            let p = zwlr_layer_shell_v1_get_layer_surface(proxy, surface.proxy, output.proxy, layer.rawValue, namespace)
        else {
            return nil
        }
        return LayerSurface(p, connection, surface: surface)
    }
}

/// A layer surface (zwlr_layer_surface_v1). Its state is double-buffered: the requests
/// take effect at the surface's next commit. The compositor answers the first commit with
/// `configure` (the size to use); no buffer may be attached before it is acknowledged.
package final class LayerSurface {
    let proxy: OpaquePointer
    let connection: WaylandConnection
    /// The wl_surface it is the role of (kept alive: the role dies first).
    package let surface: Surface

    /// The edges it is anchored to (`zwlr_layer_surface_v1.anchor`).
    package struct Anchor: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let top = Anchor(rawValue: ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue)
        package static let bottom = Anchor(rawValue: ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue)
        package static let left = Anchor(rawValue: ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue)
        package static let right = Anchor(rawValue: ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue)
        package static let all: Anchor = [.top, .bottom, .left, .right]
    }

    /// The compositor's size for it, in surface units, and the serial to acknowledge.
    package var onConfigure: (_ serial: UInt32, _ width: Int, _ height: Int) -> Void = { _, _, _ in }
    /// The compositor will not show it again (its output went away): destroy it.
    package var onClosed: () -> Void = {}

    init(_ proxy: OpaquePointer, _ connection: WaylandConnection, surface: Surface) {
        self.proxy = proxy
        self.connection = connection
        self.surface = surface
        zwlr_layer_surface_v1_add_listener(proxy, &Self.listener.pointee, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { zwlr_layer_surface_v1_destroy(proxy) }

    /// `set_size`: 0 in a dimension anchored at both edges takes the output's.
    package func setSize(width: Int, height: Int) {
        zwlr_layer_surface_v1_set_size(proxy, UInt32(width), UInt32(height))
    }

    /// `set_anchor`.
    package func setAnchor(_ anchor: Anchor) {
        zwlr_layer_surface_v1_set_anchor(proxy, anchor.rawValue)
    }

    /// `set_exclusive_zone`: -1 extends under panels and is never moved for them.
    package func setExclusiveZone(_ zone: Int) {
        zwlr_layer_surface_v1_set_exclusive_zone(proxy, Int32(zone))
    }

    /// `set_keyboard_interactivity` none (0 in every version): it never takes the keyboard.
    package func refuseKeyboard() {
        zwlr_layer_surface_v1_set_keyboard_interactivity(
            proxy, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue)
    }

    /// `ack_configure`: the next commit uses the configure of `serial`.
    package func acknowledge(_ serial: UInt32) {
        zwlr_layer_surface_v1_ack_configure(proxy, serial)
    }

    private static func of(_ data: UnsafeMutableRawPointer?) -> LayerSurface? {
        data.map { Unmanaged<LayerSurface>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let p = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        p.initialize(
            to: zwlr_layer_surface_v1_listener(
                configure: { data, _, serial, width, height in
                    LayerSurface.of(data)?.onConfigure(serial, Int(width), Int(height))
                },
                closed: { data, _ in LayerSurface.of(data)?.onClosed() }))
        return p
    }()
}
