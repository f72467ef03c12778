import CWaylandClient

/// An output (wl_output): a monitor, with the scale and the mode the compositor gives it.
/// The values are those of the last `done` (wl_output version 2 and later send one after
/// each set of changes).
package final class Output {
    let proxy: OpaquePointer
    let connection: WaylandConnection
    /// The registry's name for it (what `WaylandConnection.onGlobalRemoved` names).
    package let globalName: UInt32
    /// Device pixels per surface unit (wl_output.scale; 1 until told).
    package private(set) var scale = 1
    /// The current mode, device pixels (0 until told).
    package private(set) var modeWidth = 0
    package private(set) var modeHeight = 0
    /// Its name, e.g. "HEADLESS-1", "eDP-1" (wl_output version 4; nil before).
    package private(set) var name: String?
    /// A set of changes is complete.
    package var onDone: () -> Void = {}

    private var pendingScale = 1

    /// Binds `global` (an announced "wl_output") at version 4 or the compositor's own.
    package init?(_ connection: WaylandConnection, _ global: WaylandGlobal) {
        guard let p = connection.bind(global.name, shim_wl_output_interface(), version: min(global.version, 4)) else {
            return nil
        }
        proxy = p
        self.connection = connection
        globalName = global.name
        wl_output_add_listener(p, &Self.listener.pointee, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        // wl_output.release (version 3) tells the compositor; before it, only the proxy goes.
        if wl_proxy_get_version(proxy) >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
    }

    private static func of(_ data: UnsafeMutableRawPointer?) -> Output? {
        data.map { Unmanaged<Output>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_output_listener> = {
        let p = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        p.initialize(
            to: wl_output_listener(
                geometry: { _, _, _, _, _, _, _, _, _, _ in },
                mode: { data, _, flags, width, height, _ in
                    guard let o = Output.of(data), flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
                    o.modeWidth = Int(width)
                    o.modeHeight = Int(height)
                },
                done: { data, _ in
                    guard let o = Output.of(data) else { return }
                    o.scale = o.pendingScale
                    o.onDone()
                },
                scale: { data, _, factor in Output.of(data)?.pendingScale = max(1, Int(factor)) },
                name: { data, _, name in
                    guard let o = Output.of(data), let name else { return }
                    o.name = String(cString: name)
                },
                description: { _, _, _ in }))
        return p
    }()
}
