import Motion
import Sensors

/// What `shimmerd sensors` says of an input accelerometer besides what it says of every
/// device: its input device, vendor and product, whether it is built in, virtual, USB
/// or Bluetooth (auto prefers built-in ones), whether it is part of a game controller
/// (and so left alone by `auto`), its units and their source, its gyroscope, its
/// timestamps and its poller.
extension SensorReport {
    func inputJSON(_ i: InputDeviceFacts) -> SensorJSON {
        .object([
            ("event", .int(i.eventNumber)),
            ("input_syspath", .optional(i.inputSyspath)),
            ("parent", .optional(i.parentSyspath)),
            ("built_in", .bool(i.placement.builtIn)),
            ("placement", .string(i.placement.description)),
            ("vendor_product", .optional(Self.vendorProduct(i))),
            ("game_controller", .optional(i.controller)),
            ("controller_axes", .optional(i.axesSource)),
            ("units_source", .optional(i.unitsSource)),
            ("gyro_scale", i.gyroScale.map(SensorJSON.vector) ?? .null),
            ("gyro_units_source", .optional(i.gyroUnitsSource)),
            ("timestamps", .string(i.timestamps ? "MSC_TIMESTAMP" : "event times")),
            ("poll_interval_ms", i.poller.map { .int($0.currentMs) } ?? .null),
            ("kernel_buffer_events", .int(i.bufferEvents)),
        ])
    }

    func inputLines(_ i: InputDeviceFacts) -> [String] {
        var out = [
            "    input device: \(i.inputSyspath ?? "?")"
                + (Self.vendorProduct(i).map { ", vendor:product \($0)" } ?? ""),
            "    placement: \(i.placement)" + (i.placement.builtIn ? "" : " (auto prefers a built-in device)"),
        ]
        if let why = i.controller { out.append("    game controller: \(why)") }
        if let axes = i.axesSource { out.append("    controller axes: \(axes)") }
        out.append("    units: \(i.unitsSource ?? "none")")
        if let g = i.gyroScale {
            out.append(
                "    gyroscope: ABS_RX ABS_RY ABS_RZ, \(g.x) \(g.y) \(g.z) rad/s per "
                    + "count (\(i.gyroUnitsSource ?? ""))")
        }
        out.append(
            "    sample times: \(i.timestamps ? "MSC_TIMESTAMP (the device's own)" : "the events' own")"
                + (i.poller.map { "; poll interval: \($0.currentMs) ms (Sensor.rate sets it)" } ?? ""))
        return out
    }

    static func vendorProduct(_ i: InputDeviceFacts) -> String? {
        guard let v = i.vendor, let p = i.product else { return nil }
        return ControllerAxes.hex(v) + ":" + ControllerAxes.hex(p)
    }
}
