import Motion

/// How a game controller's motion axes lie relative to a screen held like the controller,
/// by USB/Bluetooth vendor and product: the mount matrix (docs/TILT.md, "Mount matrix") for its
/// "Motion Sensors" node, with where the frame comes from.
///
/// The screen held like the controller: its face (buttons and sticks) is the screen, its
/// right is the screen's right, and the edge with the shoulder triggers, away from the
/// player, is the screen's top (held in both hands, a tablet lies so). The matrix turns
/// the controller's axes into that screen's (x right, y top, z out of the face) and takes
/// the sign convention of docs/TILT.md, "Axes and signs" too: a controller at rest reads +1 g up
/// (specific force), a screen reads the direction of gravity, so `M = -R` for the turn `R`,
/// and det(M) = -1 gives the gyroscope, read on the same node, the turn `R` itself
/// (docs/TILT.md, "With a gyroscope": det(M) * M). `Sensor.mount_matrix` and udev's
/// `ACCEL_MOUNT_MATRIX` win over the table.
package struct ControllerAxes: Sendable {
    package var vendor: UInt16
    package var product: UInt16
    package var model: String
    package var matrix: MountMatrix
    /// Where the controller's axes are documented.
    package var source: String

    /// `054c:0ce6`.
    package var key: String { Self.hex(vendor) + ":" + Self.hex(product) }

    package static func hex(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// Sony's: x right, y out of the face, z toward the player (the grips).
    private static let sony = MountMatrix(rows: [Vector3(-1, 0, 0), Vector3(0, 0, 1), Vector3(0, -1, 0)])!
    /// Nintendo's: x toward the triggers, y left, z out of the face.
    private static let nintendo = MountMatrix(rows: [Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, -1)])!

    private static let dualSense =
        "hid-playstation: dualsense_parse_report() reports the "
        + "IMU's gyro[0..2] (pitch, yaw, "
        + "roll in dualsense_get_calibration_data()) as ABS_RX/RY/RZ and accel[0..2] as ABS_X/Y/Z as the controller "
        + "measures them: x right, y up out of the face, z toward the player, +1 g up at rest (the frame SDL_sensor.h "
        + "documents for game controllers; SDL's HIDAPI PS5 driver passes the same axes through)"
    private static let dualShock4 =
        "hid-sony (dualshock4_parse_report(), "
        + "DS4_ACC_RES_PER_G, DS4_GYRO_RES_PER_DEG_S) and "
        + "hid-playstation since Linux 6.2 report the IMU's axes unchanged, as for the DualSense: x right, y up out of "
        + "the face, z toward the player (SDL_sensor.h; SDL's HIDAPI PS4 driver passes them through)"
    private static let switchPad =
        "hid-nintendo: joycon_parse_imu_report(): \"X: positive is pointing toward the "
        + "triggers, Y: positive is pointing to the left, Z: positive is pointing up (out of the buttons/sticks)\", "
        + "the right Joy-Con's Y and Z negated to match; a Joy-Con is held as on the console, rail down the side"

    package static let table: [ControllerAxes] = [
        ControllerAxes(vendor: 0x054c, product: 0x0ce6, model: "DualSense", matrix: sony, source: dualSense),
        ControllerAxes(vendor: 0x054c, product: 0x0df2, model: "DualSense Edge", matrix: sony, source: dualSense),
        ControllerAxes(vendor: 0x054c, product: 0x05c4, model: "DualShock 4", matrix: sony, source: dualShock4),
        ControllerAxes(
            vendor: 0x054c, product: 0x09cc, model: "DualShock 4 (second version)", matrix: sony, source: dualShock4),
        ControllerAxes(
            vendor: 0x054c, product: 0x0ba0, model: "DualShock 4 USB wireless adaptor", matrix: sony,
            source: dualShock4),
        ControllerAxes(vendor: 0x057e, product: 0x2006, model: "Joy-Con (L)", matrix: nintendo, source: switchPad),
        ControllerAxes(vendor: 0x057e, product: 0x2007, model: "Joy-Con (R)", matrix: nintendo, source: switchPad),
        ControllerAxes(vendor: 0x057e, product: 0x2009, model: "Pro Controller", matrix: nintendo, source: switchPad),
        ControllerAxes(
            vendor: 0x057e, product: 0x200e, model: "Joy-Con Charging Grip", matrix: nintendo, source: switchPad),
    ]

    /// The entry of a vendor and product, nil when the table has none.
    package static func entry(vendor: UInt16, product: UInt16) -> ControllerAxes? {
        table.first { $0.vendor == vendor && $0.product == product }
    }
}
