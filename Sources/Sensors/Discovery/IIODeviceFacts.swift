import Motion

/// What every IIO device description holds, whatever its channels: where it is, what it
/// is called, and what buffer mode needs (`ScanBufferDescription`). Pure: built from an
/// `AttributeSnapshot`, once for an accelerometer and once for a gyroscope of the same
/// device (a combined IMU is both).
package struct IIODeviceFacts: Sendable {
    package var id: String
    package var index: Int
    package var syspath: String?
    package var devnode: String?
    package var name: String?
    package var label: String?
    package var scanElements: [(name: String, index: Int, type: String)]
    package var trigger: String?
    package var triggerIsCurrent: Bool
    package var timestampClock: String?
    package var bufferEnabled: Bool
    package var sensorProxyType: String?

    package init(snapshot s: AttributeSnapshot) {
        id = s.id
        index = s.index
        syspath = s.syspath
        devnode = s.devnode
        name = s.text("name")
        label = s.text("label").flatMap { $0.isEmpty ? nil : $0 }
        scanElements = s.scanElements()
        (trigger, triggerIsCurrent) = s.bufferTrigger()
        timestampClock = s.timestampClock
        bufferEnabled = s.bufferEnabled
        sensorProxyType = s.sensorProxyType
    }
}

/// The three axes of one channel type of a device (`accel`, `anglvel`): which exist, how
/// they can be read, their scale and offset (per axis over shared, kernel IIO ABI), and
/// what is wrong with those values. Pure.
package struct AxisChannels: Sendable {
    /// e.g. `accel_x`, `accel_y`, `accel_z`: those with `_raw` or a scan element.
    package var channels: [String]
    /// All three `in_<channel>_*_raw` exist.
    package var pollCapable: Bool
    /// The raw attributes that exist but would not read (`AttributeSnapshot.unreadable`:
    /// refused while another program's buffer runs); empty when they read.
    package var unreadableRaws: [String]
    /// All three `scan_elements/in_<channel>_*_en` exist, with a device node (or remote).
    package var bufferCapable: Bool
    package var scale: Vector3
    package var scaleSources: [Axis: AxisValueSource]
    package var offset: Vector3
    package var offsetSources: [Axis: AxisValueSource]
    /// Why the scale or offset is unusable (nil when both are).
    package var valueProblem: String?

    package init(snapshot s: AttributeSnapshot, channel: String) {
        let axes = ["x", "y", "z"]
        let raws = axes.filter { s.attributes["in_\(channel)_\($0)_raw"] != nil }
        let scans = axes.filter { s.attributes["scan_elements/in_\(channel)_\($0)_en"] != nil }
        channels = axes.filter { raws.contains($0) || scans.contains($0) }.map { "\(channel)_\($0)" }
        pollCapable = raws.count == 3
        unreadableRaws = axes.map { "in_\(channel)_\($0)_raw" }.filter { s.unreadable.contains($0) }
        bufferCapable = scans.count == 3 && (s.devnode != nil || s.syspath == nil)

        var problem: String?
        switch AxisValueResolver.resolve(
            channel: channel, kind: "scale", defaultValue: nil, lookup: { s.attributes[$0] })
        {
        case .success(let r?):
            (scale, scaleSources) = r
            if !(scale.x > 0 && scale.y > 0 && scale.z > 0) { problem = "scale \(scale) is not positive" }
        case .success(nil):
            (scale, scaleSources) = (Vector3(1, 1, 1), [:])
            problem = "no in_\(channel)_scale or in_\(channel)_[xyz]_scale attribute"
        case .failure(let f):
            (scale, scaleSources) = (Vector3(1, 1, 1), [:])
            problem = "bad scale: \(f)"
        }
        switch AxisValueResolver.resolve(
            channel: channel, kind: "offset", defaultValue: 0, lookup: { s.attributes[$0] })
        {
        case .success(let r?): (offset, offsetSources) = r
        case .success(nil): (offset, offsetSources) = (.zero, [:])
        case .failure(let f):
            (offset, offsetSources) = (.zero, [:])
            problem = problem ?? "bad offset: \(f)"
        }
        valueProblem = problem
    }
}

/// A description of an IIO device's channels: its device facts and its axes, each
/// named once (`IIODeviceFacts`, `AxisChannels`) and read through these members.
package protocol IIODeviceDescription: ScanBufferDescription {
    var facts: IIODeviceFacts { get }
    var axes: AxisChannels { get }
}

extension IIODeviceDescription {
    package var id: String { facts.id }
    package var index: Int { facts.index }
    package var syspath: String? { facts.syspath }
    package var devnode: String? { facts.devnode }
    package var name: String? { facts.name }
    package var label: String? { facts.label }
    package var scanElements: [(name: String, index: Int, type: String)] { facts.scanElements }
    package var trigger: String? { facts.trigger }
    package var triggerIsCurrent: Bool { facts.triggerIsCurrent }
    package var timestampClock: String? { facts.timestampClock }
    package var bufferEnabled: Bool { facts.bufferEnabled }
    package var sensorProxyType: String? { facts.sensorProxyType }

    package var channels: [String] { axes.channels }
    package var pollCapable: Bool { axes.pollCapable }
    package var unreadableRaws: [String] { axes.unreadableRaws }
    package var bufferCapable: Bool { axes.bufferCapable }
    package var scale: Vector3 { axes.scale }
    package var scaleSources: [Axis: AxisValueSource] { axes.scaleSources }
    package var offset: Vector3 { axes.offset }
    package var offsetSources: [Axis: AxisValueSource] { axes.offsetSources }

    /// `iio:device3 (bmc150_accel)`.
    package var displayName: String {
        var s = id
        if let name { s += " (\(name))" }
        return s
    }
}
