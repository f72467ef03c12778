import Motion

/// What buffer mode needs to know of an IIO device, whatever its channels: its scan
/// elements, its trigger, its node and the clock of its timestamps (kernel IIO ABI:
/// `scan_elements/`, `trigger/current_trigger`, `/dev/iio:deviceN`,
/// `current_timestamp_clock`). Accelerometers and gyroscopes both have it, read from the
/// same kind of `AttributeSnapshot`, so the buffer itself (`IIOScanBuffer`) and the
/// permission check (`BufferPermission`) serve both.
package protocol ScanBufferDescription: Sendable {
    var id: String { get }
    var name: String? { get }
    var displayName: String { get }
    /// Nil for a remote device.
    var syspath: String? { get }
    var devnode: String? { get }
    /// Every scan element of the device (accel, anglvel, temp, timestamp, ...), in index
    /// order: name (without `in_`), index, type text. Buffer mode enables them all, as the
    /// kernel lays them out (an inv_mpu6050: accel, temp, anglvel, timestamp, 24 bytes).
    var scanElements: [(name: String, index: Int, type: String)] { get }
    /// The trigger buffer mode would use: the current one, else `NAME-devN`, else
    /// `NAME-trigger`.
    var trigger: String? { get }
    var triggerIsCurrent: Bool { get }
    /// `current_timestamp_clock` (`realtime`, `monotonic`, ...): the clock of the scans'
    /// `timestamp` element; nil when the device does not say.
    var timestampClock: String? { get }
    /// `buffer/enable` reads 1: a buffer is running (someone else's, as shimmerd looks
    /// before it enables one).
    var bufferEnabled: Bool { get }
    /// The udev property `IIO_SENSOR_PROXY_TYPE` iio-sensor-proxy's rules put on every
    /// device it may read (`iio-poll-accel iio-buffer-accel`), nil without it.
    var sensorProxyType: String? { get }
}

extension ScanBufferDescription {
    /// The scan layout with every scan element enabled (what the buffered drivers enable).
    package var scanLayout: Result<ScanLayout, SensorError> {
        var channels: [(name: String, index: Int, type: ScanType)] = []
        for e in scanElements {
            switch ScanType.parse(e.type) {
            case .success(let t): channels.append((e.name, e.index, t))
            case .failure(let err):
                return .failure(SensorError(device: displayName, "scan_elements/in_\(e.name)_type: \(err)"))
            }
        }
        guard let l = ScanLayout(channels) else {
            return .failure(SensorError(device: displayName, "scan elements have duplicate indices"))
        }
        return .success(l)
    }
}

extension AttributeSnapshot {
    /// Every `scan_elements/in_NAME_index` with its `in_NAME_type`, in index order.
    func scanElements() -> [(name: String, index: Int, type: String)] {
        var elements: [(name: String, index: Int, type: String)] = []
        for key in attributes.keys where key.hasPrefix("scan_elements/in_") && key.hasSuffix("_index") {
            let name = String(key.dropFirst("scan_elements/in_".count).dropLast("_index".count))
            if let i = text(key).flatMap({ Int($0) }), let t = text("scan_elements/in_\(name)_type") {
                elements.append((name, i, t))
            }
        }
        return elements.sorted { ($0.index, $0.name) < ($1.index, $1.name) }
    }

    /// The trigger buffer mode would use and whether it is already current: the current
    /// one, else `NAME-devN` (the kernel's naming for most drivers, HID sensors
    /// included), else `NAME-trigger` (st_sensors).
    func bufferTrigger() -> (trigger: String?, isCurrent: Bool) {
        let name = text("name")
        if let current = text("trigger/current_trigger"), !current.isEmpty {
            return (current, true)
        } else if let n = name, triggerNames.contains("\(n)-dev\(index)") {
            return ("\(n)-dev\(index)", false)
        } else if let n = name, triggerNames.contains("\(n)-trigger") {
            return ("\(n)-trigger", false)
        }
        return (nil, false)
    }

    /// `buffer/enable` reads 1.
    var bufferEnabled: Bool { text("buffer/enable") == "1" }

    /// The udev property `IIO_SENSOR_PROXY_TYPE`, nil when absent or empty.
    var sensorProxyType: String? { udevProperties["IIO_SENSOR_PROXY_TYPE"].flatMap { $0.isEmpty ? nil : $0 } }

    /// `current_timestamp_clock`, nil when absent or empty.
    var timestampClock: String? { text("current_timestamp_clock").flatMap { $0.isEmpty ? nil : $0 } }
}
