// Udev: a typed wrapper of libudev (`libudev.h`, imported as CUdev).
//
// Purpose: enumerate devices of a subsystem (iio), read their udev properties (hwdb's
// ACCEL_MOUNT_MATRIX, ACCEL_LOCATION) and sysfs attributes, and watch hotplug events
// through a monitor whose file descriptor the caller polls.
// Invariants: each owned libudev object is a `final class` that unrefs it in `deinit`;
// a device keeps its `UdevContext` alive. Failures are `UdevError` with the operation.
// Not thread-safe (libudev is not): use from one thread.
// Must not import: Motion, IIO, Sensors or anything above layer 1a.
import CUdev
import Glibc

/// A failed libudev call: the function, what it was applied to, and errno.
package struct UdevError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let target: String
    package let code: Int32

    package var description: String {
        "\(operation)(\(target)): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// The one place that turns libudev's conventions (NULL + errno, or a negative errno)
/// into `UdevError`.
enum UdevCall {
    static func pointer<P>(
        _ operation: String, _ target: @autoclosure () -> String,
        _ body: () -> P?
    ) throws(UdevError) -> P {
        errno = 0
        if let p = body() { return p }
        throw UdevError(operation: operation, target: target(), code: errno == 0 ? ENOENT : errno)
    }

    static func check(_ operation: String, _ target: @autoclosure () -> String, _ body: () -> Int32) throws(UdevError) {
        while true {
            let r = body()
            if r >= 0 { return }
            if -r == EINTR { continue }
            throw UdevError(operation: operation, target: target(), code: -r)
        }
    }

    static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    /// Walks a `udev_list_entry` list: (name, value).
    static func list(_ first: OpaquePointer?) -> [(String, String?)] {
        var out: [(String, String?)] = []
        var e = first
        while let entry = e {
            if let n = udev_list_entry_get_name(entry) {
                out.append((String(cString: n), string(udev_list_entry_get_value(entry))))
            }
            e = udev_list_entry_get_next(entry)
        }
        return out
    }
}

/// The libudev library context (`struct udev`).
package final class UdevContext {
    let raw: OpaquePointer

    /// `udev_new()`.
    package init() throws(UdevError) {
        raw = try UdevCall.pointer("udev_new", "") { udev_new() }
    }

    deinit { udev_unref(raw) }

    /// `udev_enumerate_new()`, `udev_enumerate_add_match_subsystem()`,
    /// `udev_enumerate_scan_devices()`: the devices of `subsystem`, sorted by syspath.
    package func devices(subsystem: String) throws(UdevError) -> [UdevDevice] {
        let e = try UdevCall.pointer("udev_enumerate_new", subsystem) { udev_enumerate_new(raw) }
        defer { udev_enumerate_unref(e) }
        try UdevCall.check("udev_enumerate_add_match_subsystem", subsystem) {
            udev_enumerate_add_match_subsystem(e, subsystem)
        }
        try UdevCall.check("udev_enumerate_scan_devices", subsystem) { udev_enumerate_scan_devices(e) }
        return UdevCall.list(udev_enumerate_get_list_entry(e)).compactMap { (path, _) in
            try? UdevDevice(context: self, syspath: path)
        }
    }

    /// `udev_device_new_from_syspath()`.
    package func device(syspath: String) throws(UdevError) -> UdevDevice {
        try UdevDevice(context: self, syspath: syspath)
    }
}

/// A device (`struct udev_device`).
package final class UdevDevice {
    package let context: UdevContext
    let raw: OpaquePointer

    init(context: UdevContext, syspath: String) throws(UdevError) {
        self.context = context
        raw = try UdevCall.pointer("udev_device_new_from_syspath", syspath) {
            udev_device_new_from_syspath(context.raw, syspath)
        }
    }

    init(context: UdevContext, owned: OpaquePointer) {
        self.context = context
        raw = owned
    }

    deinit { udev_device_unref(raw) }

    /// `udev_device_get_syspath()`.
    package var syspath: String { UdevCall.string(udev_device_get_syspath(raw)) ?? "" }
    /// `udev_device_get_sysname()`: `iio:device0`.
    package var sysname: String { UdevCall.string(udev_device_get_sysname(raw)) ?? "" }
    /// `udev_device_get_sysnum()`: the trailing number of the sysname.
    package var sysnum: Int? { UdevCall.string(udev_device_get_sysnum(raw)).flatMap { Int($0) } }
    /// `udev_device_get_subsystem()`.
    package var subsystem: String? { UdevCall.string(udev_device_get_subsystem(raw)) }
    /// `udev_device_get_devtype()`: `iio_device` for IIO devices (not triggers).
    package var devtype: String? { UdevCall.string(udev_device_get_devtype(raw)) }
    /// `udev_device_get_devnode()`: `/dev/iio:device0`.
    package var devnode: String? { UdevCall.string(udev_device_get_devnode(raw)) }
    /// `udev_device_get_action()`: `add`, `remove`, `change`... for monitor events.
    package var action: String? { UdevCall.string(udev_device_get_action(raw)) }

    /// `udev_device_get_property_value()`.
    package func property(_ key: String) -> String? {
        UdevCall.string(udev_device_get_property_value(raw, key))
    }

    /// `udev_device_get_properties_list_entry()`.
    package var properties: [String: String] {
        var out: [String: String] = [:]
        for (k, v) in UdevCall.list(udev_device_get_properties_list_entry(raw)) { out[k] = v ?? "" }
        return out
    }

    /// `udev_device_get_sysattr_value()`: the text of a sysfs attribute, relative paths
    /// such as `scan_elements/in_accel_x_type` included. Nil when absent or unreadable.
    /// The text is as the kernel wrote it, trailing newline removed by libudev.
    package func sysattr(_ name: String) -> String? {
        UdevCall.string(udev_device_get_sysattr_value(raw, name))
    }

    /// `udev_device_set_sysattr_value()`.
    package func setSysattr(_ name: String, _ value: String) throws(UdevError) {
        try UdevCall.check("udev_device_set_sysattr_value", "\(syspath)/\(name)") {
            value.withCString { udev_device_set_sysattr_value(raw, name, UnsafeMutablePointer(mutating: $0)) }
        }
    }

    /// `udev_device_get_sysattr_list_entry()`: names of the attributes in the device's
    /// own directory (not subdirectories).
    package var sysattrNames: [String] {
        UdevCall.list(udev_device_get_sysattr_list_entry(raw)).map(\.0)
    }

    /// `udev_device_get_parent()` (owned by this device; kept alive through it).
    package var parentSyspath: String? {
        udev_device_get_parent(raw).flatMap { UdevCall.string(udev_device_get_syspath($0)) }
    }
}

/// A hotplug monitor (`struct udev_monitor`) on the `udev` netlink group, filtered to
/// subsystems. Poll `fileDescriptor` for readability, then call `receive()`.
package final class UdevMonitor {
    package let context: UdevContext
    let raw: OpaquePointer

    /// `udev_monitor_new_from_netlink(udev, "udev")`,
    /// `udev_monitor_filter_add_match_subsystem_devtype()`, `udev_monitor_enable_receiving()`.
    package convenience init(context: UdevContext, subsystem: String) throws(UdevError) {
        try self.init(context: context, subsystems: [subsystem])
    }

    /// The same, for the events of any of `subsystems` (one filter each).
    package init(context: UdevContext, subsystems: [String]) throws(UdevError) {
        self.context = context
        raw = try UdevCall.pointer("udev_monitor_new_from_netlink", "udev") {
            udev_monitor_new_from_netlink(context.raw, "udev")
        }
        for subsystem in subsystems {
            try UdevCall.check("udev_monitor_filter_add_match_subsystem_devtype", subsystem) {
                udev_monitor_filter_add_match_subsystem_devtype(raw, subsystem, nil)
            }
        }
        let all = subsystems.joined(separator: ",")
        try UdevCall.check("udev_monitor_enable_receiving", all) { udev_monitor_enable_receiving(raw) }
    }

    deinit { udev_monitor_unref(raw) }

    /// `udev_monitor_get_fd()`: non-blocking, readable when events wait.
    package var fileDescriptor: Int32 { udev_monitor_get_fd(raw) }

    /// `udev_monitor_receive_device()`: the next event, nil when none is pending.
    package func receive() -> UdevDevice? {
        udev_monitor_receive_device(raw).map { UdevDevice(context: context, owned: $0) }
    }
}
