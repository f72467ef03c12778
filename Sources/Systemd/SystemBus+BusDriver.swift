import CSystemd
import Glibc

/// The bus's own signals (`NameOwnerChanged`, `NameAcquired`, `NameLost`) are believed only
/// when the message itself says that the bus sent it. A match rule's
/// `sender='org.freedesktop.DBus'` proves nothing: sd-bus compares a match's well-known
/// sender with the names it knows of the message's sender, and without them takes any unique
/// name as a possible owner of it (bus-match.c, `value_node_test`), while any local user may
/// send a signal addressed to one connection, which dbus-daemon delivers whatever that
/// connection's match rules say. The message's sender field is the bus's to write:
/// dbus-daemon puts there the unique name of the connection that sent it, and
/// `org.freedesktop.DBus` only on what it sends itself.
extension SystemBus {
    /// The bus driver's name, the sender of its own signals and the destination of its methods.
    static let busDriver = "org.freedesktop.DBus"

    /// The match rule for the bus's `NameOwnerChanged` about `name`: what the bus sends
    /// this connection (the handler still checks `isFromBusDriver`).
    static func nameOwnerChangedMatch(_ name: String) -> String {
        "type='signal',sender='\(busDriver)',path='/org/freedesktop/DBus',"
            + "interface='\(busDriver)',member='NameOwnerChanged',arg0='\(name)'"
    }

    /// `sd_bus_message_get_sender()` is `org.freedesktop.DBus`: the bus sent `m`.
    static func isFromBusDriver(_ m: OpaquePointer) -> Bool {
        isSent(m, by: busDriver)
    }

    /// `sd_bus_message_get_sender()` is `sender` (a unique name: who sent it, as the bus says).
    static func isSent(_ m: OpaquePointer, by sender: String) -> Bool {
        guard let s = sd_bus_message_get_sender(m) else { return false }
        return strcmp(s, sender) == 0
    }

    /// `NameOwnerChanged(name, old owner, new owner)` read from `m`, nil when the bus did
    /// not send it or it is not three strings. A new owner "" means the name has none.
    static func nameOwnerChanged(_ m: OpaquePointer) -> (name: String, oldOwner: String, newOwner: String)? {
        guard isFromBusDriver(m) else { return nil }
        var strings: [String] = []
        for _ in 0..<3 {
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return nil }
            strings.append(String(cString: p))
        }
        return (strings[0], strings[1], strings[2])
    }
}
