import CWaylandClient
import Glibc

/// A connection to a Wayland compositor (`wl_display_connect`) and its registry
/// (`wl_display_get_registry`), disconnected when the last object made from it is gone.
///
/// Events are read and dispatched only by `dispatch()`, which never blocks: the owner
/// polls `fileDescriptor` (or not: a loop may read the events of a whole second at once)
/// and calls it. Requests are sent by `flush()`.
package final class WaylandConnection {
    let display: OpaquePointer
    private var registry: OpaquePointer?

    /// A global was announced (at the first `roundtrip`, then whenever one is added).
    package var onGlobal: (WaylandGlobal) -> Void = { _ in }
    /// A global went away (its registry name): an output unplugged.
    package var onGlobalRemoved: (UInt32) -> Void = { _ in }

    /// Connects to `name` (`wl_display_connect`): a socket name in XDG_RUNTIME_DIR or a
    /// path; nil takes WAYLAND_DISPLAY, else "wayland-0", as every client does.
    package init(name: String?) throws(WaylandError) {
        guard let d = wl_display_connect(name) else {
            throw WaylandError("wl_display_connect \(name ?? "")", String(cString: strerror(errno)))
        }
        display = d
        registry = wl_display_get_registry(d)
        wl_registry_add_listener(registry, &Self.registryListener.pointee, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let registry { wl_registry_destroy(registry) }
        wl_display_disconnect(display)
    }

    /// The socket (`wl_display_get_fd`): readable when events came.
    package var fileDescriptor: Int32 { wl_display_get_fd(display) }

    /// Sends the requests and waits until the compositor has handled them and sent what
    /// they caused, dispatched meanwhile (`wl_display_roundtrip`).
    package func roundtrip() throws(WaylandError) {
        try waylandCheck("wl_display_roundtrip", display, wl_display_roundtrip(display))
    }

    /// Sends the queued requests (`wl_display_flush`). A full socket (EAGAIN) keeps the
    /// rest for the next flush.
    package func flush() throws(WaylandError) {
        if wl_display_flush(display) < 0 && errno != EAGAIN {
            throw WaylandError("wl_display_flush", connectionFailure(display))
        }
    }

    /// Reads what the socket holds without waiting and dispatches every queued event
    /// (`wl_display_prepare_read`, `wl_display_read_events`, `wl_display_dispatch_pending`).
    /// Throws once the connection is broken: the compositor went away (EPIPE) or sent a
    /// protocol error.
    package func dispatch() throws(WaylandError) {
        while wl_display_prepare_read(display) != 0 {
            try waylandCheck("wl_display_dispatch_pending", display, wl_display_dispatch_pending(display))
        }
        if wl_display_flush(display) < 0 && errno != EAGAIN && errno != EPIPE {
            wl_display_cancel_read(display)
            throw WaylandError("wl_display_flush", connectionFailure(display))
        }
        try waylandCheck("wl_display_read_events", display, wl_display_read_events(display))
        try waylandCheck("wl_display_dispatch_pending", display, wl_display_dispatch_pending(display))
    }

    /// Binds global `name` (`wl_registry_bind`) as `interface` at `version`.
    func bind(_ name: UInt32, _ interface: UnsafePointer<wl_interface>, version: UInt32) -> OpaquePointer? {
        guard let registry, let p = wl_registry_bind(registry, name, interface, version) else { return nil }
        return OpaquePointer(p)
    }

    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        p.initialize(
            to: wl_registry_listener(
                global: { data, _, name, interface, version in
                    guard let data, let interface else { return }
                    let c = Unmanaged<WaylandConnection>.fromOpaque(data).takeUnretainedValue()
                    c.onGlobal(WaylandGlobal(name: name, interface: String(cString: interface), version: version))
                },
                global_remove: { data, _, name in
                    guard let data else { return }
                    Unmanaged<WaylandConnection>.fromOpaque(data).takeUnretainedValue().onGlobalRemoved(name)
                }))
        return p
    }()
}
