import Motion

/// Where the accelerometer sits (udev `ACCEL_LOCATION`, sysfs `label`).
package enum AccelLocation: String, Hashable, Sendable {
    case display, base
}

/// Everything `shimmerd sensors` reports about one IIO device, and what the drivers
/// need to read it. Pure: built from an `AttributeSnapshot`.
package struct AccelerometerDescription: ScanBufferDescription {
    package var id: String
    package var index: Int
    package var syspath: String?
    package var devnode: String?
    package var name: String?
    package var label: String?
    package var location: AccelLocation
    /// `udev:ACCEL_LOCATION`, `sysfs:label`, `sysfs:location` or `default`.
    package var locationSource: String
    /// `accel_x`, `accel_y`, `accel_z` (those with `_raw` or a scan element).
    package var channels: [String]
    package var scale: Vector3
    package var scaleSources: [Axis: AxisValueSource]
    package var offset: Vector3
    package var offsetSources: [Axis: AxisValueSource]
    package var mountMatrix: MountMatrix
    /// `config:Sensor.mount_matrix`, `udev:ACCEL_MOUNT_MATRIX`, `sysfs:mount_matrix`,
    /// `sysfs:in_accel_mount_matrix`, `sysfs:in_mount_matrix` or `default:identity`.
    package var mountMatrixSource: String
    /// Sources that were present but malformed, each "source = "text": reason".
    package var mountMatrixProblems: [String]
    package var samplingFrequency: SamplingFrequencyInfo?
    /// All three `in_accel_*_raw` exist.
    package var pollCapable: Bool
    /// The raw attributes that exist but would not read (`AttributeSnapshot.unreadable`:
    /// refused while another program's buffer runs); empty when they read.
    package var unreadableRaws: [String]
    /// All three `scan_elements/in_accel_*_en` exist, with a device node (or remote).
    package var bufferCapable: Bool
    /// Every scan element, in index order (`ScanBufferDescription`).
    package var scanElements: [(name: String, index: Int, type: String)]
    package var trigger: String?
    package var triggerIsCurrent: Bool
    package var timestampClock: String?
    package var bufferEnabled: Bool
    package var sensorProxyType: String?
    package var udevProperties: [String: String]
    /// Why the device cannot be used at all (nil when usable).
    package var skipReason: String?

    package var isAccelerometer: Bool { !channels.isEmpty }
    package var isUsable: Bool { skipReason == nil }

    /// Sources in attitude.md section 2 order, after the configuration override.
    package static let mountMatrixAttributes = ["mount_matrix", "in_accel_mount_matrix", "in_mount_matrix"]

    /// Interprets a snapshot.
    /// - Parameter configuredMatrix: `Sensor.mount_matrix` when not `auto`; it wins.
    package init(snapshot s: AttributeSnapshot, configuredMatrix: MountMatrix?) {
        id = s.id
        index = s.index
        syspath = s.syspath
        devnode = s.devnode
        name = s.text("name")
        label = s.text("label").flatMap { $0.isEmpty ? nil : $0 }
        udevProperties = s.udevProperties

        // Location: udev ACCEL_LOCATION, then sysfs label, then sysfs location, else display.
        if let l = s.udevProperties["ACCEL_LOCATION"].flatMap({ AccelLocation(rawValue: $0) }) {
            (location, locationSource) = (l, "udev:ACCEL_LOCATION")
        } else if label == "accel-display" {
            (location, locationSource) = (.display, "sysfs:label")
        } else if label == "accel-base" {
            (location, locationSource) = (.base, "sysfs:label")
        } else if let l = s.text("location").flatMap({ AccelLocation(rawValue: $0) }) {
            (location, locationSource) = (l, "sysfs:location")
        } else {
            (location, locationSource) = (.display, "default")
        }

        let axes = ["x", "y", "z"]
        let raws = axes.filter { s.attributes["in_accel_\($0)_raw"] != nil }
        let scans = axes.filter { s.attributes["scan_elements/in_accel_\($0)_en"] != nil }
        channels = axes.filter { raws.contains($0) || scans.contains($0) }.map { "accel_\($0)" }
        pollCapable = raws.count == 3
        unreadableRaws = axes.map { "in_accel_\($0)_raw" }.filter { s.unreadable.contains($0) }
        scanElements = s.scanElements()
        bufferCapable = scans.count == 3 && (s.devnode != nil || s.syspath == nil)
        (trigger, triggerIsCurrent) = s.bufferTrigger()
        timestampClock = s.timestampClock
        bufferEnabled = s.bufferEnabled
        sensorProxyType = s.sensorProxyType

        samplingFrequency = SamplingFrequencyInfo(snapshot: s)

        // Mount matrix: config > udev > sysfs names > identity; malformed sources are
        // reported and skipped.
        var problems: [String] = []
        var chosen: (MountMatrix, String)?
        if let configuredMatrix { chosen = (configuredMatrix, "config:Sensor.mount_matrix") }
        var candidates: [(String, String?)] = [("udev:ACCEL_MOUNT_MATRIX", s.udevProperties["ACCEL_MOUNT_MATRIX"])]
        candidates += Self.mountMatrixAttributes.map { ("sysfs:\($0)", s.attributes[$0]) }
        for (source, text) in candidates where chosen == nil {
            guard let text else { continue }
            switch MountMatrix.parse(text) {
            case .success(let m): chosen = (m, source)
            case .failure(let e):
                problems.append("\(source) = \"\(String(text[...].trimmingASCIIWhitespace()))\": \(e)")
            }
        }
        (mountMatrix, mountMatrixSource) = chosen ?? (.identity, "default:identity")
        mountMatrixProblems = problems

        // Scale (required) and offset (default 0), per-axis over shared.
        var skip: String?
        switch AxisValueResolver.resolve(kind: "scale", defaultValue: nil, lookup: { s.attributes[$0] }) {
        case .success(let r?):
            (scale, scaleSources) = r
            if !(scale.x > 0 && scale.y > 0 && scale.z > 0) {
                skip = "scale \(scale) is not positive"
            }
        case .success(nil):
            (scale, scaleSources) = (Vector3(1, 1, 1), [:])
            skip = "no in_accel_scale or in_accel_[xyz]_scale attribute"
        case .failure(let f):
            (scale, scaleSources) = (Vector3(1, 1, 1), [:])
            skip = "bad scale: \(f)"
        }
        switch AxisValueResolver.resolve(kind: "offset", defaultValue: 0, lookup: { s.attributes[$0] }) {
        case .success(let r?): (offset, offsetSources) = r
        case .success(nil): (offset, offsetSources) = (.zero, [:])
        case .failure(let f):
            (offset, offsetSources) = (.zero, [:])
            skip = skip ?? "bad offset: \(f)"
        }
        if channels.isEmpty {
            skip = "no accelerometer channels (in_accel_[xyz]_raw or scan_elements/in_accel_[xyz]_en)"
        } else if !pollCapable && !bufferCapable {
            skip = "accelerometer channels incomplete: \(channels.joined(separator: ", "))"
        }
        skipReason = skip
    }

    /// The calibration the attitude uses.
    package func calibration(invert: Bool) -> AccelCalibration {
        AccelCalibration(scale: scale, offset: offset, mountMatrix: mountMatrix, invert: invert)
    }

    package var displayName: String {
        var s = id
        if let name { s += " (\(name))" }
        return s
    }
}
