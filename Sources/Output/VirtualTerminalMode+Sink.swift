import LinuxSystem
import Logging

/// The console as the display sinks (framebuffer, drm) use it: in KD_GRAPHICS while the
/// card is shown, so the kernel draws no text or cursor over it, and back afterwards.
extension VirtualTerminalMode {
    /// The VT at `path` put in KD_GRAPHICS; nil, with one line saying so, when it cannot
    /// be (not a VT, no permission): the card is shown anyway.
    static func graphicsConsole(_ path: String, log: Logger) -> VirtualTerminalMode? {
        do {
            let vt = try VirtualTerminalMode(path: path)
            try vt.enterGraphics()
            return vt
        } catch {
            log.warning("console \(path) left in its mode (\(error)); the text cursor may draw over the card")
            return nil
        }
    }

    /// `restore()`, a failure reported as one line.
    func restore(log: Logger) {
        do { try restore() } catch { log.error("console \(path): cannot restore text mode: \(error)") }
    }
}
