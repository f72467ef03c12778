import CSystemd

/// Reads the `a{sv}` of a message (GetAll's reply, PropertiesChanged's second argument)
/// into `BusValue`s, through the non-variadic sd-bus readers.
enum BusMessageReader {
    private static func code(_ c: Character) -> CChar { CChar(UInt8(ascii: c.unicodeScalars.first!)) }
    /// The longest name a D-Bus member may have; longer entry names are nobody's property.
    private static let maximumNameLength = 255

    /// The entries whose name `accepting` holds with the entry's type (name: D-Bus
    /// signature), each name at most once (the last wins), strings cut to
    /// `maximumStringBytes`. Whatever else the message holds is skipped without being kept,
    /// so what is returned is bounded by `accepting` whatever the sender put in.
    static func dictionary(_ m: OpaquePointer, accepting: [String: String], maximumStringBytes: Int) -> [(
        String, BusValue
    )] {
        var out: [String: BusValue] = [:]
        var order: [String] = []
        guard sd_bus_message_enter_container(m, code("a"), "{sv}") > 0 else { return [] }
        while sd_bus_message_enter_container(m, code("e"), "sv") > 0 {
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, code("s"), &p) > 0, let p else { break }
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            guard sd_bus_message_peek_type(m, &type, &contents) > 0, let contents else { break }
            if strnlen(p, maximumNameLength + 1) <= maximumNameLength, let want = accepting[String(cString: p)],
                strcmp(contents, want) == 0, let v = variant(m, want, maximumStringBytes: maximumStringBytes)
            {
                let name = String(cString: p)
                if out.updateValue(v, forKey: name) == nil { order.append(name) }
            } else {
                _ = sd_bus_message_skip(m, "v")
            }
            _ = sd_bus_message_exit_container(m)
        }
        _ = sd_bus_message_exit_container(m)
        return order.map { ($0, out[$0]!) }
    }

    /// The variant's value when its type is one of `BusValue`'s (the variant consumed),
    /// else nil (the variant left unread).
    private static func variant(_ m: OpaquePointer, _ signature: String, maximumStringBytes: Int) -> BusValue? {
        guard ["s", "d", "t", "u", "b", "(dd)"].contains(signature),
            sd_bus_message_enter_container(m, code("v"), signature) > 0
        else { return nil }
        defer { _ = sd_bus_message_exit_container(m) }
        switch signature {
        case "s":
            var p: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(m, code("s"), &p) > 0, let p else { return nil }
            let bytes = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self)
            return .string(
                String(
                    decoding: UnsafeBufferPointer(start: bytes, count: strnlen(p, maximumStringBytes)),
                    as: UTF8.self))
        case "d":
            var d = 0.0
            return sd_bus_message_read_basic(m, code("d"), &d) > 0 ? .double(d) : nil
        case "t":
            var n: UInt64 = 0
            return sd_bus_message_read_basic(m, code("t"), &n) > 0 ? .uint64(n) : nil
        case "u":
            var n: UInt32 = 0
            return sd_bus_message_read_basic(m, code("u"), &n) > 0 ? .uint32(n) : nil
        case "b":
            var b: Int32 = 0
            return sd_bus_message_read_basic(m, code("b"), &b) > 0 ? .bool(b != 0) : nil
        default:
            var x = 0.0, y = 0.0
            guard sd_bus_message_enter_container(m, code("r"), "dd") > 0 else { return nil }
            defer { _ = sd_bus_message_exit_container(m) }
            return sd_bus_message_read_basic(m, code("d"), &x) > 0 && sd_bus_message_read_basic(m, code("d"), &y) > 0
                ? .point(x, y) : nil
        }
    }
}
