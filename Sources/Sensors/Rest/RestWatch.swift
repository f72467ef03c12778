import Motion

/// What tells the daemon that a device lying still has moved again, chosen per device at
/// attach. Reading a still device every 0.1 s costs ten wakeups a second all day on a
/// laptop on a desk; where the device itself can say that it moved, the daemon sleeps
/// until it does. Pure: `choose` decides from the device's facts and the driver's mode.
///
/// - `events`: the device's own motion events (IIO events: bmc150's rate of change,
///   kxcjk-1013's wake-up threshold, the mma8452 family's magnitude, fxls8962af,
///   inv_mpu6050's wake-on-motion), enabled at rest (`events/in_accel_*_en`) and read from
///   its event stream (`IIO_GET_EVENT_FD_IOCTL`). A detector misses a creep below its
///   threshold, so a backstop read comes every `eventBackstop` seconds.
/// - `node`: an input device (lis3lv02d, a controller's motion sensors): the input core
///   passes only changes beyond an axis's fuzz (drivers/input/input.c,
///   input_defuzz_abs_event()), so its event node stays silent while the device is still
///   and is simply waited on.
/// - `hysteresis`: a HID sensor hub in buffer mode (`in_accel_hysteresis`): the hub's change
///   sensitivity is set so that it sends a scan only when an axis moved by it, and the
///   buffer's node is waited on. A hub that ignores it (more than
///   `HysteresisCompliance.maximumScansPerSecond` scans still arriving) falls back to `read`.
/// - `read`: everything else: a timed read every `Pipeline.idlePeriod`.
package enum RestWatch: String, Sendable, Equatable {
    case events
    case node
    case hysteresis
    case read

    /// The watch for `device` read in `mode` (`AccelerometerDriver.mode`), and why, in
    /// the words of the attach line and `shimmerd sensors`.
    package static func choose(_ device: AccelerometerDescription, mode: DriverMode) -> (watch: RestWatch, why: String)
    {
        if mode == .input {
            return (
                .node,
                "the input core passes only changes beyond the axes' fuzz: its "
                    + "event node is waited on at rest"
            )
        }
        if !device.motionEventEnables.isEmpty {
            return (
                .events,
                "its motion events (\(device.motionEventEnables.map { $0.dropFirst(7) }.joined(separator: ", "))) "
                    + "enabled at rest, its event stream waited on, a read every \(eventBackstop.plainText) s besides"
            )
        }
        if device.hysteresisWritable {
            guard mode == .buffer else {
                return (
                    .read,
                    "a HID hub's change sensitivity needs buffer mode (\(mode) mode reads on a "
                        + "timer): read every 0.1 s at rest"
                )
            }
            return (
                .hysteresis,
                "a HID sensor hub: in_accel_hysteresis set to "
                    + "\(HysteresisCompliance.valueText) g at rest, "
                    + "its buffer's node waited on"
            )
        }
        if let why = device.motionEventsRefused {
            return (.read, "motion events unusable (\(why)): read every 0.1 s at rest")
        }
        return (.read, "no motion report of its own: read every 0.1 s at rest")
    }

    /// Seconds between backstop reads at rest with `events`: a slow creep that no event
    /// reports is drawn within about this.
    package static let eventBackstop = 1.0

    /// Seconds between timed reads at rest while this watch stands: none but the backstop.
    package var backstop: Double { self == .events ? Self.eventBackstop : .infinity }
}

extension AccelerometerDescription {
    /// A HID sensor hub's accelerometer with a change sensitivity (`in_accel_hysteresis`,
    /// hid-sensor-accel-3d): the hub then sends a scan only when an axis moved by it.
    package var hysteresisWritable: Bool { restHysteresis != nil }
}
