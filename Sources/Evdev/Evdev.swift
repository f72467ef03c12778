// Evdev: a typed wrapper of libevdev (`libevdev/libevdev.h`, imported as CEvdev).
//
// Purpose: open an input device's event node (/dev/input/eventN) without blocking, say what
// it is (name, ids, properties, which event codes it has, each absolute axis's range,
// fuzz and resolution), and read its events as they come, resynchronised through
// libevdev's sync mode after the kernel dropped some (SYN_DROPPED).
// Invariants: an `EvdevDevice` owns its descriptor and its libevdev context and frees both
// in `deinit`. Every libevdev call that can fail goes through `EvdevCall` (EvdevCall.swift),
// which turns libevdev's negative errno into `EvdevError` and retries EINTR. Not
// thread-safe (libevdev is not): use from one thread.
// Must not import: LinuxSystem, Motion, Sensors or anything above layer 1a.
import Glibc

/// A failed libevdev call or system call on an input device: what was done, on which
/// node, and errno.
package struct EvdevError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let device: String
    package let code: Int32

    /// The device went away (the kernel answers ENODEV once it is unplugged).
    package var isGone: Bool { code == ENODEV }

    package var description: String {
        "\(operation) \(device): \(String(cString: strerror(code))) (errno \(code))"
    }
}
