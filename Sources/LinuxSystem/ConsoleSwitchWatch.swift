import CLinux
import Glibc

/// Console switches handed to this process, as a program that draws on a VT must take
/// them (console_ioctl(4), VT_SETMODE with VT_PROCESS; drivers/tty/vt/vt_ioctl.c): the
/// kernel sends `signal` before it switches away from the VT and after it has switched
/// back, and waits for the answer (`VT_RELDISP`) before it goes on. The display sinks use
/// it to give the display up (DRM master dropped, the console's mode set back) while
/// another VT is in front, and to take it back, each time at once, with no polling.
///
/// The VT is the one in front when `path` is opened (/dev/tty0 names the foreground
/// console). A process that dies in VT_PROCESS mode leaves no stuck console: the kernel
/// resets the VT to VT_AUTO when the signal cannot be delivered. `close()` (and deinit)
/// sets VT_AUTO back.
package final class ConsoleSwitchWatch {
    package let path: String
    /// The VT watched (1 for tty1).
    package let number: Int
    private let fd: FileDescriptor
    private var closed = false

    /// Opens `path` write-only (as `VirtualTerminalMode` does: group tty, mode 0620) and
    /// asks for `signal` on switches. VT_SETMODE needs CAP_SYS_TTY_CONFIG unless the VT is
    /// the caller's controlling terminal.
    package init(path: String, signal: Int32) throws {
        self.path = path
        let file = try FileDescriptor.open(path, O_WRONLY | O_NOCTTY)
        var active: UInt16 = 0
        try retryingEINTR("VT_GETSTATE", path: path) { shim_vt_active(file.rawValue, &active) }
        try retryingEINTR("VT_SETMODE VT_PROCESS", path: path) { shim_vt_set_process_mode(file.rawValue, signal) }
        fd = file
        number = Int(active)
    }

    deinit { close() }

    /// Whether the watched VT is in front (VT_GETSTATE's `v_active`).
    package func isInFront() throws -> (inFront: Bool, active: Int) {
        var active: UInt16 = 0
        try retryingEINTR("VT_GETSTATE", path: path) { shim_vt_active(fd.rawValue, &active) }
        return (Int(active) == number, Int(active))
    }

    /// VT_RELDISP 1: the display is given up, the kernel may switch away now.
    package func allowSwitchAway() throws {
        try retryingEINTR("VT_RELDISP 1", path: path) { shim_vt_release_display(fd.rawValue, 1) }
    }

    /// VT_RELDISP VT_ACKACQ: the switch back to this VT is taken.
    package func acknowledgeSwitchBack() throws {
        try retryingEINTR("VT_RELDISP VT_ACKACQ", path: path) { shim_vt_release_display(fd.rawValue, shim_vt_ackacq()) }
    }

    /// VT_SETMODE VT_AUTO: the kernel switches without asking again. Once.
    package func close() {
        guard !closed else { return }
        closed = true
        _ = shim_vt_set_auto_mode(fd.rawValue)
    }
}
