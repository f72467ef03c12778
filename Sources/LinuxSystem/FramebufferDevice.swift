import CLinux
import Glibc

/// One color channel of an fbdev pixel (`struct fb_bitfield`): bit offset and length in
/// the pixel word.
package struct FramebufferChannel: Sendable, Equatable {
    package var offset: Int
    package var length: Int

    package init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }
}

/// What FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO report (linux/fb.h), reduced to the
/// fields a sink needs. Pixels, bits and bytes as the kernel counts them.
package struct FramebufferScreenInfo: Sendable, Equatable {
    /// The visible resolution (xres, yres).
    package var width: Int
    package var height: Int
    /// xres_virtual, yres_virtual.
    package var virtualWidth: Int
    package var virtualHeight: Int
    /// The visible area's top-left in the virtual screen (xoffset, yoffset: panning).
    package var panX: Int
    package var panY: Int
    package var bitsPerPixel: Int
    package var red: FramebufferChannel
    package var green: FramebufferChannel
    package var blue: FramebufferChannel
    package var transparent: FramebufferChannel
    /// line_length: bytes from one row to the next.
    package var lineLength: Int
    /// smem_len: bytes of framebuffer memory.
    package var memoryLength: Int
    /// FB_VISUAL_TRUECOLOR (2) or DIRECTCOLOR (4) are the ones with channel bitfields.
    package var visual: UInt32
}

/// The fbdev ioctls and the sysfs attributes of a framebuffer.
package enum FramebufferDevice {
    /// FBIOGET_VSCREENINFO then FBIOGET_FSCREENINFO on `fd`. They fail with ENOTTY on a
    /// file that is not a framebuffer (a regular file standing in for /dev/fb0).
    package static func screenInfo(_ fd: FileDescriptor) throws -> FramebufferScreenInfo {
        var v = fb_var_screeninfo()
        var f = fb_fix_screeninfo()
        try retryingEINTR("FBIOGET_VSCREENINFO", path: fd.path) { shim_fb_get_vscreeninfo(fd.rawValue, &v) }
        try retryingEINTR("FBIOGET_FSCREENINFO", path: fd.path) { shim_fb_get_fscreeninfo(fd.rawValue, &f) }
        func channel(_ b: fb_bitfield) -> FramebufferChannel {
            FramebufferChannel(offset: Int(b.offset), length: Int(b.length))
        }
        return FramebufferScreenInfo(
            width: Int(v.xres), height: Int(v.yres), virtualWidth: Int(v.xres_virtual),
            virtualHeight: Int(v.yres_virtual),
            panX: Int(v.xoffset), panY: Int(v.yoffset), bitsPerPixel: Int(v.bits_per_pixel),
            red: channel(v.red), green: channel(v.green), blue: channel(v.blue), transparent: channel(v.transp),
            lineLength: Int(f.line_length), memoryLength: Int(f.smem_len), visual: f.visual)
    }

    /// The sysfs directory of the framebuffer `fd` is open on: /sys/class/graphics/fbN
    /// with N the minor number when it is a character device of the fbdev major (29), else
    /// with "fbN" the device path's last component (a regular file standing in), else nil.
    package static func sysfsDirectory(path: String, status: FileStatus, sysfsRoot: String = "/sys") -> String? {
        if status.kind == .characterDevice && status.deviceMajor == 29 {
            return sysfsRoot + "/class/graphics/fb\(status.deviceMinor)"
        }
        var resolved = path
        if let r = realpath(path, nil) {
            resolved = String(cString: r)
            free(r)
        }
        for candidate in [resolved, path] {
            let name = candidate.split(separator: "/").last.map(String.init) ?? ""
            if name.hasPrefix("fb"), name.count > 2, name.dropFirst(2).allSatisfy(\.isNumber) {
                return sysfsRoot + "/class/graphics/" + name
            }
        }
        return nil
    }
}

/// A virtual terminal's display mode (console_ioctl(4): KDGETMODE, KDSETMODE).
/// In KD_GRAPHICS the kernel stops drawing the text console (and its cursor) over the
/// framebuffer. `restore()` (and deinit) put back the mode found at `enterGraphics`.
package final class VirtualTerminalMode {
    package let path: String
    private let fd: FileDescriptor
    private var saved: Int32?

    /// Opens `path` (normally /dev/tty0, the foreground console) for writing only: Debian
    /// gives the VTs to group tty with mode 0620 (udev's 50-udev-default.rules), and the
    /// console ioctls need no read access. Fails when it cannot be opened or is not a VT
    /// (KDGETMODE fails, e.g. ENOTTY). KDSETMODE itself needs CAP_SYS_TTY_CONFIG unless
    /// the VT is the caller's controlling terminal (drivers/tty/vt/vt_ioctl.c).
    package init(path: String) throws {
        self.path = path
        fd = try FileDescriptor.open(path, O_WRONLY | O_NOCTTY)
        _ = try mode()
    }

    deinit { try? restore() }

    /// KDGETMODE: 0 = KD_TEXT, 1 = KD_GRAPHICS.
    package func mode() throws -> Int32 {
        var m: Int32 = 0
        try retryingEINTR("KDGETMODE", path: path) { shim_kd_get_mode(fd.rawValue, &m) }
        return m
    }

    /// KDSETMODE KD_GRAPHICS, remembering the previous mode.
    package func enterGraphics() throws {
        let previous = try mode()
        try retryingEINTR("KDSETMODE KD_GRAPHICS", path: path) { shim_kd_set_mode(fd.rawValue, shim_kd_graphics()) }
        if saved == nil { saved = previous }
    }

    /// KDSETMODE back to the mode found before `enterGraphics` (KD_TEXT on a console).
    /// Does nothing when `enterGraphics` was not called (or already restored).
    package func restore() throws {
        guard let mode = savedMode else { return }
        saved = nil
        try retryingEINTR("KDSETMODE KD_TEXT", path: path) { shim_kd_set_mode(fd.rawValue, mode) }
    }

    /// `restore()` prepared for a crash (`CrashFlush.register(restoring:keeping:)`, with
    /// this object kept so the descriptor stays open): KDSETMODE with the mode found
    /// before `enterGraphics`. Nil when there is nothing to restore.
    package var crashRestore: CrashFlush.Restore? {
        savedMode.map { CrashFlush.Restore(fileDescriptor: fd.rawValue, request: UInt(KDSETMODE), argument: $0) }
    }

    /// The KDSETMODE argument that puts back the mode found before `enterGraphics`.
    private var savedMode: UInt? {
        saved.map { $0 == Int32(shim_kd_graphics()) ? shim_kd_graphics() : shim_kd_text() }
    }
}
