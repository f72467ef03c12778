/// The storage format of one IIO scan element, from `scan_elements/in_*_type`
/// (kernel `industrialio-buffer.c`, `iio_show_fixed_type()`):
/// `[be|le]:[s|u]BITS/STORAGEBITS[Xrepeat]>>SHIFT`. libiio prints a fully used signed
/// type with a capital `S` (`le:S64/64>>0`); both cases are accepted.
package struct ScanType: Hashable, Sendable, CustomStringConvertible {
    package var bigEndian: Bool
    package var signed: Bool
    /// Bits of the value (`realbits`).
    package var bits: Int
    /// Bits the value occupies in the scan (`storagebits`): 8, 16, 32 or 64.
    package var storageBits: Int
    /// Right shift applied to the stored word before masking.
    package var shift: Int
    /// Number of values of this element stored back to back (`Xrepeat`), 1 when absent.
    package var repeatCount: Int

    package init?(bigEndian: Bool, signed: Bool, bits: Int, storageBits: Int, shift: Int, repeatCount: Int = 1) {
        // `bits <= storageBits - shift`, not `bits + shift <= storageBits`: the text is
        // untrusted, and "le:s9223372036854775807/64>>1" made the sum overflow (a trap).
        guard [8, 16, 32, 64].contains(storageBits), bits >= 1, shift >= 0,
            bits <= storageBits - shift, repeatCount >= 1, repeatCount <= 1024
        else { return nil }
        self.bigEndian = bigEndian
        self.signed = signed
        self.bits = bits
        self.storageBits = storageBits
        self.shift = shift
        self.repeatCount = repeatCount
    }

    package struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        package let text: String
        package let reason: String
        package var description: String { "bad scan type \"\(text)\": \(reason)" }
    }

    package static func parse(_ text: String) -> Result<ScanType, ParseError> {
        let t = text[...].trimmingASCIIWhitespace()
        func fail(_ why: String) -> Result<ScanType, ParseError> { .failure(ParseError(text: String(t), reason: why)) }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return fail("expected ENDIAN:FORMAT") }
        let bigEndian: Bool
        switch parts[0] {
        case "be": bigEndian = true
        case "le": bigEndian = false
        default: return fail("endianness must be le or be")
        }
        var rest = parts[1]
        guard let signChar = rest.first else { return fail("missing sign") }
        let signed: Bool
        switch signChar {
        case "s", "S": signed = true
        case "u", "U": signed = false
        default: return fail("sign must be s or u")
        }
        rest = rest.dropFirst()
        let shiftSplit = rest.split(separator: ">", omittingEmptySubsequences: false)
        guard shiftSplit.count == 3, shiftSplit[1].isEmpty, let shift = Int(shiftSplit[2]) else {
            return fail("expected >>SHIFT")
        }
        let sizes = shiftSplit[0]
        let bitsSplit = sizes.split(separator: "/", omittingEmptySubsequences: false)
        guard bitsSplit.count == 2, let bits = Int(bitsSplit[0]) else { return fail("expected BITS/STORAGE") }
        let storageSplit = bitsSplit[1].split(separator: "X", omittingEmptySubsequences: false)
        guard let storage = Int(storageSplit[0]) else { return fail("bad storage bits") }
        var repeatCount = 1
        if storageSplit.count == 2 {
            guard let r = Int(storageSplit[1]) else { return fail("bad repeat") }
            repeatCount = r
        } else if storageSplit.count > 2 {
            return fail("bad repeat")
        }
        guard
            let type = ScanType(
                bigEndian: bigEndian, signed: signed, bits: bits, storageBits: storage,
                shift: shift, repeatCount: repeatCount)
        else {
            return fail("inconsistent sizes")
        }
        return .success(type)
    }

    /// Bytes of one value.
    package var storageBytes: Int { storageBits / 8 }
    /// Bytes of the whole element, repeats included.
    package var elementBytes: Int { storageBytes * repeatCount }

    /// Decodes one value from `storageBytes` bytes: byte order, `>> shift`, mask to
    /// `bits`, sign extension (kernel ABI, sysfs-bus-iio "scan_elements/*_type").
    package func decodeValue(_ bytes: some Collection<UInt8>) -> Int64 {
        var word: UInt64 = 0
        if bigEndian {
            for b in bytes { word = (word << 8) | UInt64(b) }
        } else {
            for (i, b) in bytes.enumerated() { word |= UInt64(b) << UInt64(8 * i) }
        }
        return value(ofWord: word)
    }

    /// `decodeValue` of the `storageBytes` bytes at `offset` of `scan`, without
    /// allocating: the buffer reader's path. The caller checks the bounds.
    package func decodeValue(in scan: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        var word: UInt64 = 0
        for i in 0..<storageBytes {
            let b = UInt64(scan[offset + i])
            word = bigEndian ? (word << 8) | b : word | b << UInt64(8 * i)
        }
        return value(ofWord: word)
    }

    /// The storage word, in host order, to the value: `>> shift`, mask, sign extension.
    private func value(ofWord raw: UInt64) -> Int64 {
        var word = raw >> UInt64(shift)
        if bits < 64 {
            let mask: UInt64 = (1 << UInt64(bits)) - 1
            word &= mask
            if signed, word & (1 << UInt64(bits - 1)) != 0 { word |= ~mask }
        }
        return Int64(bitPattern: word)
    }

    package var description: String {
        "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(bits)/\(storageBits)"
            + (repeatCount > 1 ? "X\(repeatCount)" : "") + ">>\(shift)"
    }
}
