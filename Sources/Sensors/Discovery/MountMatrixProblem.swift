import Motion

/// A mount matrix a device offers (udev's hwdb `ACCEL_MOUNT_MATRIX`, a sysfs
/// `*mount_matrix` attribute) that is not used: text that is not nine numbers, or nine
/// numbers that are no rotation (`MountMatrix.parse`). The next source is taken, at last
/// the identity, as iio-sensor-proxy falls back to the identity; the attach line says
/// which one and why (`logText`).
package struct MountMatrixProblem: Sendable, Equatable, CustomStringConvertible {
    /// `udev:ACCEL_MOUNT_MATRIX`, `sysfs:in_anglvel_mount_matrix`, ...
    package var source: String
    /// The text offered, without the surrounding white space.
    package var text: String
    package var error: MountMatrix.ParseError

    /// `udev:ACCEL_MOUNT_MATRIX = "1, 0, 0; 1, 0, 0; 0, 0, 1": singular ...`
    package var description: String { "\(source) = \"\(text)\": \(error)" }

    /// `malformed mount matrix ...` or, for nine numbers that are no rotation,
    /// `refused mount matrix ...`.
    package var logText: String { "\(error.isMalformed ? "malformed" : "refused") mount matrix \(description)" }

    /// The first candidate (a source and its text, nil when the device has none) that is
    /// a usable matrix, and the problems of those before it; the identity
    /// (`default:identity`) when none is.
    static func choose(_ candidates: [(source: String, text: String?)]) -> (MountMatrix, String, [MountMatrixProblem]) {
        var problems: [MountMatrixProblem] = []
        for (source, text) in candidates {
            guard let text else { continue }
            switch MountMatrix.parse(text) {
            case .success(let m): return (m, source, problems)
            case .failure(let e):
                problems.append(
                    MountMatrixProblem(source: source, text: String(text[...].trimmingASCIIWhitespace()), error: e))
            }
        }
        return (.identity, "default:identity", problems)
    }
}
