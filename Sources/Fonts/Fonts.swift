// Fonts: the typed wrapper of FreeType (glyph rasterization) and fontconfig (finding
// the font file). One C library pair, one wrapper; every C call goes through this module.
//
// Purpose: find a font by fontconfig pattern ("DejaVu Sans:style=Bold") and rasterize
// runs of text into 8-bit coverage at any pixel size, rotation and sub-pixel position.
// Invariants: outlines are loaded without hinting so sizes scale linearly (the card
// sizes its arrows from measured ink boxes); coordinates are pixels, x right, y down
// (FreeType's y-up is converted here and nowhere else).
// Must not import: Raster, Card or any other shimmerd module (layer 1a).
import CFreeType

/// A failure of FreeType or fontconfig, with what was asked.
package struct FontError: Error, CustomStringConvertible {
    package var operation: String
    package var detail: String
    package var code: Int32

    package var description: String {
        code == 0 ? "\(operation): \(detail)" : "\(operation): \(detail) (FreeType error \(code))"
    }
}

/// Turns a FreeType return code into a thrown `FontError`.
@inline(__always)
func check(_ code: FT_Error, _ operation: @autoclosure () -> String, _ detail: @autoclosure () -> String) throws {
    if code != 0 { throw FontError(operation: operation(), detail: detail(), code: code) }
}
