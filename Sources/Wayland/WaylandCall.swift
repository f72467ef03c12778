import CWaylandClient
import Glibc

// The libwayland-client calls that can fail report it as -1 with errno set; once the
// connection is broken, wl_display_get_error keeps the errno (EPROTO for a protocol
// error, whose interface and code wl_display_get_protocol_error gives).

/// What broke the connection, in words.
func connectionFailure(_ display: OpaquePointer) -> String {
    let code = wl_display_get_error(display)
    if code == EPROTO {
        var interface: UnsafePointer<wl_interface>?
        var id: UInt32 = 0
        let error = wl_display_get_protocol_error(display, &interface, &id)
        let name = interface.map { String(cString: $0.pointee.name) } ?? "an object"
        return "protocol error \(error) on \(name) \(id)"
    }
    return code == 0 ? "the connection failed" : String(cString: strerror(code))
}

/// A -1 of a call on the connection becomes a `WaylandError` naming the operation.
@discardableResult
func waylandCheck(_ operation: @autoclosure () -> String, _ display: OpaquePointer, _ result: Int32)
    throws(WaylandError) -> Int32
{
    guard result >= 0 else { throw WaylandError(operation(), connectionFailure(display)) }
    return result
}
