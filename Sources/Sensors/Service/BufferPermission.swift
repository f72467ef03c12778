import LinuxSystem

/// Whether this process may run a device's buffer (an unprivileged service often cannot
/// enable buffers): the same rules for an accelerometer and for a gyroscope in a device
/// of its own.
package enum BufferPermission {
    /// Nil when buffer mode can work; else why not.
    package static func problem(_ d: AccelerometerDescription, local: Bool) -> String? {
        guard d.bufferCapable else {
            return d.channels.isEmpty
                ? "no accelerometer channels" : "no scan_elements for accel x, y and z (poll only)"
        }
        return problem(scanning: d, local: local)
    }

    /// Nil when the gyroscope's own buffer can be used; else why not.
    static func problem(_ g: GyroscopeDescription, local: Bool) -> String? {
        guard g.bufferCapable else { return "no scan_elements for anglvel x, y and z (poll only)" }
        return problem(scanning: g, local: local)
    }

    /// A trigger, a scan layout that decodes, and (local devices) every file buffer mode
    /// writes writable and the node readable.
    private static func problem(scanning d: some ScanBufferDescription, local: Bool) -> String? {
        guard d.trigger != nil else { return "no trigger for \(d.name ?? d.id) (buffer mode needs one)" }
        if case .failure(let e) = d.scanLayout { return "\(e.message)" }
        guard local, let p = d.syspath else { return nil }
        var files = ["buffer/enable"] + d.scanElements.map { "scan_elements/in_\($0.name)_en" }
        if !d.triggerIsCurrent { files.append("trigger/current_trigger") }
        for f in files where !SysfsAttributeFile.isWritable("\(p)/\(f)") {
            return "\(f) \(notWritable)"
        }
        if let n = d.devnode, !SysfsAttributeFile.isReadable(n) { return "\(n) \(notReadable)" }
        return nil
    }

    private static let notWritable = "is not writable by this process"
    private static let notReadable = "is not readable by this process"

    /// Whether `why` (a mode reason) is a permission this process lacked, which udev may
    /// grant later, rather than something about the device.
    static func isPermission(_ why: String) -> Bool {
        why.hasSuffix(notWritable) || why.hasSuffix(notReadable)
    }
}
