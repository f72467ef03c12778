// Fuzzes `MountMatrix.parse` (docs/TILT.md, "Mount matrix": `a, b, c; d, e, f; g, h, i`).
//
// Properties, beyond returning:
// - a parsed matrix has three rows of finite numbers of magnitude at most 1e6 and no
//   all-zero row, is a rotation (M * Mᵀ within `rotationTolerance` of the identity, so
//   |det M| close to 1), and the validating initializer accepts the same rows;
// - its text form (`description`, the kernel's format) parses back to the same matrix;
// - ASCII white space around the text (the kernel's trailing newline) changes nothing;
// - an error points inside the text: its row is 0...2 and its column 0...2.
import FuzzSupport
import Motion

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMountMatrix(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    let result = MountMatrix.parse(text)
    switch result {
    case .success(let m):
        require(m.rows.count == 3, "\(m.rows.count) rows from \(quoted(text))")
        for (r, row) in m.rows.enumerated() {
            require(row.isFinite && row != .zero, "row \(r + 1) is \(row) from \(quoted(text))")
            for v in [row.x, row.y, row.z] {
                require(abs(v) <= 1e6, "value \(v) beyond the limit from \(quoted(text))")
            }
        }
        for i in 0..<3 {
            for j in 0..<3 {
                let off = abs(m.rows[i].dot(m.rows[j]) - (i == j ? 1 : 0))
                require(off <= MountMatrix.rotationTolerance, "\(m) is no rotation (M * Mᵀ off by \(off)) from \(quoted(text))")
            }
        }
        require(abs(abs(m.determinant) - 1) < 0.1, "determinant \(m.determinant) of \(m) from \(quoted(text))")
        require(MountMatrix(rows: m.rows) == m, "the validating initializer refuses \(m)")
        require(MountMatrix.parse(m.description) == .success(m),
                "text form \(quoted(m.description)) does not parse back from \(quoted(text))")
        for (before, after) in [(" \t", " \n"), ("\r\n", "\r\n")] {
            require(MountMatrix.parse(before + text + after) == result,
                    "white space \(quoted(before))...\(quoted(after)) around \(quoted(text)) changes the result")
        }
    case .failure(let error):
        switch error {
        case .empty, .rowCount:
            break
        case .notARotation(let det, let deviation):
            require(deviation > MountMatrix.rotationTolerance && !det.isNaN,
                    "refused as no rotation (determinant \(det), off by \(deviation)): \(quoted(text))")
        case .columnCount(let row, _), .zeroRow(let row):
            require((0..<3).contains(row), "error \(error) outside the matrix for \(quoted(text))")
        case .badNumber(let row, let column, _), .outOfRange(let row, let column, _):
            require((0..<3).contains(row) && (0..<3).contains(column),
                    "error \(error) outside the matrix for \(quoted(text))")
        }
        require(!error.description.isEmpty, "empty message")
    }
    return 0
}
