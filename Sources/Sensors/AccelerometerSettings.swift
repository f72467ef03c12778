import Motion

/// `Sensor.mode`.
package enum SensorMode: String, Hashable, Sendable, CaseIterable {
    case auto, poll, buffer
}

/// The `[Sensor]` section, already validated by the configuration layer.
package struct AccelerometerSettings: Hashable, Sendable {
    package var device: DeviceSelector
    package var mode: SensorMode
    /// `Sensor.rate`, samples per second wanted.
    package var rateHz: Double
    /// `Sensor.mount_matrix`; nil = `auto` (discover it).
    package var mountMatrix: MountMatrix?
    /// `Sensor.invert`.
    package var invert: Bool

    package init(device: DeviceSelector = .auto, mode: SensorMode = .auto, rateHz: Double = 60,
                 mountMatrix: MountMatrix? = nil, invert: Bool = false) {
        self.device = device
        self.mode = mode
        self.rateHz = rateHz
        self.mountMatrix = mountMatrix
        self.invert = invert
    }

    /// The slowest rate asked of hardware: slow sensors block `_raw` reads for seconds
    /// below about 10 Hz (iio-sensor-proxy raises them the same way).
    package static let minimumHardwareRateHz = 10.0
}
