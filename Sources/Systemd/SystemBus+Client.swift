import CSystemd
import Glibc

/// What a client of another service on the bus needs: a method call without arguments
/// (the viewer's `Claim()`).
extension SystemBus {
    /// Calls `member` of `interface` (no arguments) on `destination`'s object `path`,
    /// without waiting (`sd_bus_message_new_method_call`, `sd_bus_call_async`, a floating
    /// slot); `done` gets nil once it returned, else the error's name and message.
    package func callMethod(
        destination: String, path: String, interface: String, member: String,
        done: @escaping (String?) -> Void
    ) throws(SystemBusError) {
        var m: OpaquePointer?
        var r = sd_bus_message_new_method_call(raw, &m, destination, path, interface, member)
        guard r >= 0, let m else {
            throw SystemBusError(operation: "sd_bus_message_new_method_call \(member)", errno: -r)
        }
        defer { sd_bus_message_unref(m) }
        let box = Unmanaged.passRetained(Reply(done)).toOpaque()
        r = sd_bus_call_async(
            raw, nil, m,
            { reply, user, _ in
                guard let user else { return 0 }
                let w = Unmanaged<Reply>.fromOpaque(user).takeRetainedValue()
                if let reply, let e = sd_bus_message_get_error(reply), sd_bus_error_is_set(e) != 0 {
                    w.done(
                        "\(e.pointee.name.map { String(cString: $0) } ?? "error"): "
                            + "\(e.pointee.message.map { String(cString: $0) } ?? "")")
                } else {
                    w.done(nil)
                }
                return 0
            }, box, 0)
        guard r >= 0 else {
            Unmanaged<Reply>.fromOpaque(box).release()
            throw SystemBusError(operation: "sd_bus_call_async \(member)", errno: -r)
        }
    }

    private final class Reply {
        let done: (String?) -> Void
        init(_ done: @escaping (String?) -> Void) { self.done = done }
    }
}
