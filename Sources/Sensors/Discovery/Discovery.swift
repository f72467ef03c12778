import IIO
import LinuxSystem
import Motion
import Udev

/// Finds IIO devices and describes them: through libudev for this machine (udev
/// properties included), through libiio for a remote context.
package enum Discovery {
    /// Every device of the `iio` subsystem (triggers excepted), in index order.
    package static func local(udev: UdevContext, configuredMatrix: MountMatrix?) throws(SensorError)
        -> [AccelerometerDescription]
    {
        try localSnapshots(udev: udev).map {
            AccelerometerDescription(snapshot: $0, configuredMatrix: configuredMatrix)
        }
    }

    /// The snapshot of every `iio:deviceN` of this machine, in index order.
    package static func localSnapshots(udev: UdevContext) throws(SensorError) -> [AttributeSnapshot] {
        let all: [UdevDevice]
        do { all = try udev.devices(subsystem: "iio") } catch { throw SensorError(device: "udev", "\(error)") }
        let triggers = all.filter { $0.sysname.hasPrefix("trigger") }.compactMap { $0.sysattr("name") }
        return all.compactMap { snapshot(of: $0, triggerNames: triggers) }.sorted { $0.index < $1.index }
    }

    /// Every gyroscope among `snapshots` (docs/TILT.md, "With a gyroscope").
    package static func gyroscopes(_ snapshots: [AttributeSnapshot]) -> [GyroscopeDescription] {
        snapshots.compactMap(GyroscopeDescription.init(snapshot:))
    }

    /// The snapshot of one udev device, nil unless it is an `iio:deviceN`.
    package static func snapshot(of d: UdevDevice, triggerNames: [String]) -> AttributeSnapshot? {
        let sysname = d.sysname
        guard sysname.hasPrefix("iio:device"), let index = Int(sysname.dropFirst("iio:device".count)) else {
            return nil
        }
        var attributes: [String: String] = [:]
        var unreadable: Set<String> = []
        let listed = Set(d.sysattrNames)
        // Every scan element, whatever its channel (temperature, steps, ...): buffer mode
        // enables them all, so the scan layout must hold them all.
        let scanFiles = ((try? FileSystem.list(d.syspath + "/scan_elements")) ?? []).map { "scan_elements/" + $0 }
        let eventFiles = ((try? FileSystem.list(d.syspath + "/events")) ?? []).map { "events/" + $0 }
        for name in listed.union(AttributeSnapshot.interestingAttributes).union(scanFiles).union(eventFiles) {
            if let v = d.sysattr(name) {
                attributes[name] = v
            } else if listed.contains(name) {
                unreadable.insert(name)
            }
        }
        var s = AttributeSnapshot(
            id: sysname, index: index, syspath: d.syspath, devnode: d.devnode,
            attributes: attributes, udevProperties: d.properties, triggerNames: triggerNames)
        s.unreadable = unreadable
        return s
    }

    /// Every device of a libiio context, described from libiio's attributes mapped back
    /// to their sysfs file names (`iio_channel_attr_get_filename()`).
    package static func remote(context: Context, configuredMatrix: MountMatrix?) -> [AccelerometerDescription] {
        remoteSnapshots(context: context).map {
            AccelerometerDescription(snapshot: $0, configuredMatrix: configuredMatrix)
        }
    }

    /// The snapshot of every device of a libiio context, in index order.
    package static func remoteSnapshots(context: Context) -> [AttributeSnapshot] {
        let devices = context.devices
        let triggers = devices.filter(\.isTrigger).compactMap(\.name)
        return devices.filter { !$0.isTrigger }.compactMap { d -> AttributeSnapshot? in
            guard d.id.hasPrefix("iio:device"), let index = Int(d.id.dropFirst("iio:device".count)) else { return nil }
            return snapshot(of: d, index: index, triggerNames: triggers)
        }.sorted { $0.index < $1.index }
    }

    static func snapshot(of d: Device, index: Int, triggerNames: [String]) -> AttributeSnapshot {
        var attributes: [String: String] = [:]
        if let n = d.name { attributes["name"] = n }
        if let l = d.label { attributes["label"] = l }
        for a in d.attributeNames {
            if let v = try? d.readAttribute(a) { attributes[a] = v }
        }
        for a in d.bufferAttributeNames {
            if let v = try? d.readBufferAttribute(a) { attributes["buffer/\(a)"] = v }
        }
        if let t = try? d.trigger(), let n = t.name { attributes["trigger/current_trigger"] = n }
        for c in d.channels where !c.isOutput {
            for a in c.attributeNames {
                guard let file = c.fileName(ofAttribute: a), attributes[file] == nil else { continue }
                if let v = try? c.readAttribute(a) { attributes[file] = v }
            }
            if c.isScanElement, let i = c.index {
                let f = c.dataFormat
                let base = "scan_elements/in_\(c.id)"
                attributes["\(base)_en"] = c.isEnabled ? "1" : "0"
                attributes["\(base)_index"] = String(i)
                attributes["\(base)_type"] =
                    "\(f.isBigEndian ? "be" : "le"):\(f.isSigned ? "s" : "u")\(f.bits)/\(f.length)"
                    + (f.repeatCount > 1 ? "X\(f.repeatCount)" : "") + ">>\(f.shift)"
            }
        }
        return AttributeSnapshot(
            id: d.id, index: index, syspath: nil, devnode: nil, attributes: attributes,
            udevProperties: [:], triggerNames: triggerNames)
    }
}
