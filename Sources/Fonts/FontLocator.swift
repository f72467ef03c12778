import CFreeType

/// The file fontconfig chose for a pattern.
package struct FontMatch: Sendable, Equatable {
    package var path: String
    package var faceIndex: Int
    /// Family and style of the face fontconfig matched (may differ from what was asked
    /// when the font is not installed: fontconfig substitutes).
    package var family: String
    package var style: String
}

/// fontconfig lookups.
package enum FontLocator {
    /// The best match for a fontconfig pattern such as "DejaVu Sans:style=Bold"
    /// (`FcNameParse`, `FcConfigSubstitute`, `FcDefaultSubstitute`, `FcFontMatch`).
    package static func match(_ pattern: String) throws -> FontMatch {
        guard let config = FcInitLoadConfigAndFonts() else {
            throw FontError(operation: "fontconfig", detail: "cannot load the configuration", code: 0)
        }
        defer { FcConfigDestroy(config) }
        guard let pat = FcNameParse(pattern) else {
            throw FontError(operation: "fontconfig", detail: "cannot parse font pattern \"\(pattern)\"", code: 0)
        }
        defer { FcPatternDestroy(pat) }
        FcConfigSubstitute(config, pat, FcMatchPattern)
        FcDefaultSubstitute(pat)
        var result = FcResultNoMatch
        guard let found = FcFontMatch(config, pat, &result), result == FcResultMatch else {
            throw FontError(operation: "fontconfig", detail: "no font matches \"\(pattern)\"", code: 0)
        }
        defer { FcPatternDestroy(found) }
        func string(_ key: String) -> String? {
            var value: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(found, key, 0, &value) == FcResultMatch, let value else { return nil }
            return String(cString: value)
        }
        var index: Int32 = 0
        _ = FcPatternGetInteger(found, "index", 0, &index)
        guard let path = string("file") else {
            throw FontError(operation: "fontconfig", detail: "match for \"\(pattern)\" has no file", code: 0)
        }
        return FontMatch(
            path: path, faceIndex: Int(index), family: string("family") ?? "?",
            style: string("style") ?? "?")
    }
}
