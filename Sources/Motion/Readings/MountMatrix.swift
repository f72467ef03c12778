/// The IIO mount matrix (docs/TILT.md, "Mount matrix"): `device = M * sensor`, so row r of the
/// text `a, b, c; d, e, f; g, h, i` gives device axis r, the same as iio-sensor-proxy's
/// `apply_mount_matrix()`.
///
/// A mount matrix says how the chip is turned in the device, so it must be a rotation,
/// or a rotation with a mirror (det -1: many hwdb entries are): `M * Mᵀ = I`, which
/// makes `|det M| = 1` (det(M)² = det(M * Mᵀ)). Anything else is refused wherever it
/// comes from (hwdb, sysfs, `Sensor.mount_matrix`, `Sensor.gyro_mount_matrix`): a
/// singular matrix (two equal rows, as two entries of systemd's 60-sensor.hwdb have, or
/// entries of 1e-300) flattens every reading onto a plane or a line, and each reading
/// then looks like a bad reading ("zero acceleration vector") rather than a bad matrix.
package struct MountMatrix: Hashable, Sendable, CustomStringConvertible {
    /// Rows, each the coefficients of one device axis.
    package let rows: [Vector3]

    package static let identity = MountMatrix(validatedRows: [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)])

    private init(validatedRows: [Vector3]) { self.rows = validatedRows }

    /// Validating initializer: nil unless three finite rows make a rotation (with or
    /// without a mirror, within `rotationTolerance`).
    package init?(rows: [Vector3]) {
        guard rows.count == 3, rows.allSatisfy({ $0.isFinite && $0 != .zero }),
            Self.rotationProblem(rows) == nil
        else { return nil }
        self.rows = rows
    }

    /// The most an entry of `M * Mᵀ` may differ from the identity's. Matrices are written
    /// by hand with few digits: a 45° mount written with two decimals ("0.71, -0.71, 0;
    /// ...") is off by 0.0082, and any rotation rounded to two decimals by at most
    /// 2·√3·0.005 + 3·0.005² < 0.018. 0.02 admits all of those; what it admits turns a
    /// reading by less than 0.6° and scales it by less than 1 %, far below what the card
    /// shows (its full swing is 0.2 rad = 11.5°). A singular matrix is off by 1 or more.
    package static let rotationTolerance = 0.02

    /// Why `rows` are not a rotation (nil when they are): the determinant and the largest
    /// departure of `M * Mᵀ` from the identity.
    static func rotationProblem(_ rows: [Vector3]) -> ParseError? {
        var deviation = 0.0
        for i in 0..<3 {
            for j in 0..<3 {
                let target = i == j ? 1.0 : 0.0
                let d = abs(rows[i].dot(rows[j]) - target)
                // NaN (an overflow of huge entries) counts as the worst departure.
                deviation = d.isNaN ? .infinity : max(deviation, d)
            }
        }
        guard deviation > rotationTolerance else { return nil }
        return .notARotation(determinant: rows[0].dot(rows[1].cross(rows[2])), deviation: deviation)
    }

    package enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case rowCount(Int)
        case columnCount(row: Int, count: Int)
        case badNumber(row: Int, column: Int, Substring)
        /// A number, but larger in magnitude than any mount matrix entry (1e6).
        case outOfRange(row: Int, column: Int, Substring)
        case zeroRow(Int)
        /// Nine numbers that are not a rotation (`rotationProblem`).
        case notARotation(determinant: Double, deviation: Double)

        package var description: String {
            switch self {
            case .empty: "empty mount matrix"
            case .rowCount(let n): "expected 3 rows separated by ';', found \(n)"
            case .columnCount(let r, let n): "row \(r + 1): expected 3 numbers separated by ',', found \(n)"
            case .badNumber(let r, let c, let t): "row \(r + 1), column \(c + 1): not a number: \"\(t)\""
            case .outOfRange(let r, let c, let t):
                "row \(r + 1), column \(c + 1): out of range: \"\(t)\" (a mount matrix entry is at most "
                    + "\(MountMatrix.entryLimit.plainText) in magnitude)"
            case .zeroRow(let r): "row \(r + 1) is all zero"
            case .notARotation(let det, let deviation):
                (abs(det) < 1e-9
                    ? "singular (determinant \(rounded(det))): it would flatten every reading"
                    : "not a rotation (determinant \(rounded(det)))")
                    + "; a mount matrix must be a rotation, or a rotation with a mirror: M times its "
                    + "transpose is off the identity by "
                    + "\(rounded(deviation)), more than \(MountMatrix.rotationTolerance.plainText)"
            }
        }

        /// False for nine numbers that are refused as not a rotation; true for anything
        /// else (not nine numbers in range, a zero row), which log lines call malformed.
        package var isMalformed: Bool {
            if case .notARotation = self { false } else { true }
        }

        /// Three decimals, for the message (the determinant of a 1e-300 matrix is 0).
        private func rounded(_ v: Double) -> String {
            v.isFinite ? ((v * 1000).rounded() / 1000 + 0).plainText : "too large to compute"
        }
    }

    /// The largest magnitude of an entry.
    package static let entryLimit = 1e6

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
                switch SysfsNumber.parse(cell, limit: entryLimit) {
                case .success(let v): values.append(v)
                case .failure(.tooLarge):
                    return .failure(.outOfRange(row: r, column: c, cell.trimmingASCIIWhitespace()))
                case .failure: return .failure(.badNumber(row: r, column: c, cell.trimmingASCIIWhitespace()))
                }
            }
            let row = Vector3(values[0], values[1], values[2])
            if row == .zero { return .failure(.zeroRow(r)) }
            rows.append(row)
        }
        if let refused = rotationProblem(rows) { return .failure(refused) }
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
