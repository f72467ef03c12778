import CSystemd
import Glibc

/// A connection to the system bus through libsystemd's sd-bus, used only without
/// blocking: `sd_bus_open_system` connects (a Unix socket connects at once or fails),
/// the Hello, the match and every call are asynchronous, and the caller's loop polls
/// `fileDescriptor` and calls `process()` when it is readable.
///
/// What it offers is a watch of one well-known name: whether it has an owner now and
/// each change (`NameOwnerChanged`), as a callback.
package final class SystemBus {
    /// The `sd_bus *`, for the objects served on it (`BusObject`).
    let raw: OpaquePointer
    private var bus: OpaquePointer { raw }
    private var slots: [OpaquePointer] = []
    private var nameWatches: [NameWatch] = []
    private var nameRequests: [NameRequest] = []
    private var propertyWatches: [PropertiesWatch] = []

    /// `sd_bus_open_system()`: `DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket.
    /// - Throws: the errno text when there is no bus to connect to.
    package init() throws(SystemBusError) {
        var b: OpaquePointer?
        let r = sd_bus_open_system(&b)
        guard r >= 0, let b else { throw SystemBusError(operation: "sd_bus_open_system", errno: -r) }
        raw = b
    }

    deinit {
        for s in slots { sd_bus_slot_unref(s) }
        sd_bus_flush_close_unref(bus)
    }

    /// `sd_bus_get_fd()`: readable when a message is waiting.
    package var fileDescriptor: Int32 { sd_bus_get_fd(bus) }

    /// `sd_bus_process()` until nothing is left to do; never waits. Returns false once
    /// the connection is lost (the bus went away).
    @discardableResult
    package func process() -> Bool {
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return false }
            if r == 0 { return true }
        }
    }

    /// Asks for the well-known `name` (`sd_bus_request_name_async`, no flags: a second
    /// daemon does not take it over); `done` gets nil once it is ours, else why not.
    package func requestName(_ name: String, done: @escaping (String?) -> Void) throws(SystemBusError) {
        let w = NameRequest(name: name, done: done)
        nameRequests.append(w)
        var slot: OpaquePointer?
        let r = sd_bus_request_name_async(bus, &slot, name, 0, { m, user, _ in
            guard let m, let user else { return 0 }
            let w = Unmanaged<NameRequest>.fromOpaque(user).takeUnretainedValue()
            if let e = sd_bus_message_get_error(m), sd_bus_error_is_set(e) != 0 {
                w.done("\(e.pointee.name.map { String(cString: $0) } ?? "error"): \(e.pointee.message.map { String(cString: $0) } ?? "")")
                return 0
            }
            var code: UInt32 = 0
            _ = sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &code)
            // 1: primary owner, 4: already ours; 2: queued and 3: exists (another has it).
            w.done(code == 1 || code == 4 ? nil : "\(w.name) is owned by another process")
            return 0
        }, Unmanaged.passUnretained(w).toOpaque())
        guard r >= 0, let slot else { throw SystemBusError(operation: "sd_bus_request_name_async", errno: -r) }
        slots.append(slot)
    }

    /// Calls `changed(hasOwner)` once with whether `name` has an owner now, and again on
    /// every change of its owner.
    package func watchName(_ name: String, changed: @escaping (Bool) -> Void) throws(SystemBusError) {
        let w = NameWatch(name: name, changed: changed)
        nameWatches.append(w)
        let user = Unmanaged.passUnretained(w).toOpaque()
        let match = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
        try subscribe(match, onSignal: { m, user, _ in
            guard let m, let user else { return 0 }
            let w = Unmanaged<NameWatch>.fromOpaque(user).takeUnretainedValue()
            var strings: [String] = []
            for _ in 0..<3 {
                var p: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return 0 }
                strings.append(String(cString: p))
            }
            if strings[0] == w.name { w.changed(!strings[2].isEmpty) }
            return 0
        }, thenCall: ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", name),
           onReply: { m, user, _ in
            guard let m, let user else { return 0 }
            let w = Unmanaged<NameWatch>.fromOpaque(user).takeUnretainedValue()
            // An error reply (org.freedesktop.DBus.Error.NameHasNoOwner) means no owner.
            w.changed(sd_bus_message_is_method_error(m, nil) == 0)
            return 0
        }, user: user)
    }

    /// Adds the match rule `match` (its signals go to `onSignal`), then makes the
    /// asynchronous call `thenCall` with its one string argument (the reply goes to
    /// `onReply`): the state now, then its changes, none lost in between. Keeps both slots.
    private func subscribe(_ match: String, onSignal: sd_bus_message_handler_t,
                           thenCall c: (destination: String, path: String, interface: String, member: String, argument: String),
                           onReply: sd_bus_message_handler_t, user: UnsafeMutableRawPointer) throws(SystemBusError) {
        var slot: OpaquePointer?
        var r = sd_bus_add_match_async(bus, &slot, match, onSignal, nil, user)
        guard r >= 0, let slot else { throw SystemBusError(operation: "sd_bus_add_match_async", errno: -r) }
        slots.append(slot)
        var call: OpaquePointer?
        r = shimmerd_bus_call_with_string_async(bus, &call, c.destination, c.path, c.interface, c.member, c.argument,
                                                onReply, user)
        guard r >= 0, let call else { throw SystemBusError(operation: c.member, errno: -r) }
        slots.append(call)
    }

    /// Calls `changed` with the properties of `interface` on `destination`'s object `path`:
    /// all of them once (`GetAll`), then what each `PropertiesChanged` carries. Values of
    /// types `BusValue` does not have are left out.
    package func watchProperties(destination: String, path: String, interface: String,
                                 changed: @escaping ([(String, BusValue)]) -> Void) throws(SystemBusError) {
        let w = PropertiesWatch(interface: interface, changed: changed)
        propertyWatches.append(w)
        let user = Unmanaged.passUnretained(w).toOpaque()
        let match = "type='signal',sender='\(destination)',path='\(path)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='\(interface)'"
        try subscribe(match, onSignal: { m, user, _ in
            guard let m, let user else { return 0 }
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0 else { return 0 }
            let w = Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue()
            w.changed(BusMessageReader.dictionary(m))
            return 0
        }, thenCall: (destination, path, "org.freedesktop.DBus.Properties", "GetAll", interface), onReply: { m, user, _ in
            guard let m, let user else { return 0 }
            let w = Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue()
            if sd_bus_message_is_method_error(m, nil) != 0 {
                let e = sd_bus_message_get_error(m)
                w.failed = e?.pointee.message.map { String(cString: $0) } ?? "GetAll failed"
                return 0
            }
            w.changed(BusMessageReader.dictionary(m))
            return 0
        }, user: user)
    }

    /// Why the last `watchProperties` GetAll failed (the name has no owner, access
    /// denied), nil when it did not.
    package var propertiesFailure: String? { propertyWatches.last?.failed }

    private final class PropertiesWatch {
        let interface: String
        let changed: ([(String, BusValue)]) -> Void
        var failed: String?
        init(interface: String, changed: @escaping ([(String, BusValue)]) -> Void) {
            self.interface = interface
            self.changed = changed
        }
    }

    private final class NameRequest {
        let name: String
        let done: (String?) -> Void
        init(name: String, done: @escaping (String?) -> Void) {
            self.name = name
            self.done = done
        }
    }

    private final class NameWatch {
        let name: String
        let changed: (Bool) -> Void
        init(name: String, changed: @escaping (Bool) -> Void) {
            self.name = name
            self.changed = changed
        }
    }
}

/// A failed sd-bus call: which, and the errno it returned.
package struct SystemBusError: Error, CustomStringConvertible {
    package var operation: String
    package var errno: Int32
    package var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}
