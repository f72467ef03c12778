import Testing

@testable import Motion

@Test(arguments: [
    ("le:s12/16>>4", false, true, 12, 16, 4, 1),
    ("be:s12/16>>4\n", true, true, 12, 16, 4, 1),
    ("le:S64/64>>0", false, true, 64, 64, 0, 1),
    ("le:u8/8>>0", false, false, 8, 8, 0, 1),
    ("be:u10/16>>6", true, false, 10, 16, 6, 1),
    ("le:s16/16X3>>0", false, true, 16, 16, 0, 3),
    ("le:s32/32>>0", false, true, 32, 32, 0, 1),
])
func scanTypeParses(_ text: String, _ be: Bool, _ s: Bool, _ bits: Int, _ storage: Int, _ shift: Int, _ rep: Int) throws
{
    let t = try ScanType.parse(text).get()
    #expect(t.bigEndian == be && t.signed == s && t.bits == bits && t.storageBits == storage)
    #expect(t.shift == shift && t.repeatCount == rep)
    #expect(try ScanType.parse(t.description).get() == t)
}

@Test(arguments: [
    "", "xx:s12/16>>4", "le:q12/16>>4", "le:s12/16>4", "le:s20/16>>0", "le:s12/12>>0",
    "le:s12/16>>8", "le:s16/16X0>>0", "le:s16/16Xa>>0", "le s12/16>>4",
])
func scanTypeRejectsGarbage(_ text: String) {
    #expect(throws: ScanType.ParseError.self) { try ScanType.parse(text).get() }
}

/// Every type form: (type, stored bytes in scan order, decoded value).
@Test(arguments: [
    ("le:s12/16>>4", [0x80, 0x1F] as [UInt8], Int64(504)),  // bmc150 fixture x
    ("le:s12/16>>4", [0x70, 0xFA], Int64(-89)),  // sign extension 12 in 16
    ("le:s12/16>>4", [0xF0, 0x7F], Int64(2047)),
    ("le:s12/16>>4", [0x00, 0x80], Int64(-2048)),
    ("le:s12/16>>4", [0xFF, 0xFF], Int64(-1)),
    ("be:s12/16>>4", [0x3F, 0xC0], Int64(1020)),  // mxc4005 fixture x
    ("be:s12/16>>4", [0xFA, 0x70], Int64(-89)),
    ("le:u12/16>>4", [0x70, 0xFA], Int64(4007)),  // unsigned: no extension
    ("le:s32/32>>0", [0x9A, 0x42, 0xF1, 0xFF], Int64(-965990)),  // hid accel_3d y
    ("be:s32/32>>0", [0xFF, 0xF1, 0x42, 0x9A], Int64(-965990)),
    ("le:s16/32>>0", [0x00, 0xFF, 0x34, 0x12], Int64(-256)),  // HID over-read: upper half ignored
    ("le:s8/8>>0", [0x80], Int64(-128)),
    ("le:u8/8>>0", [0x80], Int64(128)),
    ("le:s10/16>>6", [0xC0, 0xFF], Int64(-1)),
    ("be:u10/16>>0", [0xFF, 0xFF], Int64(1023)),
    ("le:s64/64>>0", [0x00, 0x00, 0x2A, 0x36, 0xFE, 0x9C, 0x97, 0x17], Int64(1_700_000_000_000_000_000)),
    ("be:s64/64>>0", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE], Int64(-2)),
])
func scanValueDecodes(_ type: String, _ bytes: [UInt8], _ value: Int64) throws {
    let t = try ScanType.parse(type).get()
    #expect(t.decodeValue(bytes) == value)
    // The buffer reader's allocation-free path gives the same value, at any offset.
    let padded: [UInt8] = [0xAA, 0x55, 0xAA] + bytes + [0x55]
    padded.withUnsafeBytes { #expect(t.decodeValue(in: $0, at: 3) == value) }
}

private func layout(_ spec: [(String, Int, String)]) throws -> ScanLayout {
    try #require(ScanLayout(try spec.map { (name: $0.0, index: $0.1, type: try ScanType.parse($0.2).get()) }))
}

@Test func kernelLayoutAlignsTimestampAndPads() throws {
    let l = try layout([
        ("accel_z", 2, "le:s12/16>>4"), ("accel_x", 0, "le:s12/16>>4"),
        ("accel_y", 1, "le:s12/16>>4"), ("timestamp", 3, "le:s64/64>>0"),
    ])
    #expect(l.elements.map(\.offset) == [0, 2, 4, 8])
    #expect(l.scanBytes == 16)
    // First scan of fixture bmc150_bosc0200_ideapad_d330.
    let scan: [UInt8] = [
        0x80, 0x1F, 0x00, 0x00, 0x70, 0xFA, 0x00, 0x00,
        0x00, 0x00, 0x2A, 0x36, 0xFE, 0x9C, 0x97, 0x17,
    ]
    let d = try #require(l.decode(scan))
    #expect(d["accel_x"] == [504] && d["accel_y"] == [0] && d["accel_z"] == [-89])
    #expect(d["timestamp"] == [1_700_000_000_000_000_000])
    #expect(l.decode(scan.dropLast()) == nil)
    // By element position, without the dictionary: what the buffer reader uses.
    let x = try #require(l.elementIndex(named: "accel_x")), z = try #require(l.elementIndex(named: "accel_z"))
    let ts = try #require(l.elementIndex(named: "timestamp"))
    #expect(l.elementIndex(named: "accel_w") == nil)
    scan.withUnsafeBytes { bytes in
        #expect(l.firstValue(of: x, in: bytes) == 504)
        #expect(l.firstValue(of: z, in: bytes) == -89)
        #expect(l.firstValue(of: ts, in: bytes) == 1_700_000_000_000_000_000)
    }
}

@Test(arguments: [
    // (elements, offsets, scan bytes)
    (
        [
            ("accel_x", 0, "le:s32/32>>0"), ("accel_y", 1, "le:s32/32>>0"), ("accel_z", 2, "le:s32/32>>0"),
            ("timestamp", 3, "le:s64/64>>0"),
        ], [0, 4, 8, 16], 24
    ),  // HID accel_3d: 24 B
    ([("accel_x", 0, "le:s8/8>>0"), ("accel_y", 1, "le:s8/8>>0"), ("accel_z", 2, "le:s8/8>>0")], [0, 1, 2], 3),
    ([("accel_x", 0, "le:s8/8>>0"), ("temp", 1, "le:s16/16>>0")], [0, 2], 4),
    ([("accel_x", 0, "le:s16/16>>0"), ("timestamp", 1, "le:s64/64>>0")], [0, 8], 16),
    ([("accel", 0, "le:s16/16X3>>0"), ("timestamp", 1, "le:s64/64>>0")], [0, 8], 16),
    (
        [("accel_x", 0, "be:s16/16>>0"), ("temp", 3, "be:s16/16>>0"), ("anglvel_x", 4, "be:s16/16>>0")],
        [0, 2, 4], 6
    ),  // gaps in index are fine
])
func layoutsOfEveryForm(_ spec: [(String, Int, String)], _ offsets: [Int], _ bytes: Int) throws {
    let l = try layout(spec)
    #expect(l.elements.map(\.offset) == offsets)
    #expect(l.scanBytes == bytes)
}

@Test func repeatedElementDecodesEachValue() throws {
    let l = try layout([("accel", 0, "le:s16/16X3>>0"), ("timestamp", 1, "le:s64/64>>0")])
    let scan: [UInt8] = [0x01, 0x00, 0xFF, 0xFF, 0x00, 0x80, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]
    let d = try #require(l.decode(scan))
    #expect(d["accel"] == [1, -1, -32768])
    #expect(d["timestamp"] == [5])
}

@Test func duplicateIndicesAreRejected() throws {
    let t = try ScanType.parse("le:s16/16>>0").get()
    #expect(ScanLayout([(name: "a", index: 0, type: t), (name: "b", index: 0, type: t)]) == nil)
    #expect(ScanLayout([]) == nil)
}
