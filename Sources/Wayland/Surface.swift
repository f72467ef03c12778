import CWaylandClient

/// A surface (wl_surface): what a buffer is shown on. Requests take effect at `commit`.
package final class Surface {
    let proxy: OpaquePointer
    let connection: WaylandConnection

    init(_ proxy: OpaquePointer, _ connection: WaylandConnection) {
        self.proxy = proxy
        self.connection = connection
    }

    deinit { wl_surface_destroy(proxy) }

    /// Shows `buffer` from the next commit (`wl_surface_attach` at 0, 0).
    package func attach(_ buffer: ShmBuffer) {
        wl_surface_attach(proxy, buffer.proxy, 0, 0)
    }

    /// Marks a rectangle of the attached buffer, in buffer pixels, as changed
    /// (`wl_surface_damage_buffer`, wl_surface version 4).
    package func damageBuffer(x: Int, y: Int, width: Int, height: Int) {
        wl_surface_damage_buffer(proxy, Int32(x), Int32(y), Int32(width), Int32(height))
    }

    /// The buffer's pixels per surface unit (`wl_surface_set_buffer_scale`).
    package func setBufferScale(_ scale: Int) {
        wl_surface_set_buffer_scale(proxy, Int32(scale))
    }

    /// Where the surface takes pointer and touch input (`wl_surface_set_input_region`);
    /// an empty region lets every click through.
    package func setInputRegion(_ region: Region) {
        wl_surface_set_input_region(proxy, region.proxy)
    }

    /// Asks to be told when the compositor next shows the surface (`wl_surface_frame`):
    /// `done` runs then, once. A compositor that does not show the surface (covered,
    /// on an output that is off) sends nothing.
    package func requestFrame(_ done: @escaping (_ milliseconds: UInt32) -> Void) -> FrameCallback? {
        guard let c = wl_surface_frame(proxy) else { return nil }
        return FrameCallback(c, connection, done)
    }

    /// Applies the pending state (`wl_surface_commit`).
    package func commit() {
        wl_surface_commit(proxy)
    }
}

/// A frame callback (wl_callback of `wl_surface_frame`), destroyed with the object:
/// drop it to stop waiting.
package final class FrameCallback {
    let proxy: OpaquePointer
    let connection: WaylandConnection
    private let done: (UInt32) -> Void
    /// Whether `done` ran.
    package private(set) var fired = false

    init(_ proxy: OpaquePointer, _ connection: WaylandConnection, _ done: @escaping (UInt32) -> Void) {
        self.proxy = proxy
        self.connection = connection
        self.done = done
        wl_callback_add_listener(proxy, &Self.listener.pointee, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { wl_callback_destroy(proxy) }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_callback_listener> = {
        let p = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        p.initialize(
            to: wl_callback_listener(done: { data, _, time in
                guard let data else { return }
                let c = Unmanaged<FrameCallback>.fromOpaque(data).takeUnretainedValue()
                c.fired = true
                c.done(time)
            }))
        return p
    }()
}
