/// Where an input device sits: built into the machine, or attached from outside or made by
/// software. `Sensor.device = auto` takes a built-in input accelerometer (lis3lv02d on a
/// laptop's platform bus) before any other, whatever their event numbers: a virtual
/// device any program with /dev/uinput can create, or a USB or Bluetooth device someone
/// plugged in, must not steer the card in its place. Pure.
package struct InputPlacement: Hashable, Sendable, CustomStringConvertible {
    /// Built into the machine.
    package var builtIn: Bool
    /// What it is and why it is called so: "virtual (/sys/devices/virtual/input/input3)",
    /// "built in (BUS_HOST, /sys/devices/platform/lis3lv02d/input/input6)".
    package var description: String

    /// linux/input.h's bus types (`struct input_id`'s `bustype`) that attach a device from
    /// outside the machine, or from no hardware at all.
    static let outsideBuses: [UInt16: String] = [0x03: "USB", 0x05: "Bluetooth", 0x06: "virtual"]
    /// Names of the buses built-in devices sit on, for the line.
    static let busNames: [UInt16: String] = [
        0x01: "BUS_PCI", 0x03: "BUS_USB", 0x05: "BUS_BLUETOOTH", 0x06: "BUS_VIRTUAL", 0x10: "BUS_ISA",
        0x11: "BUS_I8042", 0x18: "BUS_I2C", 0x19: "BUS_HOST", 0x1C: "BUS_SPI", 0x1E: "BUS_INTEL_ISHTP",
        0x1F: "BUS_AMD_SFH",
    ]

    /// From the input device's sysfs path and its bus type (nil when unknown). A device
    /// under /sys/devices/virtual is virtual whatever bus it claims (uinput lets its
    /// creator choose any).
    package init(inputSyspath: String?, bus: UInt16?) {
        let path = inputSyspath ?? "?"
        if path.hasPrefix("/sys/devices/virtual/") {
            self.init(builtIn: false, description: "virtual (\(path))")
        } else if let b = bus, let outside = Self.outsideBuses[b] {
            self.init(
                builtIn: false,
                description: outside == "virtual" ? "virtual (BUS_VIRTUAL, \(path))" : "on the \(outside) bus (\(path))"
            )
        } else {
            let name = bus.map { Self.busNames[$0] ?? "bus 0x\(String($0, radix: 16))" } ?? "bus unknown"
            self.init(builtIn: true, description: "built in (\(name), \(path))")
        }
    }

    package init(builtIn: Bool, description: String) {
        self.builtIn = builtIn
        self.description = description
    }
}
