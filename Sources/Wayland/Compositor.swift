import CWaylandClient

/// The compositor global (wl_compositor): makes surfaces and regions.
package final class Compositor {
    let proxy: OpaquePointer
    let connection: WaylandConnection

    /// Binds `global` (an announced "wl_compositor") at version 4 or the compositor's
    /// own if lower; nil when the bind fails.
    package init?(_ connection: WaylandConnection, _ global: WaylandGlobal) {
        guard let p = connection.bind(global.name, shim_wl_compositor_interface(), version: min(global.version, 4))
        else {
            return nil
        }
        proxy = p
        self.connection = connection
    }

    deinit { wl_compositor_destroy(proxy) }

    /// A new surface (`wl_compositor_create_surface`).
    package func makeSurface() -> Surface? {
        guard let s = wl_compositor_create_surface(proxy) else { return nil }
        return Surface(s, connection)
    }

    /// A new, empty region (`wl_compositor_create_region`).
    package func makeRegion() -> Region? {
        guard let r = wl_compositor_create_region(proxy) else { return nil }
        return Region(r, connection)
    }
}

/// A region (wl_region): an area of a surface; empty until rectangles are added.
package final class Region {
    let proxy: OpaquePointer
    let connection: WaylandConnection

    init(_ proxy: OpaquePointer, _ connection: WaylandConnection) {
        self.proxy = proxy
        self.connection = connection
    }

    deinit { wl_region_destroy(proxy) }
}
