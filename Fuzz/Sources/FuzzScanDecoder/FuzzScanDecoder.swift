// Fuzzes the scan decoder: `ScanType.parse` (scan_elements/in_*_type), `ScanLayout` and
// `ScanLayout.decode` (kernel ABI sysfs-bus-iio, `iio_compute_scan_bytes()`).
//
// Input: up to 8 type lines, a NUL byte, then the bytes of one scan. Line i is channel
// `cI` with scan index (3 i + k) mod 11, k from the input's length, so the layout sees
// its channels out of index order.
//
// Properties, beyond returning:
// - a parsed type is consistent (storage 8/16/32/64 bits, 1 <= bits, bits + shift <=
//   storage, 1 <= repeat <= 1024) and its text form parses back to the same type;
// - the layout keeps the channels in index order, each at an offset that is a multiple
//   of its size, without overlap, inside a scan whose size is a multiple of the largest
//   element;
// - decoding fails exactly when the scan is shorter than the layout's size, and
//   otherwise gives, for every value, what an independent bit-by-bit decoder gives, a
//   value that fits its bits (signed or unsigned), also from a slice that does not start
//   at index 0.
import FuzzSupport
import Motion

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScanDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let split = input.firstIndex(of: 0) ?? input.endIndex
    let head = String(decoding: input[..<split], as: UTF8.self)
    let scan = Array(input[min(split + 1, input.endIndex)...])

    var channels: [(name: String, index: Int, type: ScanType)] = []
    for (i, line) in head.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).enumerated() {
        guard case .success(let type) = ScanType.parse(String(line)) else { continue }
        checkType(type, from: String(line))
        channels.append((name: "c\(i)", index: (3 * i + input.count) % 11, type: type))
    }
    guard let layout = ScanLayout(channels) else {
        require(channels.isEmpty, "no layout for \(channels.count) channels with distinct indices")
        return 0
    }
    checkLayout(layout, channels: channels)

    let decoded = layout.decode(scan)
    require((decoded == nil) == (scan.count < layout.scanBytes),
            "decode of \(scan.count) bytes with a \(layout.scanBytes)-byte layout gave \(decoded == nil ? "nil" : "values")")
    guard let decoded else { return 0 }
    let shifted = [0xA5] + scan
    require(layout.decode(shifted[1...]) == decoded, "decoding a slice that does not start at 0 differs")
    for e in layout.elements {
        guard let values = decoded[e.name], values.count == e.type.repeatCount else {
            require(false, "\(e.name): \(decoded[e.name]?.count ?? 0) values, expected \(e.type.repeatCount)")
            continue
        }
        for (r, v) in values.enumerated() {
            let start = e.offset + r * e.type.storageBytes
            let stored = Array(scan[start..<start + e.type.storageBytes])
            let expected = referenceDecode(stored, e.type)
            require(v == expected, "\(e.type) of \(stored): decoded \(v), reference \(expected)")
            require(fits(v, e.type), "\(e.type): \(v) does not fit \(e.type.bits) bits")
        }
    }
    return 0
}

private func checkType(_ t: ScanType, from text: String) {
    require([8, 16, 32, 64].contains(t.storageBits) && t.bits >= 1 && t.shift >= 0
            && t.bits <= t.storageBits - t.shift && (1...1024).contains(t.repeatCount),
            "inconsistent type \(t) from \(quoted(text))")
    require(ScanType.parse(t.description) == .success(t), "\(quoted(t.description)) does not parse back to \(t)")
}

private func checkLayout(_ layout: ScanLayout, channels: [(name: String, index: Int, type: ScanType)]) {
    require(layout.elements.count == channels.count, "\(layout.elements.count) elements for \(channels.count) channels")
    var end = 0
    var largest = 1
    var previousIndex = -1
    for e in layout.elements {
        let length = e.type.elementBytes
        require(e.index > previousIndex, "element \(e.name) (index \(e.index)) out of index order")
        require(e.offset % length == 0, "element \(e.name) at \(e.offset) is not aligned to its \(length) bytes")
        require(e.offset >= end, "element \(e.name) at \(e.offset) overlaps the previous one ending at \(end)")
        previousIndex = e.index
        end = e.offset + length
        largest = max(largest, length)
    }
    require(end <= layout.scanBytes && layout.scanBytes % largest == 0,
            "scan of \(layout.scanBytes) bytes for elements ending at \(end), largest \(largest)")
}

/// Bit by bit: storage bit k is bit k % 8 of byte k / 8 counted from the least
/// significant byte (the first for le, the last for be); the value is storage bits
/// shift ..< shift + bits, two's complement when signed.
private func referenceDecode(_ stored: [UInt8], _ t: ScanType) -> Int64 {
    func bit(_ k: Int) -> Bool {
        let byte = t.bigEndian ? stored[stored.count - 1 - k / 8] : stored[k / 8]
        return byte >> UInt8(k % 8) & 1 == 1
    }
    var value: Int64 = 0
    for j in 0..<t.bits where bit(t.shift + j) {
        value |= Int64(bitPattern: 1 << UInt64(j))
    }
    if t.signed, t.bits < 64, bit(t.shift + t.bits - 1) {
        value = value &- Int64(1) << Int64(t.bits)  // bits 63: 2^63 wraps, the difference does not
    }
    return value
}

private func fits(_ v: Int64, _ t: ScanType) -> Bool {
    if t.bits == 64 { return true }
    if t.signed { return v >= -(Int64(1) << Int64(t.bits - 1)) && v < Int64(1) << Int64(t.bits - 1) }
    return v >= 0 && (t.bits == 63 || v < Int64(1) << Int64(t.bits))  // every Int64 >= 0 fits 63 bits
}
