import Evdev
import Glibc
import LinuxSystem
import Motion
import Udev

/// The kernel's tablet-mode switch: `SW_TABLET_MODE` (EV_SW code 1) of an input device,
/// reported by intel-vbtn, intel-hid, ideapad-laptop, asus-wmi and others when a
/// convertible folds into tablet mode and back (linux/input-event-codes.h). Found with
/// libudev: an `input` device whose `eventN` node udev marks `ID_INPUT_SWITCH=1` and whose
/// parent's `capabilities/sw` bitmap has bit 1. Its node is read without blocking; each
/// `SW_TABLET_MODE` event (the kernel reports changes only) is a new pose to capture a
/// baseline in.
package final class TabletModeSwitch {
    private let node: String
    private let inputName: String
    private let fd: FileDescriptor
    /// Up to 32 `struct input_event`s per read, kept so that reads allocate nothing.
    private var buffer = [UInt8](repeating: 0, count: 32 * InputEvent.byteCount)

    package init(devnode: String, name: String) throws {
        node = devnode
        inputName = name
        fd = try FileDescriptor.open(devnode, O_RDONLY | O_NONBLOCK)
    }

    package var fileDescriptor: Int32 { fd.rawValue }
    /// Its event node, e.g. `/dev/input/event3`.
    package var devnode: String { node }
    /// The input device's `name` (e.g. "Intel Virtual Switches").
    package var name: String { inputName }

    /// Every input device of this machine with a tablet-mode switch: (node, name).
    package static func find(udev: UdevContext) -> [(devnode: String, name: String)] {
        guard let devices = try? udev.devices(subsystem: "input") else { return [] }
        var found: [(devnode: String, name: String)] = []
        for d in devices where d.sysname.hasPrefix("event") && d.property("ID_INPUT_SWITCH") == "1" {
            guard let node = d.devnode, let parent = d.parentSyspath,
                case .success(let caps) = SysfsAttributeFile.read(parent + "/capabilities/sw"),
                hasTabletModeBit(caps)
            else { continue }
            let name = (try? SysfsAttributeFile.read(parent + "/name").get()).map {
                String($0[...].trimmingASCIIWhitespace())
            }
            found.append((node, name ?? d.sysname))
        }
        return found
    }

    /// `capabilities/sw` is a hexadecimal bitmap (the kernel's `%lx` words, most
    /// significant first, separated by spaces); SW_TABLET_MODE is bit 1 of the last word.
    static func hasTabletModeBit(_ text: String) -> Bool {
        guard let last = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).last,
            let word = UInt64(last, radix: 16)
        else { return false }
        return word & (1 << UInt64(EventCode.tabletMode)) != 0
    }

    /// The most reads (of up to 32 events each) one `read` makes: a node that floods (a
    /// uinput device claiming SW_TABLET_MODE, written in a loop) stays readable, and the
    /// caller's loop comes back to it after its other work.
    static let readsPerWakeup = 8

    /// Reads what is waiting, at most `readsPerWakeup` buffers: the newest `SW_TABLET_MODE`
    /// value (1 = tablet mode), nil when none came. A read error or the end of the file is
    /// thrown (the device went away: an evdev node never ends, and one that did would keep
    /// polling readable).
    package func read() throws -> Int32? {
        var newest: Int32?
        for _ in 0..<Self.readsPerWakeup {
            let n = try buffer.withUnsafeMutableBytes { try fd.readAvailable(into: $0) }
            guard let n else { return newest }
            if n == 0 { throw SystemError("read", path: devnode, errno: ENODEV) }
            buffer.withUnsafeBytes { bytes in
                InputEvent.forEach(in: UnsafeRawBufferPointer(rebasing: bytes[..<n])) { event in
                    if event.type == .switchState, event.code == EventCode.tabletMode { newest = event.value }
                }
            }
        }
        return newest
    }
}
