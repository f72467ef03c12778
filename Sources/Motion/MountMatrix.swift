/// The IIO mount matrix (attitude.md section 2): `device = M * sensor`, so row r of the
/// text `a, b, c; d, e, f; g, h, i` gives device axis r, the same as iio-sensor-proxy's
/// `apply_mount_matrix()`. Real hwdb matrices are often improper (det -1) and two are
/// singular, so no orthonormality is assumed; only an all-zero row is invalid (that axis
/// would always read 0).
package struct MountMatrix: Hashable, Sendable, CustomStringConvertible {
    /// Rows, each the coefficients of one device axis.
    package let rows: [Vector3]

    package static let identity = MountMatrix(validatedRows: [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)])

    private init(validatedRows: [Vector3]) { self.rows = validatedRows }

    /// Validating initializer: nil if a row is all zero or a value is not finite.
    package init?(rows: [Vector3]) {
        guard rows.count == 3, rows.allSatisfy({ $0.isFinite && $0 != .zero }) else { return nil }
        self.rows = rows
    }

    package enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case rowCount(Int)
        case columnCount(row: Int, count: Int)
        case badNumber(row: Int, column: Int, Substring)
        case zeroRow(Int)

        package var description: String {
            switch self {
            case .empty: "empty mount matrix"
            case .rowCount(let n): "expected 3 rows separated by ';', found \(n)"
            case .columnCount(let r, let n): "row \(r + 1): expected 3 numbers separated by ',', found \(n)"
            case .badNumber(let r, let c, let t): "row \(r + 1), column \(c + 1): not a number: \"\(t)\""
            case .zeroRow(let r): "row \(r + 1) is all zero"
            }
        }
    }

    /// Parses `a, b, c; d, e, f; g, h, i` with C-locale numbers. Extra spaces and a
    /// trailing newline are fine; a decimal comma (`0,5`) yields the wrong number of
    /// columns and is rejected like any other garbage.
    package static func parse(_ text: String) -> Result<MountMatrix, ParseError> {
        let body = text[...].trimmingASCIIWhitespace()
        if body.isEmpty { return .failure(.empty) }
        let rowTexts = body.split(separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { return .failure(.rowCount(rowTexts.count)) }
        var rows: [Vector3] = []
        for (r, rowText) in rowTexts.enumerated() {
            let cells = rowText.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 3 else { return .failure(.columnCount(row: r, count: cells.count)) }
            var values: [Double] = []
            for (c, cell) in cells.enumerated() {
                guard case .success(let v) = SysfsNumber.parse(cell, limit: 1e6) else {
                    return .failure(.badNumber(row: r, column: c, cell.trimmingASCIIWhitespace()))
                }
                values.append(v)
            }
            let row = Vector3(values[0], values[1], values[2])
            if row == .zero { return .failure(.zeroRow(r)) }
            rows.append(row)
        }
        return .success(MountMatrix(validatedRows: rows))
    }

    /// `M * v`.
    package func apply(_ v: Vector3) -> Vector3 {
        Vector3(rows[0].dot(v), rows[1].dot(v), rows[2].dot(v))
    }

    package var determinant: Double { rows[0].dot(rows[1].cross(rows[2])) }

    /// The kernel's text form (`iio_show_mount_matrix()`), numbers without trailing zeros.
    package var description: String {
        rows.map { r in [r.x, r.y, r.z].map(\.plainText).joined(separator: ", ") }.joined(separator: "; ")
    }
}
