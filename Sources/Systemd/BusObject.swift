import CSystemd
import Glibc

/// A property or argument value on the bus, with its D-Bus type.
package enum BusValue: Equatable, Sendable {
    case string(String)
    case double(Double)
    case uint64(UInt64)
    case uint32(UInt32)
    case bool(Bool)
    /// `(dd)`: a point.
    case point(Double, Double)

    /// The D-Bus type signature.
    package var signature: String {
        switch self {
        case .string: "s"
        case .double: "d"
        case .uint64: "t"
        case .uint32: "u"
        case .bool: "b"
        case .point: "(dd)"
        }
    }
}

/// One object on the bus with one interface of read-only properties and methods without
/// arguments, served through sd-bus's low-level object callback (`sd_bus_add_object`):
/// `org.freedesktop.DBus.Properties` Get and GetAll, `Introspectable.Introspect` (the
/// interface's XML, as given), the interface's methods; `PropertiesChanged` on request.
/// Values come from `value(name)` when asked, so the bus always reads the present state.
///
/// Any local user may call it, so what a caller sends is bounded before it is used: a
/// call whose arguments are not of the method's signature is refused (InvalidArgs), a
/// name argument longer than the 255 characters of a D-Bus name is refused unread, and an
/// error reply never repeats what the caller sent (a reply as large as the call would
/// let a caller that never reads make the daemon hold both). A call flagged "no reply
/// expected" gets none built.
package final class BusObject {
    package let path: String
    package let interface: String
    /// Property names in the order of the interface.
    private let properties: [String]
    private let methods: Set<String>
    private let introspection: String
    private let value: (String) -> BusValue?
    private let call: (_ method: String, _ sender: String?) -> Refusal?
    private let bus: SystemBus
    private var slot: OpaquePointer?

    /// - Parameters:
    ///   - interfaceXML: the `<interface>` element, served inside the object's introspection.
    ///   - value: a property's present value, nil for an unknown name.
    ///   - call: a method of the interface was called (by the unique name `sender`); nil
    ///     to answer it, or the error to answer instead.
    package init(
        bus: SystemBus, path: String, interface: String, properties: [String], methods: [String],
        interfaceXML: String, value: @escaping (String) -> BusValue?,
        call: @escaping (_ method: String, _ sender: String?) -> Refusal?
    ) throws(SystemBusError) {
        self.bus = bus
        self.path = path
        self.interface = interface
        self.properties = properties
        self.methods = Set(methods)
        self.value = value
        self.call = call
        introspection = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
             <interface name="org.freedesktop.DBus.Peer">
              <method name="Ping"/>
              <method name="GetMachineId"><arg type="s" name="machine_uuid" direction="out"/></method>
             </interface>
             <interface name="org.freedesktop.DBus.Introspectable">
              <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
             </interface>
             <interface name="org.freedesktop.DBus.Properties">
              <method name="Get"><arg name="interface_name" direction="in" type="s"/><arg name="property_name" direction="in" type="s"/><arg name="value" direction="out" type="v"/></method>
              <method name="GetAll"><arg name="interface_name" direction="in" type="s"/><arg name="props" direction="out" type="a{sv}"/></method>
              <method name="Set"><arg name="interface_name" direction="in" type="s"/><arg name="property_name" direction="in" type="s"/><arg name="value" direction="in" type="v"/></method>
              <signal name="PropertiesChanged"><arg type="s" name="interface_name"/><arg type="a{sv}" name="changed_properties"/><arg type="as" name="invalidated_properties"/></signal>
             </interface>
            \(interfaceXML)
            </node>
            """
        var s: OpaquePointer?
        let r = sd_bus_add_object(
            bus.raw, &s, path,
            { m, user, _ in
                guard let m, let user else { return 0 }
                return Unmanaged<BusObject>.fromOpaque(user).takeUnretainedValue().dispatch(m)
            }, Unmanaged.passUnretained(self).toOpaque())
        guard r >= 0 else { throw SystemBusError(operation: "sd_bus_add_object", errno: -r) }
        slot = s
    }

    deinit { if let slot { sd_bus_slot_unref(slot) } }

    /// `PropertiesChanged(interface, changed, [])`.
    package func emitPropertiesChanged(_ changed: [(String, BusValue)]) {
        guard !changed.isEmpty else { return }
        var m: OpaquePointer?
        guard sd_bus_message_new_signal(bus.raw, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged") >= 0,
            let m
        else { return }
        defer { sd_bus_message_unref(m) }
        guard appendString(m, interface), sd_bus_message_open_container(m, Self.array, "{sv}") >= 0 else { return }
        for (name, v) in changed {
            guard appendEntry(m, name, v) else { return }
        }
        guard sd_bus_message_close_container(m) >= 0, sd_bus_message_open_container(m, Self.array, "s") >= 0,
            sd_bus_message_close_container(m) >= 0
        else { return }
        sd_bus_send(bus.raw, m, nil)
    }

    /// An error a method answers with: its D-Bus name and a message of the daemon's own.
    package struct Refusal: Equatable, Sendable {
        package var name: String
        package var message: String
        package init(_ name: String, _ message: String) {
            self.name = name
            self.message = message
        }
    }

    // MARK: dispatch

    private static let array = CChar(UInt8(ascii: "a"))
    private static let propertiesInterface = "org.freedesktop.DBus.Properties"
    private static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    /// The longest interface or member name the D-Bus specification allows.
    static let maximumNameLength = 255

    private func dispatch(_ m: OpaquePointer) -> Int32 {
        // The header's interface and member are checked by the bus as names (255 at most).
        guard let ifaceC = sd_bus_message_get_interface(m),
            let memberC = sd_bus_message_get_member(m), sd_bus_message_is_method_call(m, nil, nil) > 0
        else { return 0 }
        let iface = String(cString: ifaceC), member = String(cString: memberC)
        if iface == Self.propertiesInterface || iface == "org.freedesktop.DBus.Introspectable",
            sd_bus_message_get_expect_reply(m) == 0
        {
            return 1  // a read nobody waits for (a flood's): nothing to do, nothing parsed
        }
        switch (iface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return takes(m, "Introspect", "") ?? reply(m) { appendString($0, introspection) }
        case (Self.propertiesInterface, "Get"):
            if let refused = takes(m, "Get", "ss") { return refused }
            guard let i = readName(m), let name = readName(m) else { return nameTooLong(m) }
            guard i == interface, properties.contains(name), let v = value(name) else {
                return error(
                    m,
                    Refusal(
                        "org.freedesktop.DBus.Error.UnknownProperty",
                        "no such property; \(interface) has \(properties.joined(separator: ", "))"))
            }
            return reply(m) { appendVariant($0, v) }
        case (Self.propertiesInterface, "GetAll"):
            if let refused = takes(m, "GetAll", "s") { return refused }
            guard let i = readName(m) else { return nameTooLong(m) }
            return reply(m) { r in
                guard sd_bus_message_open_container(r, Self.array, "{sv}") >= 0 else { return false }
                if i == interface || i.isEmpty {
                    for name in properties {
                        if let v = value(name), !appendEntry(r, name, v) { return false }
                    }
                }
                return sd_bus_message_close_container(r) >= 0
            }
        case (Self.propertiesInterface, "Set"):
            return takes(m, "Set", "ssv")
                ?? error(
                    m,
                    Refusal(
                        "org.freedesktop.DBus.Error.PropertyReadOnly", "the properties of \(interface) are read-only"))
        case (interface, _) where methods.contains(member):
            if let refused = takes(m, member, "") { return refused }
            if let refusal = call(member, sd_bus_message_get_sender(m).map { String(cString: $0) }) {
                return error(m, refusal)
            }
            return reply(m) { _ in true }
        default:
            return 0  // sd-bus answers UnknownMethod
        }
    }

    /// nil when the call's arguments are of `signature`, else the InvalidArgs answer.
    private func takes(_ m: OpaquePointer, _ method: String, _ signature: String) -> Int32? {
        sd_bus_message_has_signature(m, signature) > 0
            ? nil
            : error(m, Refusal(Self.invalidArgs, "\(method) takes (\(signature))"))
    }

    /// The next string argument, nil (unread) when it is longer than a D-Bus name can be.
    private func readName(_ m: OpaquePointer) -> String? {
        var p: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p,
            strnlen(p, Self.maximumNameLength + 1) <= Self.maximumNameLength
        else { return nil }
        return String(cString: p)
    }

    private func nameTooLong(_ m: OpaquePointer) -> Int32 {
        error(
            m,
            Refusal(
                Self.invalidArgs,
                "interface and property names are at most "
                    + "\(Self.maximumNameLength) characters"))
    }

    /// Sends the reply `fill` builds, unless the caller asked for none.
    private func reply(_ m: OpaquePointer, _ fill: (OpaquePointer) -> Bool) -> Int32 {
        guard sd_bus_message_get_expect_reply(m) > 0 else { return 1 }
        var r: OpaquePointer?
        let made = sd_bus_message_new_method_return(m, &r)
        guard made >= 0, let r else { return made }
        defer { sd_bus_message_unref(r) }
        guard fill(r) else { return -EINVAL }
        return sd_bus_send(nil, r, nil) < 0 ? -EIO : 1
    }

    private func error(_ m: OpaquePointer, _ refusal: Refusal) -> Int32 {
        guard sd_bus_message_get_expect_reply(m) > 0 else { return 1 }
        var e = sd_bus_error(name: nil, message: nil, _need_free: 0)
        sd_bus_error_set(&e, refusal.name, refusal.message)
        defer { sd_bus_error_free(&e) }
        sd_bus_reply_method_error(m, &e)
        return 1
    }

    private func appendString(_ m: OpaquePointer, _ s: String) -> Bool {
        s.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) >= 0 }
    }

    private func appendEntry(_ m: OpaquePointer, _ name: String, _ v: BusValue) -> Bool {
        sd_bus_message_open_container(m, CChar(UInt8(ascii: "e")), "sv") >= 0 && appendString(m, name)
            && appendVariant(m, v) && sd_bus_message_close_container(m) >= 0
    }

    private func appendVariant(_ m: OpaquePointer, _ v: BusValue) -> Bool {
        guard sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), v.signature) >= 0 else { return false }
        var ok: Bool
        switch v {
        case .string(let s): ok = appendString(m, s)
        case .double(var d): ok = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "d")), &d) >= 0
        case .uint64(var n): ok = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "t")), &n) >= 0
        case .uint32(var n): ok = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &n) >= 0
        case .bool(let b):
            var i: Int32 = b ? 1 : 0
            ok = sd_bus_message_append_basic(m, CChar(UInt8(ascii: "b")), &i) >= 0
        case .point(var x, var y):
            ok =
                sd_bus_message_open_container(m, CChar(UInt8(ascii: "r")), "dd") >= 0
                && sd_bus_message_append_basic(m, CChar(UInt8(ascii: "d")), &x) >= 0
                && sd_bus_message_append_basic(m, CChar(UInt8(ascii: "d")), &y) >= 0
                && sd_bus_message_close_container(m) >= 0
        }
        return ok && sd_bus_message_close_container(m) >= 0
    }
}
