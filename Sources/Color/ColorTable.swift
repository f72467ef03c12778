/// The seed's `ColorCacheKey` cache made dense: one slot per `ColorKey`, filled on first
/// use. A lookup is an array index and a branch, never a hash. The table counts its
/// lookups so a frame's hit rate is measurable (`FrameColorStats`).
package struct ColorTable: Sendable {
    /// XRGB8888 words (0x00RRGGBB); `empty` marks a slot not yet converted.
    private var slots: [UInt32]
    private static let empty: UInt32 = 0xFFFF_FFFF

    /// Lookups answered from a filled slot, and conversions done, since the last reset.
    package private(set) var hits = 0
    package private(set) var misses = 0

    package init() {
        slots = Array(repeating: ColorTable.empty, count: ColorKey.steps * ColorKey.steps)
    }

    /// Converts every key now, so later lookups never convert (for daemons that
    /// prefer a fixed startup cost).
    package mutating func prefill() {
        for h in 0..<ColorKey.steps {
            for s in 0..<ColorKey.steps {
                _ = self[ColorKey(hue: h, saturation: s)]
            }
        }
        resetCounters()
    }

    /// The XRGB8888 word for `key`.
    @inlinable
    package subscript(key: ColorKey) -> UInt32 {
        mutating get { lookup(key.index, key) }
    }

    @usableFromInline
    mutating func lookup(_ index: Int, _ key: ColorKey) -> UInt32 {
        let cached = slots[index]
        if cached != ColorTable.empty {
            hits += 1
            return cached
        }
        misses += 1
        let word = key.hsl.rgb8.xrgb
        slots[index] = word
        return word
    }

    /// Number of filled slots.
    package var filled: Int { slots.reduce(0) { $0 + ($1 == ColorTable.empty ? 0 : 1) } }

    package mutating func resetCounters() {
        hits = 0
        misses = 0
    }
}
