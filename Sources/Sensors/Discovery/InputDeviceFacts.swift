import Evdev
import Motion

/// What an input accelerometer's description holds besides what every description
/// holds: where its event node sits, whether it is part of a game controller, its units
/// and their source, its gyroscope, its timestamps, its poller, and how much the kernel
/// keeps for a reader that is late. Pure.
package struct InputDeviceFacts: Sendable {
    /// N of `eventN`.
    package var eventNumber: Int
    package var inputSyspath: String?
    package var parentSyspath: String?
    /// The vendor and product, when known (the controller table's key).
    package var vendor: UInt16?
    package var product: UInt16?
    /// Built into the machine, or virtual, USB or Bluetooth (`auto` prefers built-in devices).
    package var placement: InputPlacement
    /// Why it is part of a game controller (a joystick beside it under the same parent);
    /// nil when it is not. `Sensor.device = auto` leaves such a node alone.
    package var controller: String?
    /// How the controller table says its axes lie, and where that is documented; nil
    /// when it has no entry (`ControllerAxes`).
    package var axesSource: String?
    /// Where the accelerometer's units come from (`InputUnits`), nil when it has none.
    package var unitsSource: String?
    /// The gyroscope on the same node: rad/s per count of ABS_RX/RY/RZ and its source.
    package var gyroScale: Vector3?
    package var gyroUnitsSource: String?
    /// It reports `MSC_TIMESTAMP` (the device's own sample times).
    package var timestamps: Bool
    /// The input poller's interval, where the kernel offers one.
    package var poller: InputPollInterval?
    /// The events the kernel keeps for each reader (`kernelBufferEvents`), and the most
    /// one report takes: past that, events are dropped (SYN_DROPPED).
    package var bufferEvents: Int
    package var eventsPerReport: Int

    /// The kernel's buffer for each reader of an evdev node, in events: room for 8
    /// packets of the events the input core estimates per packet (one per absolute and
    /// relative axis, plus 7 for keys and miscellaneous events), at least 64, rounded up
    /// to a power of two (drivers/input/evdev.c evdev_compute_buffer_size(),
    /// drivers/input/input.c input_estimate_events_per_packet()).
    package static func kernelBufferEvents(absoluteAxes: Int, relativeAxes: Int) -> Int {
        let wanted = max(8 * (absoluteAxes + relativeAxes + 7), 64)
        var n = 1
        while n < wanted { n <<= 1 }
        return n
    }
}
