/// Whether another reader may be using a device, so that shimmerd must leave its buffer
/// alone (its enable, scan elements, length, watermark and trigger) and must not lower
/// its sampling frequency.
///
/// The other reader is iio-sensor-proxy, which every GNOME, KDE and Phosh install has
/// to rotate the screen. Its udev rules (80-iio-sensor-proxy.rules) tag every device it
/// may read with `IIO_SENSOR_PROXY_TYPE` and start it through udev; it serves its
/// clients over the system bus, so a tagged device on a machine with a system bus is one
/// it may read at any time: with a HID sensor hub it enables the buffer itself (a second
/// open of the node fails with EBUSY, whoever comes second loses); with an I2C
/// accelerometer (bmc150, kxcjk-1013, st_sensors, mxc4005) it polls `in_accel_*_raw`,
/// which those drivers refuse with EBUSY while the buffer is enabled. Any program may
/// also have enabled a buffer: a buffer already enabled is someone else's.
///
/// Pure: the caller says what it found.
package enum BufferSharing {
    /// The name iio-sensor-proxy owns on the system bus.
    package static let sensorProxyBusName = "net.hadess.SensorProxy"

    /// What is known of iio-sensor-proxy on the system bus.
    package enum SensorProxy: Equatable, Sendable {
        /// No system bus could be reached at start: iio-sensor-proxy, which serves only
        /// over it, cannot be running.
        case noBus
        /// Connected; whether `net.hadess.SensorProxy` has an owner, nil until the bus
        /// has answered.
        case bus(running: Bool?)
        /// The bus went away and is not back yet: iio-sensor-proxy may be running.
        case disconnected
    }

    /// Nil when shimmerd may use the buffer of `d`; else why not, for the log line.
    package static func reason(_ d: some ScanBufferDescription, sensorProxy: SensorProxy) -> String? {
        if d.bufferEnabled {
            return "its buffer is already enabled by another program (buffer/enable = 1)"
        }
        return reason(sensorProxyType: d.sensorProxyType, sensorProxy: sensorProxy)
    }

    /// The part of `reason` that does not look at the buffer itself: whether
    /// iio-sensor-proxy may read a device tagged `sensorProxyType`.
    package static func reason(sensorProxyType: String?, sensorProxy: SensorProxy) -> String? {
        if let type = sensorProxyType, sensorProxy != .noBus {
            let state =
                switch sensorProxy {
                case .bus(running: true): "running"
                case .bus(running: false): "not running now, but may start at any time"
                case .disconnected: "not known: the connection to the bus was lost"
                default: "not known yet"
                }
            return "iio-sensor-proxy may read it (udev IIO_SENSOR_PROXY_TYPE = \(type); "
                + "\(sensorProxyBusName) on the system bus: \(state))"
        }
        return nil
    }

    /// Why a buffer whose device node would not open (EBUSY) is left alone: the kernel
    /// lets one program at a time open an IIO device node, and another has it (whoever
    /// opens second loses; iio-sensor-proxy holds a HID hub's node while a client wants
    /// rotation).
    package static func nodeHeldReason(devnode: String) -> String {
        "its device node \(devnode) is open in another program, which reads the device (EBUSY on open)"
    }

    /// The sampling frequency to write where another reader may be reading: only a
    /// higher one (a lower one would slow the other reader down); nil to leave it.
    package static func sharedTarget(_ info: SamplingFrequencyInfo, rateHz: Double) -> Double? {
        guard let target = info.target(forRate: rateHz) else { return nil }
        if let current = info.currentHz, target < current { return nil }
        return target
    }
}
