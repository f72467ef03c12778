import CSystemd

/// The connections that hold something of the daemon's (a claim), by unique name, each
/// once however often it is added; a name leaves when it is removed or when its
/// connection closes.
///
/// This is what sd-bus's `sd_bus_track` does (non-recursive), but without its one
/// blocking step: `sd_bus_track_add_name` asks the bus whether the name exists with a
/// synchronous `GetNameOwner` (`sd_bus_get_name_creds`), a round trip the daemon's loop
/// would wait for. Here the same two steps are asynchronous and in the same order: a
/// match on the bus's `NameOwnerChanged` for the name, then a `GetNameOwner`; the bus
/// handles them in that order, so a caller that closed its connection right after its
/// call is seen by one or the other.
///
/// At most `limit` names are held: each costs a match rule on the bus, which allows a
/// connection only so many (dbus-daemon: 512), and sd-bus closes a connection whose
/// match the bus refuses.
///
/// A name removed (`remove`: the caller's `Release()`) leaves `count` at once, but its
/// match is dropped only at `settle()`, which the owner calls once a wakeup: a name added
/// again before then takes its match back. A connection that claims and releases over and
/// over thus costs the bus one match added and removed a wakeup, not one per call.
package final class BusPeerTrack {
    package enum Added: Equatable {
        case added
        /// The name was held already: nothing changed.
        case alreadyHeld
        /// `limit` names are held.
        case full
        /// The match could not be added.
        case failed(SystemBusError)
    }

    package let limit: Int
    private let bus: SystemBus
    private var peers: [String: Peer] = [:]
    /// Removed since the last `settle()`: their matches still on the bus.
    private var released: [String: Peer] = [:]

    package init(bus: SystemBus, limit: Int) {
        self.bus = bus
        self.limit = limit
    }

    /// The names held.
    package var count: Int { peers.count }

    package func contains(_ name: String) -> Bool { peers[name] != nil }

    /// Holds `name` until `remove(name)` or until its connection closes.
    package func add(_ name: String) -> Added {
        guard peers[name] == nil else { return .alreadyHeld }
        if let peer = released.removeValue(forKey: name) {
            peers[name] = peer  // released in this wakeup: its match is still there
            return .added
        }
        if peers.count + released.count >= limit { settle() }
        guard peers.count < limit else { return .full }
        let peer = Peer(name: name, track: self)
        let user = Unmanaged.passUnretained(peer).toOpaque()
        let r = sd_bus_add_match_async(
            bus.raw, &peer.match, SystemBus.nameOwnerChangedMatch(name),
            { m, user, _ in
                // (name, old owner, new owner), from the bus itself (a connection's forgery is
                // not believed): a unique name changes owner only when its connection closes, to "".
                guard let m, let user, let change = SystemBus.nameOwnerChanged(m) else { return 0 }
                let peer = Unmanaged<Peer>.fromOpaque(user).takeUnretainedValue()
                if change.name == peer.name, change.newOwner.isEmpty { peer.track?.gone(peer.name) }
                return 0
            }, nil, user)
        guard r >= 0 else { return .failed(SystemBusError(operation: "sd_bus_add_match_async", errno: -r)) }
        peers[name] = peer
        _ = shimmerd_bus_call_with_string_async(
            bus.raw, &peer.lookup, "org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus", "GetNameOwner", name,
            { m, user, _ in
                guard let m, let user else { return 0 }
                let peer = Unmanaged<Peer>.fromOpaque(user).takeUnretainedValue()
                // An error (org.freedesktop.DBus.Error.NameHasNoOwner): the connection is gone
                // already, and a unique name never comes back.
                if sd_bus_message_is_method_error(m, nil) != 0 { peer.track?.gone(peer.name) }
                return 0
            }, user)
        return .added
    }

    /// Lets go of `name` (its match dropped at the next `settle()`); a name not held is no error.
    package func remove(_ name: String) {
        if let peer = peers.removeValue(forKey: name) { released[name] = peer }
    }

    /// Drops the matches of the names removed since the last call (`sd_bus_slot_unref`
    /// removes a match from the bus without waiting).
    package func settle() {
        released.removeAll()
    }

    /// `name`'s connection has closed: gone, match and all.
    private func gone(_ name: String) {
        peers.removeValue(forKey: name)
        released.removeValue(forKey: name)
    }

    /// One name held: its match and its lookup, removed with it (`sd_bus_slot_unref`
    /// removes the match from the bus too, without waiting).
    private final class Peer {
        let name: String
        weak var track: BusPeerTrack?
        var match: OpaquePointer?
        var lookup: OpaquePointer?

        init(name: String, track: BusPeerTrack) {
            self.name = name
            self.track = track
        }

        deinit {
            if let lookup { sd_bus_slot_unref(lookup) }
            if let match { sd_bus_slot_unref(match) }
        }
    }
}
