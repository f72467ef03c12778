import CFreeType
import Glibc

/// Coverage of a run of text: `width` x `height` bytes, top-left pixel at (`left`, `top`).
package struct GlyphCoverage: Sendable, Equatable {
    package var left: Int
    package var top: Int
    package var width: Int
    package var height: Int
    package var coverage: [UInt8]
}

/// Unrotated metrics of a run, pixels, y down, relative to the pen origin on the baseline.
package struct RunMetrics: Sendable, Equatable {
    package var advance: Double
    package var ascent: Double
    package var descent: Double
    package var inkMinX: Double
    package var inkMinY: Double
    package var inkMaxX: Double
    package var inkMaxY: Double
}

/// One FreeType face (`FT_Face`) with its own library instance (`FT_Library`), so a face
/// is self-contained and freed with the object. Not thread-safe: FreeType faces are not.
package final class FontFace {
    private var library: FT_Library?
    private var face: FT_Face?
    package let match: FontMatch

    /// Opens the face fontconfig matches for `pattern` (`FT_Init_FreeType`, `FT_New_Face`).
    package convenience init(pattern: String) throws {
        try self.init(match: FontLocator.match(pattern))
    }

    package init(match: FontMatch) throws {
        self.match = match
        try check(FT_Init_FreeType(&library), "FT_Init_FreeType", "cannot start FreeType")
        do {
            try check(
                FT_New_Face(library, match.path, FT_Long(match.faceIndex), &face), "FT_New_Face",
                "cannot open font \(match.path)")
        } catch {
            // deinit runs too (every stored property is set): it must not free it again.
            FT_Done_FreeType(library)
            library = nil
            throw error
        }
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    private var loadFlags: Int32 { Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) }

    /// `FT_Set_Char_Size` at 72 dpi, so points are pixels; 26.6 fixed point allows
    /// fractional pixel sizes.
    private func setSize(_ pixelSize: Double) throws {
        guard pixelSize.isFinite, pixelSize > 0, pixelSize < 10_000 else {
            throw FontError(operation: "FT_Set_Char_Size", detail: "bad pixel size \(pixelSize)", code: 0)
        }
        try check(
            FT_Set_Char_Size(face, 0, FT_F26Dot6((pixelSize * 64).rounded()), 72, 72),
            "FT_Set_Char_Size", "size \(pixelSize) px")
    }

    private func glyphIndex(_ scalar: Unicode.Scalar) throws -> FT_UInt {
        let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
        if index == 0 {
            throw FontError(
                operation: "FT_Get_Char_Index",
                detail: "font \(match.family) has no glyph for U+\(String(scalar.value, radix: 16, uppercase: true))",
                code: 0)
        }
        return index
    }

    /// Advance, font ascent and descent, and the exact ink box (`FT_Outline_Get_BBox`).
    package func metrics(of text: String, pixelSize: Double) throws -> RunMetrics {
        try setSize(pixelSize)
        FT_Set_Transform(face, nil, nil)
        guard let face else { throw FontError(operation: "metrics", detail: "no face", code: 0) }
        let unitsPerEM = Double(face.pointee.units_per_EM)
        var pen = 0.0
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for scalar in text.unicodeScalars {
            try check(FT_Load_Glyph(face, try glyphIndex(scalar), loadFlags), "FT_Load_Glyph", "U+\(scalar.value)")
            let slot = face.pointee.glyph!
            var box = FT_BBox()
            if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE, slot.pointee.outline.n_points > 0 {
                try check(FT_Outline_Get_BBox(&slot.pointee.outline, &box), "FT_Outline_Get_BBox", "U+\(scalar.value)")
                // FreeType is y up; we are y down.
                minX = min(minX, pen + Double(box.xMin) / 64)
                maxX = max(maxX, pen + Double(box.xMax) / 64)
                minY = min(minY, -Double(box.yMax) / 64)
                maxY = max(maxY, -Double(box.yMin) / 64)
            }
            pen += Double(slot.pointee.advance.x) / 64
        }
        if minX > maxX { minX = 0; maxX = 0; minY = 0; maxY = 0 }
        return RunMetrics(
            advance: pen,
            ascent: Double(face.pointee.ascender) / unitsPerEM * pixelSize,
            descent: -Double(face.pointee.descender) / unitsPerEM * pixelSize,
            inkMinX: minX, inkMinY: minY, inkMaxX: maxX, inkMaxY: maxY)
    }

    /// Rasterizes `text` with its pen origin at (`penX`, `baselineY`) pixels, turned
    /// clockwise on screen by `rotationRadians` about that origin (`FT_Set_Transform`,
    /// `FT_Load_Glyph`, `FT_Render_Glyph` in FT_RENDER_MODE_NORMAL: 8-bit anti-aliased).
    package func rasterize(
        _ text: String, pixelSize: Double, penX: Double, baselineY: Double,
        rotationRadians: Double
    ) throws -> GlyphCoverage {
        let unrotated = try advances(of: text, pixelSize: pixelSize)
        guard let face else { throw FontError(operation: "rasterize", detail: "no face", code: 0) }
        let c = cos(rotationRadians), s = sin(rotationRadians)
        // Clockwise on a y-down screen is clockwise on FreeType's y-up plane too, which
        // there is the matrix [cos sin; -sin cos] (16.16 fixed point).
        var matrix = FT_Matrix(
            xx: FT_Fixed((c * 65536).rounded()), xy: FT_Fixed((s * 65536).rounded()),
            yx: FT_Fixed((-s * 65536).rounded()), yy: FT_Fixed((c * 65536).rounded()))
        var pieces = [GlyphCoverage]()
        for (scalar, offset) in zip(text.unicodeScalars, unrotated) {
            // The glyph's origin on screen (y down), then into FreeType's y-up 26.6.
            let gx = penX + c * offset, gy = baselineY + s * offset
            var delta = FT_Vector(x: FT_Pos((gx * 64).rounded()), y: FT_Pos((-gy * 64).rounded()))
            FT_Set_Transform(face, &matrix, &delta)
            try check(FT_Load_Glyph(face, try glyphIndex(scalar), loadFlags), "FT_Load_Glyph", "U+\(scalar.value)")
            let slot = face.pointee.glyph!
            try check(FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL), "FT_Render_Glyph", "U+\(scalar.value)")
            let bitmap = slot.pointee.bitmap
            let w = Int(bitmap.width), h = Int(bitmap.rows), pitch = Int(bitmap.pitch)
            guard w > 0, h > 0, let buffer = bitmap.buffer else { continue }
            var cov = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                let row = pitch >= 0 ? buffer + y * pitch : buffer + (h - 1 - y) * -pitch
                for x in 0..<w { cov[y * w + x] = row[x] }
            }
            pieces.append(
                GlyphCoverage(
                    left: Int(slot.pointee.bitmap_left), top: -Int(slot.pointee.bitmap_top),
                    width: w, height: h, coverage: cov))
        }
        FT_Set_Transform(face, nil, nil)
        return GlyphCoverage.merging(pieces)
    }

    /// Pen offset of each glyph along the (unrotated) baseline.
    private func advances(of text: String, pixelSize: Double) throws -> [Double] {
        try setSize(pixelSize)
        FT_Set_Transform(face, nil, nil)
        var offsets = [Double]()
        var pen = 0.0
        for scalar in text.unicodeScalars {
            offsets.append(pen)
            try check(FT_Load_Glyph(face, try glyphIndex(scalar), loadFlags), "FT_Load_Glyph", "U+\(scalar.value)")
            pen += Double(face!.pointee.glyph!.pointee.advance.x) / 64
        }
        return offsets
    }
}

extension GlyphCoverage {
    /// One coverage image holding every piece (saturating sum where glyphs overlap).
    static func merging(_ pieces: [GlyphCoverage]) -> GlyphCoverage {
        guard let first = pieces.first else { return GlyphCoverage(left: 0, top: 0, width: 0, height: 0, coverage: []) }
        if pieces.count == 1 { return first }
        let l = pieces.map(\.left).min()!, t = pieces.map(\.top).min()!
        let r = pieces.map { $0.left + $0.width }.max()!, b = pieces.map { $0.top + $0.height }.max()!
        var cov = [UInt8](repeating: 0, count: (r - l) * (b - t))
        for p in pieces {
            for y in 0..<p.height {
                for x in 0..<p.width {
                    let i = (p.top + y - t) * (r - l) + (p.left + x - l)
                    let (sum, overflow) = cov[i].addingReportingOverflow(p.coverage[y * p.width + x])
                    cov[i] = overflow ? 255 : sum
                }
            }
        }
        return GlyphCoverage(left: l, top: t, width: r - l, height: b - t, coverage: cov)
    }
}
