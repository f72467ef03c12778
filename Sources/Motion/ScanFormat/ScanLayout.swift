/// The byte layout of one buffer scan: the enabled elements in `index` order, each at an
/// offset aligned to its own size, and the scan padded to its largest element, as the
/// kernel's `iio_compute_scan_bytes()` does (a 64-bit timestamp after three 16-bit
/// values starts at byte 8, and the scan is 16 bytes). Sizes that are not powers of two
/// (a repeat of 3) are rounded up to a multiple, as libiio's demuxer does.
package struct ScanLayout: Hashable, Sendable {
    package struct Element: Hashable, Sendable {
        /// Channel name without the `in_` prefix, e.g. `accel_x`, `timestamp`.
        package var name: String
        package var index: Int
        package var type: ScanType
        package var offset: Int
    }

    package let elements: [Element]
    /// Bytes per scan.
    package let scanBytes: Int

    /// Lays out the given (name, index, type) elements; duplicate indices are rejected.
    package init?(_ channels: [(name: String, index: Int, type: ScanType)]) {
        let sorted = channels.sorted { $0.index < $1.index }
        var seen = Set<Int>()
        var offset = 0
        var largest = 1
        var elements: [Element] = []
        for c in sorted {
            guard c.index >= 0, seen.insert(c.index).inserted else { return nil }
            let length = c.type.elementBytes
            offset = Self.roundUp(offset, to: length)
            elements.append(Element(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += length
            largest = max(largest, length)
        }
        guard !elements.isEmpty else { return nil }
        self.elements = elements
        self.scanBytes = Self.roundUp(offset, to: largest)
    }

    private static func roundUp(_ n: Int, to m: Int) -> Int { n % m == 0 ? n : n + (m - n % m) }

    /// Decodes one scan: for each element its values (one per repeat). Nil when `scan`
    /// is shorter than `scanBytes`.
    package func decode(_ scan: some RandomAccessCollection<UInt8>) -> [String: [Int64]]? {
        guard scan.count >= scanBytes else { return nil }
        var out: [String: [Int64]] = [:]
        let base = scan.startIndex
        for e in elements {
            var values: [Int64] = []
            for r in 0..<e.type.repeatCount {
                let start = scan.index(base, offsetBy: e.offset + r * e.type.storageBytes)
                let end = scan.index(start, offsetBy: e.type.storageBytes)
                values.append(e.type.decodeValue(scan[start..<end]))
            }
            out[e.name] = values
        }
        return out
    }

    /// The position in `elements` of the element named `name` (`accel_x`, `timestamp`).
    package func elementIndex(named name: String) -> Int? {
        elements.firstIndex { $0.name == name }
    }

    /// The first value of `elements[element]` in one scan of at least `scanBytes`
    /// bytes, without allocating: `decode(scan)[name]![0]`.
    package func firstValue(of element: Int, in scan: UnsafeRawBufferPointer) -> Int64 {
        let e = elements[element]
        return e.type.decodeValue(in: scan, at: e.offset)
    }

    /// The positions of `<channel>_x`, `_y` and `_z` (`accel`, `anglvel`); nil unless all
    /// three are in the layout.
    package func axisElements(of channel: String) -> (x: Int, y: Int, z: Int)? {
        guard let x = elementIndex(named: "\(channel)_x"), let y = elementIndex(named: "\(channel)_y"),
            let z = elementIndex(named: "\(channel)_z")
        else { return nil }
        return (x, y, z)
    }

    /// The three axes' first values in one scan (`axisElements`), as counts.
    package func vector(_ axes: (x: Int, y: Int, z: Int), in scan: UnsafeRawBufferPointer) -> Vector3 {
        Vector3(
            Double(firstValue(of: axes.x, in: scan)), Double(firstValue(of: axes.y, in: scan)),
            Double(firstValue(of: axes.z, in: scan)))
    }
}
