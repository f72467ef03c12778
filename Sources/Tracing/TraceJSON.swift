/// The one encoding of trace records: their `Codable` conformance written as a JSON line
/// with sorted keys, no spaces, numbers in Swift's shortest round-trip form (an integral
/// value as an integer, -0.0 keeping its sign, so a replay gets the bits back), strings
/// escaped as JSON requires. A record type gains a field by declaring it; nothing else is
/// written by hand. It needs no Foundation and walks the record once. Its string escaping
/// is the one of every JSON shimmerd writes (`sensors --json`, `monitor --json`, `bench
/// --json` too).
package enum TraceJSON {
    /// One JSON line, newline included.
    static func line<R: Encodable>(_ record: R) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(record, to: &out)
        return out
    }

    /// Appends the JSON line of `record` (newline included) to `out`.
    static func append<R: Encodable>(_ record: R, to out: inout [UInt8]) {
        let root = Node()
        // The record types hold only numbers, strings, booleans, arrays and nested
        // records: encoding them cannot fail.
        try? record.encode(to: NodeEncoder(node: root))
        root.write(to: &out)
        out.append(0x0A)
    }

    static func appendNumber(_ v: Double, to out: inout [UInt8]) {
        if v == 0 && v.sign == .minus {
            out.append(contentsOf: "-0.0".utf8)
        } else if v == v.rounded(), abs(v) < 1e15 {
            out.append(contentsOf: String(Int64(v)).utf8)
        } else {
            out.append(contentsOf: v.description.utf8)
        }
    }

    /// `value` as a document a person reads (`shimmerd bench --json`), laid out as
    /// Foundation's `JSONEncoder` with `.prettyPrinted`, `.sortedKeys` and
    /// `.convertToSnakeCase` wrote it before, for the scripts that read it: two spaces a
    /// level, `"key" : value`, keys in snake_case and sorted. No newline at the end.
    package static func document<V: Encodable>(_ value: V) -> [UInt8] {
        let root = Node()
        try? value.encode(to: NodeEncoder(node: root))
        var out: [UInt8] = []
        root.writeDocument(to: &out, level: 0)
        return out
    }

    /// `dotPixels` -> `dot_pixels`, `threadCPUNs` -> `thread_cpu_ns`: a word starts at an
    /// upper-case letter after a lower-case one or a digit, and at the last capital of a
    /// run that a lower-case letter follows (Foundation's `convertToSnakeCase`).
    static func snakeCase(_ key: String) -> String {
        let s = Array(key.utf8)
        func upper(_ i: Int) -> Bool { i < s.count && s[i] >= UInt8(ascii: "A") && s[i] <= UInt8(ascii: "Z") }
        func lower(_ i: Int) -> Bool { i < s.count && s[i] >= UInt8(ascii: "a") && s[i] <= UInt8(ascii: "z") }
        var out: [UInt8] = []
        for i in s.indices {
            guard upper(i) else {
                out.append(s[i])
                continue
            }
            if i > 0, !upper(i - 1) || lower(i + 1) { out.append(UInt8(ascii: "_")) }
            out.append(s[i] + 32)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal: quotes and backslashes escaped, and every control character
    /// written as `\u00XX`: C0 (U+0000..U+001F, `\n` for a newline), DEL and C1
    /// (U+007F..U+009F). JSON would allow DEL and C1 raw, but a terminal that takes 8-bit
    /// controls reads U+009B as CSI, so output a person may `cat` carries none of them,
    /// as the text output escapes them (`escapingControlCharacters`).
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // U+0080..U+009F are 0xC2 0x80..0xC2 0x9F in UTF-8: a 0xC2 waits for its next byte.
        var lead = false
        for b in s.utf8 {
            if lead {
                lead = false
                if b <= 0x9F {
                    appendEscape(b, to: &out)
                    continue
                }
                out.append(0xC2)
            }
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0..<0x20, 0x7F: appendEscape(b, to: &out)
            case 0xC2: lead = true
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `\u00XX` for the code point `b` (below U+0100).
    private static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: "\\u00".utf8)
        out.append(hexDigits[Int(b >> 4)])
        out.append(hexDigits[Int(b & 0xF)])
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A value being encoded: a scalar's text, an array's elements or an object's fields.
private final class Node {
    var scalar: [UInt8]?
    var elements: [Node]?
    var fields: [(key: String, value: Node)]?

    func write(to out: inout [UInt8]) {
        if let scalar {
            out.append(contentsOf: scalar)
        } else if let elements {
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                e.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        } else if let fields {
            out.append(UInt8(ascii: "{"))
            for (i, f) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                TraceJSON.appendString(f.key, to: &out)
                out.append(UInt8(ascii: ":"))
                f.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    /// Indented as `TraceJSON.document` says, `level` levels deep.
    func writeDocument(to out: inout [UInt8], level: Int) {
        let items: [(key: String?, value: Node)]
        let open: String, close: String
        if let elements {
            items = elements.map { (nil, $0) }
            (open, close) = ("[", "]")
        } else if let fields {
            items = fields.map { (TraceJSON.snakeCase($0.key), $0.value) }.sorted { $0.0! < $1.0! }
            (open, close) = ("{", "}")
        } else {
            return write(to: &out)
        }
        out.append(contentsOf: (open + "\n").utf8)
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(contentsOf: ",\n".utf8) }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * (level + 1)))
            if let key = item.key {
                TraceJSON.appendString(key, to: &out)
                out.append(contentsOf: " : ".utf8)
            }
            item.value.writeDocument(to: &out, level: level + 1)
        }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        out.append(contentsOf: close.utf8)
    }

    func setNumber(_ v: Double) {
        var t: [UInt8] = []
        TraceJSON.appendNumber(v, to: &t)
        scalar = t
    }

    func setString(_ s: String) {
        var t: [UInt8] = []
        TraceJSON.appendString(s, to: &t)
        scalar = t
    }

    func set<T: Encodable>(_ value: T) throws {
        switch value {
        case let v as Double: setNumber(v)
        case let v as Float: setNumber(Double(v))
        case let v as String: setString(v)
        case let v as Bool: scalar = Array((v ? "true" : "false").utf8)
        case let v as any BinaryInteger: scalar = Array("\(v)".utf8)
        default: try value.encode(to: NodeEncoder(node: self))
        }
    }

    func child(forKey key: String) -> Node {
        let n = Node()
        if fields == nil { fields = [] }
        fields!.append((key, n))
        return n
    }

    func appendElement() -> Node {
        let n = Node()
        if elements == nil { elements = [] }
        elements!.append(n)
        return n
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.fields == nil { node.fields = [] }
        return KeyedEncodingContainer(KeyedNode<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedNode(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNode(node: node) }
}

private struct KeyedNode<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey] = []

    mutating func encodeNil(forKey key: Key) throws { _ = node.child(forKey: key.stringValue) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.child(forKey: key.stringValue).set(value)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(node: node.child(forKey: key.stringValue)).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(forKey: key.stringValue)).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child(forKey: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.child(forKey: key.stringValue))
    }
}

private struct UnkeyedNode: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] = []
    var count: Int { node.elements?.count ?? 0 }

    mutating func encodeNil() throws { _ = node.appendElement() }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.appendElement().set(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        NodeEncoder(node: node.appendElement()).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appendElement()).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendElement()) }
}

private struct SingleNode: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] = []

    mutating func encodeNil() throws { node.scalar = Array("null".utf8) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.set(value) }
}
