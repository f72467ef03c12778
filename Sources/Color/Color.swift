// Color: the pure color engine of docs/CARD.md, "The colors".
//
// Purpose: turn a dot's distance to the focal point into its start and end colors.
// Invariants: every input to HSL is rounded to 1/100, so a color is identified by a
// `ColorKey` (hue and saturation in hundredths; lightness is fixed at 0.7) and there
// are at most 101 x 101 colors. `ColorTable` stores them densely, indexed by the key,
// so the hot path never hashes.
// Must not import: anything doing I/O (Foundation included). Pure Swift only.

/// `mapRange(v, a, b, c, d) = (v - a) * (d - c) / (b - a) + c`: linear, not clipped
/// (docs/CARD.md, "The dots").
@inlinable
package func mapRange(_ v: Double, _ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Double {
    (v - a) * (d - c) / (b - a) + c
}

/// Clamps to [0, 1].
@inlinable
package func clip01(_ v: Double) -> Double {
    min(max(v, 0), 1)
}

/// Rounds to 2 decimals, half away from zero, and returns the number of hundredths.
/// Inputs here are already clipped to [0, 1], so the result is 0...100.
@inlinable
package func hundredths(_ v: Double) -> Int {
    Int((v * 100).rounded(.toNearestOrAwayFromZero))
}
