import CSystemd
import Glibc

/// A connection to the system bus through libsystemd's sd-bus, used only without
/// blocking: `sd_bus_open_system` connects (a Unix socket connects at once or fails),
/// the Hello, the match and every call are asynchronous, and the caller's loop polls
/// `fileDescriptor` for `events` (POLLOUT too while replies wait to be written), wakes
/// after `timeoutSeconds` at the latest, and then calls `process(atMost:)`.
///
/// What it offers is a watch of one well-known name: whether it has an owner now and
/// each change (`NameOwnerChanged`), as a callback; the request of a name, queued
/// behind its present owner; and the objects served on it (`BusObject`).
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
        var filter: OpaquePointer?
        if sd_bus_add_filter(
            b, &filter,
            { _, user, _ in
                user.map { Unmanaged<SystemBus>.fromOpaque($0).takeUnretainedValue().messagesDispatched += 1 }
                return 0  // and on to the message's handlers
            }, Unmanaged.passUnretained(self).toOpaque()) >= 0, let filter
        {
            slots.append(filter)
        }
    }

    /// Messages read whole and dispatched on this connection (`sd_bus_add_filter` sees each
    /// first); a message still being read is not counted.
    package private(set) var messagesDispatched = 0

    deinit {
        for s in slots { sd_bus_slot_unref(s) }
        sd_bus_flush_close_unref(bus)
    }

    /// `sd_bus_get_fd()`: readable when a message is waiting.
    package var fileDescriptor: Int32 { sd_bus_get_fd(bus) }

    /// `sd_bus_get_unique_name()`: this connection's name on the bus (`:1.42`). It waits
    /// for the bus's answer to the Hello when that has not come yet: for clients and
    /// tests, not for the daemon's loop.
    package var uniqueName: String? {
        var p: UnsafePointer<CChar>?
        return sd_bus_get_unique_name(bus, &p) >= 0 ? p.map { String(cString: $0) } : nil
    }

    /// `sd_bus_get_events()`: what to poll `fileDescriptor` for: POLLIN while sd-bus has
    /// read everything it holds, POLLOUT while messages wait to be written; 0 once closed.
    package var events: Int16 {
        let r = sd_bus_get_events(bus)
        return r > 0 ? Int16(truncatingIfNeeded: r) : 0
    }

    /// `sd_bus_get_timeout()`, from now: when `process` is due even if the descriptor
    /// says nothing (a call's reply timed out; 0 when messages already read wait), nil
    /// for never.
    package var timeoutSeconds: Double? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)  // sd-bus's timeouts are CLOCK_MONOTONIC microseconds
        let now = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
        return usec <= now ? 0 : Double(usec - now) / 1e6
    }

    /// `sd_bus_get_n_queued_write()`: messages sent but not yet written to the bus.
    package var queuedWrites: UInt64 {
        var n: UInt64 = 0
        return sd_bus_get_n_queued_write(bus, &n) >= 0 ? n : 0
    }

    /// What `process(atMost:)` left.
    package enum Progress: Equatable {
        /// Nothing more to do until the descriptor or the timeout says so.
        case idle
        /// The limit was reached with work left (the timeout is then 0 or the descriptor readable).
        case more
        /// The connection is lost (the bus went away, or closed it).
        case lost
    }

    /// `sd_bus_process()` at most `limit` times (each dispatches at most one message,
    /// or writes, or handles a timeout); never waits. A flood of calls thus takes a
    /// bounded share of the caller's loop per wakeup, and the rest waits in the socket.
    package func process(atMost limit: Int) -> Progress {
        for _ in 0..<limit {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return .lost }
            if r == 0 { return .idle }
        }
        return .more
    }

    /// `sd_bus_process()` until nothing is left to do; never waits. Returns false once
    /// the connection is lost (the bus went away). For a client that only listens to the
    /// daemon (`monitor --dbus`); a server takes `process(atMost:)`.
    @discardableResult
    package func process() -> Bool {
        process(atMost: .max) != .lost
    }

    /// Who owns a name this connection asked for.
    package enum NameOwnership: Equatable, Sendable {
        /// This connection: the name is ours (`NameAcquired`, or the request's reply).
        case owned
        /// Another connection owns it; this one waits in the name's queue and gets it
        /// when the owner leaves.
        case queued
        /// It was ours and is no longer (`NameLost`).
        case lost
        /// The bus refused the request (its policy, an invalid name): why.
        case refused(String)
    }

    /// Asks for the well-known `name` (`sd_bus_request_name_async` with
    /// `SD_BUS_NAME_QUEUE`, without `SD_BUS_NAME_REPLACE_EXISTING`: a second daemon never
    /// takes it from the first, it queues and takes it when the first leaves). `changed`
    /// hears each change: the request's answer, then `NameAcquired` and `NameLost`, whose
    /// matches are added before the request so that none is missed.
    package func requestName(_ name: String, changed: @escaping (NameOwnership) -> Void) throws(SystemBusError) {
        let w = NameRequest(name: name, changed: changed)
        nameRequests.append(w)
        let user = Unmanaged.passUnretained(w).toOpaque()
        let acquired: sd_bus_message_handler_t = { m, user, _ in
            guard let m, SystemBus.isFromBusDriver(m) else { return 0 }
            user.map { Unmanaged<NameRequest>.fromOpaque($0).takeUnretainedValue().report(.owned) }
            return 0
        }
        let lost: sd_bus_message_handler_t = { m, user, _ in
            guard let m, SystemBus.isFromBusDriver(m) else { return 0 }
            user.map { Unmanaged<NameRequest>.fromOpaque($0).takeUnretainedValue().report(.lost) }
            return 0
        }
        for (member, handler) in [("NameAcquired", acquired), ("NameLost", lost)] {
            let match =
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='\(member)',arg0='\(name)'"
            var slot: OpaquePointer?
            let r = sd_bus_add_match_async(bus, &slot, match, handler, nil, user)
            guard r >= 0, let slot else { throw SystemBusError(operation: "sd_bus_add_match_async", errno: -r) }
            slots.append(slot)
        }
        var slot: OpaquePointer?
        let r = sd_bus_request_name_async(
            bus, &slot, name, UInt64(SD_BUS_NAME_QUEUE),
            { m, user, _ in
                guard let m, let user else { return 0 }
                let w = Unmanaged<NameRequest>.fromOpaque(user).takeUnretainedValue()
                if let e = sd_bus_message_get_error(m), sd_bus_error_is_set(e) != 0 {
                    w.report(
                        .refused(
                            "\(e.pointee.name.map { String(cString: $0) } ?? "error"): "
                                + "\(e.pointee.message.map { String(cString: $0) } ?? "")"))
                    return 0
                }
                var code: UInt32 = 0
                _ = sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &code)
                // 1: primary owner, 4: already ours; 2: in the queue; 3: exists (not queued).
                w.report(
                    code == 1 || code == 4
                        ? .owned : code == 2 ? .queued : .refused("\(w.name) is owned by another process"))
                return 0
            }, user)
        guard r >= 0, let slot else { throw SystemBusError(operation: "sd_bus_request_name_async", errno: -r) }
        slots.append(slot)
    }

    /// Calls `changed(hasOwner)` once with whether `name` has an owner now, and again on
    /// every change of its owner.
    package func watchName(_ name: String, changed: @escaping (Bool) -> Void) throws(SystemBusError) {
        let w = NameWatch(name: name, changed: changed)
        nameWatches.append(w)
        let user = Unmanaged.passUnretained(w).toOpaque()
        try subscribe(
            Self.nameOwnerChangedMatch(name),
            onSignal: { m, user, _ in
                guard let m, let user, let change = SystemBus.nameOwnerChanged(m) else { return 0 }
                let w = Unmanaged<NameWatch>.fromOpaque(user).takeUnretainedValue()
                if change.name == w.name { w.changed(!change.newOwner.isEmpty) }
                return 0
            },
            thenCall: ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", name),
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
    private func subscribe(
        _ match: String, onSignal: sd_bus_message_handler_t,
        thenCall c: (destination: String, path: String, interface: String, member: String, argument: String),
        onReply: sd_bus_message_handler_t, user: UnsafeMutableRawPointer
    ) throws(SystemBusError) {
        var slot: OpaquePointer?
        var r = sd_bus_add_match_async(bus, &slot, match, onSignal, nil, user)
        guard r >= 0, let slot else { throw SystemBusError(operation: "sd_bus_add_match_async", errno: -r) }
        slots.append(slot)
        var call: OpaquePointer?
        r = shimmerd_bus_call_with_string_async(
            bus, &call, c.destination, c.path, c.interface, c.member, c.argument,
            onReply, user)
        guard r >= 0, let call else { throw SystemBusError(operation: c.member, errno: -r) }
        slots.append(call)
    }

    /// Calls `changed` with the properties of `interface` on `destination`'s object `path`:
    /// all of them once (`GetAll`), then what each `PropertiesChanged` carries. Only the
    /// properties `accepting` names (name: D-Bus type) are passed on, strings cut to
    /// `maximumStringBytes`; others, and values of other types, are left out unread.
    ///
    /// A `PropertiesChanged` is believed only from `destination`'s owner now, followed by
    /// its `GetNameOwner` and the bus's `NameOwnerChanged` (`isFromBusDriver`): any
    /// connection may send one addressed to this connection, and the match's sender, a
    /// well-known name, is no proof (`SystemBus+BusDriver.swift`).
    package func watchProperties(
        destination: String, path: String, interface: String,
        accepting properties: [String: String], maximumStringBytes: Int,
        changed: @escaping ([(String, BusValue)]) -> Void
    ) throws(SystemBusError) {
        let w = PropertiesWatch(
            destination: destination, interface: interface,
            read: { BusMessageReader.dictionary($0, accepting: properties, maximumStringBytes: maximumStringBytes) },
            changed: changed)
        propertyWatches.append(w)
        let user = Unmanaged.passUnretained(w).toOpaque()
        try subscribe(
            Self.nameOwnerChangedMatch(destination),
            onSignal: { m, user, _ in
                guard let m, let user, let change = SystemBus.nameOwnerChanged(m) else { return 0 }
                let w = Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue()
                if change.name == w.destination { w.owner = change.newOwner.isEmpty ? nil : change.newOwner }
                return 0
            }, thenCall: (Self.busDriver, "/org/freedesktop/DBus", Self.busDriver, "GetNameOwner", destination),
            onReply: { m, user, _ in
                guard let m, let user, sd_bus_message_is_method_error(m, nil) == 0 else { return 0 }
                var p: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return 0 }
                Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue().owner = String(cString: p)
                return 0
            }, user: user)
        let match =
            "type='signal',sender='\(destination)',path='\(path)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='\(interface)'"
        try subscribe(
            match,
            onSignal: { m, user, _ in
                guard let m, let user else { return 0 }
                let w = Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue()
                guard let owner = w.owner, SystemBus.isSent(m, by: owner) else { return 0 }
                var p: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p,
                    strcmp(p, w.interface) == 0
                else { return 0 }
                w.changed(w.read(m))
                return 0
            }, thenCall: (destination, path, "org.freedesktop.DBus.Properties", "GetAll", interface),
            onReply: { m, user, _ in
                guard let m, let user else { return 0 }
                let w = Unmanaged<PropertiesWatch>.fromOpaque(user).takeUnretainedValue()
                if sd_bus_message_is_method_error(m, nil) != 0 {
                    let e = sd_bus_message_get_error(m)
                    w.failed = e?.pointee.message.map { String(cString: $0) } ?? "GetAll failed"
                    return 0
                }
                w.changed(w.read(m))
                return 0
            }, user: user)
    }

    /// Why the last `watchProperties` GetAll failed (the name has no owner, access
    /// denied), nil when it did not.
    package var propertiesFailure: String? { propertyWatches.last?.failed }

    private final class PropertiesWatch {
        let destination: String
        let interface: String
        let read: (OpaquePointer) -> [(String, BusValue)]
        let changed: ([(String, BusValue)]) -> Void
        /// The unique name that owns `destination` now: the only sender believed.
        var owner: String?
        var failed: String?
        init(
            destination: String, interface: String, read: @escaping (OpaquePointer) -> [(String, BusValue)],
            changed: @escaping ([(String, BusValue)]) -> Void
        ) {
            self.destination = destination
            self.interface = interface
            self.read = read
            self.changed = changed
        }
    }

    private final class NameRequest {
        let name: String
        let changed: (NameOwnership) -> Void
        private var last: NameOwnership?
        init(name: String, changed: @escaping (NameOwnership) -> Void) {
            self.name = name
            self.changed = changed
        }

        /// Passes a change on (the request's reply and `NameAcquired` both say "owned").
        func report(_ state: NameOwnership) {
            guard state != last else { return }
            last = state
            changed(state)
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
package struct SystemBusError: Error, Equatable, CustomStringConvertible {
    package var operation: String
    package var errno: Int32
    package var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}
