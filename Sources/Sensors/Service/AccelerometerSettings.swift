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
    /// `Sink.fps` of the frames these samples feed, when there are frames: buffer mode
    /// then lets the kernel gather the scans of one frame interval before it wakes the
    /// daemon (`scansPerWakeup`).
    package var framesPerSecond: Double?
    /// `Sensor.gyro`.
    package var gyro: GyroSelector
    /// `Sensor.gyro_mount_matrix`; nil = `auto` (the rule of docs/TILT.md, "With a gyroscope").
    package var gyroMountMatrix: MountMatrix?

    package init(
        device: DeviceSelector = .auto, mode: SensorMode = .auto, rateHz: Double = 60,
        mountMatrix: MountMatrix? = nil, invert: Bool = false, framesPerSecond: Double? = nil,
        gyro: GyroSelector = .auto, gyroMountMatrix: MountMatrix? = nil
    ) {
        self.gyro = gyro
        self.gyroMountMatrix = gyroMountMatrix
        self.device = device
        self.mode = mode
        self.rateHz = rateHz
        self.mountMatrix = mountMatrix
        self.invert = invert
        self.framesPerSecond = framesPerSecond
    }

    /// Scans per buffer wakeup for a device sampling at `deviceHz`: the fewest that
    /// still span a frame interval, `ceil(deviceHz / fps)`, so each wakeup can give a
    /// frame and frames never come faster than `Sink.fps`. 1 without a frame rate.
    package func scansPerWakeup(deviceHz: Double) -> Int {
        guard let fps = framesPerSecond, fps > 0, deviceHz.isFinite, deviceHz > 0 else { return 1 }
        return max(1, min(64, Int((deviceHz / fps - 1e-9).rounded(.up))))
    }

    /// The slowest rate asked of hardware: slow sensors block `_raw` reads for seconds
    /// below about 10 Hz (iio-sensor-proxy raises them the same way).
    package static let minimumHardwareRateHz = 10.0
}
