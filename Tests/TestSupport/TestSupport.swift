// Helpers shared by the Swift test targets (not a test target itself): scratch
// directories, caught errors, the physical constants the expectations are written in.
// It imports no module of shimmerd, so any test target may depend on it.
import Foundation

/// A directory of its own under /tmp (mkdtemp(3)), removed with everything in it by
/// `remove()` (a test's `defer`), or at the latest when the value goes away (with the
/// suite that holds it).
package final class ScratchDirectory {
    package let path: String

    /// `/tmp/PREFIX-XXXXXX`.
    package init(_ prefix: String) {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` inside the directory and returns its path.
    package func write(_ text: String, to name: String) throws -> String {
        let p = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        return p
    }

    /// Removes the directory and everything in it.
    package func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}

/// The error of type `E` that `body` throws; nil when it returns or throws another type.
package func caught<E: Error>(_: E.Type, _ body: () throws -> Void) -> E? {
    do { try body() } catch let e as E { return e } catch { return nil }
    return nil
}

/// Standard gravity in m/s^2, the g of docs/TILT.md.
package let standardGravity = 9.80665

/// One degree in radians.
package let degree = Double.pi / 180
