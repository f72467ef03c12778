import Evdev
import Motion

/// The units of an input accelerometer: m/s^2 per count of ABS_X, ABS_Y and ABS_Z, and for
/// a gyroscope on the same node rad/s per count of ABS_RX, ABS_RY and ABS_RZ, each with
/// where the number comes from.
///
/// Where the driver sets `INPUT_PROP_ACCELEROMETER`, `input_absinfo.resolution` is units
/// per g for ABS_X/Y/Z and units per degree per second for ABS_RX/RY/RZ (kernel
/// Documentation/input/event-codes.rst; include/uapi/linux/input.h, `struct
/// input_absinfo`). Drivers older than that property give resolution 0 and say their unit
/// only in their source: those are in `table`, by the input device's name. Pure.
package enum InputUnits {
    /// A driver whose input accelerometer gives no resolution.
    package struct Entry: Sendable {
        /// The input device's name, as the driver sets it.
        package var name: String
        /// Counts per g.
        package var countsPerG: Double
        /// Where the number comes from.
        package var source: String
    }

    package static let table: [Entry] = [
        // hp_accel (HP laptops) and the lis3lv02d SPI/I2C glue all register this device
        // through lis3lv02d_joystick_enable().
        Entry(
            name: "ST LIS3LV02DL Accelerometer", countsPerG: 1000,
            source: "lis3lv02d: milli-g (drivers/misc/lis3lv02d/lis3lv02d.c: lis3lv02d_get_xyz() scales every "
                + "reading by LIS3_SENSITIVITY_12B or _8B / LIS3_ACCURACY, \"1LSB is "
                + "1000/1024 mG\", \"18 mG / digit\")")
    ]

    /// m/s^2 per count of each accelerometer axis and where it comes from, or why there is
    /// none.
    package static func accelerometer(_ f: EvdevFacts) -> Result<(scale: Vector3, source: String), UnitsProblem> {
        let res = [AbsoluteAxis.x, .y, .z].map { f.axes[$0]?.resolution ?? 0 }
        if f.accelerometerProperty, res.allSatisfy({ $0 > 0 }) {
            let g = AttitudeConfiguration.standardGravity
            let text = res.allSatisfy { $0 == res[0] } ? "\(res[0])" : res.map { "\($0)" }.joined(separator: ", ")
            return .success(
                (
                    Vector3(g / Double(res[0]), g / Double(res[1]), g / Double(res[2])),
                    "evdev: resolution \(text) counts per g (INPUT_PROP_ACCELEROMETER)"
                ))
        }
        if let e = table.first(where: { $0.name == f.name }) {
            let s = AttitudeConfiguration.standardGravity / e.countsPerG
            return .success((Vector3(s, s, s), "table: \(e.source)"))
        }
        return .failure(
            UnitsProblem(
                description: f.accelerometerProperty
                    ? "ABS_X, ABS_Y and ABS_Z give resolution \(res.map { "\($0)" }.joined(separator: ", ")) "
                        + "(counts per g), and \"\(f.name)\" is not in shimmerd's table of input accelerometers' units"
                    : "no INPUT_PROP_ACCELEROMETER (so no resolution in counts per g), and \"\(f.name)\" is not in shimmerd's "
                        + "table of input accelerometers' units"))
    }

    /// rad/s per count of ABS_RX, ABS_RY and ABS_RZ and where it comes from; nil when the
    /// node has no gyroscope (no `INPUT_PROP_ACCELEROMETER`, or the three axes absent or
    /// without a resolution).
    package static func gyroscope(_ f: EvdevFacts) -> (scale: Vector3, source: String)? {
        let res = [AbsoluteAxis.rx, .ry, .rz].map { f.axes[$0]?.resolution ?? 0 }
        guard f.accelerometerProperty, res.allSatisfy({ $0 > 0 }) else { return nil }
        let rad = Double.pi / 180
        let text = res.allSatisfy { $0 == res[0] } ? "\(res[0])" : res.map { "\($0)" }.joined(separator: ", ")
        return (
            Vector3(rad / Double(res[0]), rad / Double(res[1]), rad / Double(res[2])),
            "evdev: resolution \(text) counts per degree per second (INPUT_PROP_ACCELEROMETER)"
        )
    }

    /// Why an input accelerometer's readings cannot be turned into m/s^2.
    package struct UnitsProblem: Error, Sendable, CustomStringConvertible {
        package var description: String
    }
}
