import Motion
import TestSupport
import Testing

@testable import Evdev
@testable import Sensors

/// Input accelerometers described, selected and timed: written from the kernel drivers'
/// constants (hid-playstation's DualSense, lis3lv02d on HP laptops), as the fixtures of
/// the end-to-end tests are.
struct InputDeviceTests {
    static let hid = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3/1-3:1.3/0003:054C:0CE6.0005"

    /// ps_sensors_create(): INPUT_PROP_ACCELEROMETER, DS_ACC_RES_PER_G, DS_GYRO_RES_PER_DEG_S.
    static let dualSense = EvdevFacts(
        name: "Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors",
        id: InputID(bustype: 3, vendor: 0x054c, product: 0x0ce6, version: 0x8111), accelerometerProperty: true,
        axes: [
            .x: axis(32768, 8192), .y: axis(32768, 8192), .z: axis(32768, 8192),
            .rx: axis(2_097_152, 1024), .ry: axis(2_097_152, 1024), .rz: axis(2_097_152, 1024),
        ],
        timestamps: true, absoluteAxisCount: 6, relativeAxisCount: 0)

    /// lis3lv02d_joystick_enable(): no property, no resolution, +-2000 mg, BUS_HOST.
    static let lis3 = EvdevFacts(
        name: "ST LIS3LV02DL Accelerometer", id: InputID(bustype: 0x19, vendor: 0, product: 0, version: 0),
        accelerometerProperty: false, axes: [.x: axis(2000, 0), .y: axis(2000, 0), .z: axis(2000, 0)],
        timestamps: false, absoluteAxisCount: 3, relativeAxisCount: 0)

    static func axis(_ range: Int32, _ res: Int32) -> AbsInfo {
        AbsInfo(value: 0, minimum: -range, maximum: range, fuzz: 16, flat: 0, resolution: res)
    }

    static func controller(joystick: String? = "input20", facts: EvdevFacts = dualSense) -> InputDeviceSnapshot {
        InputDeviceSnapshot(
            sysname: "event21", number: 21, syspath: hid + "/input/input21/event21",
            devnode: "/dev/input/event21", inputSyspath: hid + "/input/input21", parentSyspath: hid,
            udevProperties: ["ID_INPUT": "1", "ID_INPUT_ACCELEROMETER": "1"],
            inputAttributes: ["name": facts.name + "\n", "id/vendor": "054c\n", "id/product": "0ce6\n"],
            joystickSibling: joystick, evdev: .success(facts))
    }

    static func laptop(udev: [String: String] = ["ACCEL_MOUNT_MATRIX": "0, -1, 0; -1, 0, 0; 0, 0, -1"])
        -> InputDeviceSnapshot
    {
        InputDeviceSnapshot(
            sysname: "event6", number: 6, syspath: "/sys/devices/platform/lis3lv02d/input/input6/event6",
            devnode: "/dev/input/event6", inputSyspath: "/sys/devices/platform/lis3lv02d/input/input6",
            parentSyspath: "/sys/devices/platform/lis3lv02d",
            udevProperties: udev.merging(["ID_INPUT_ACCELEROMETER": "1"]) { a, _ in a },
            inputAttributes: [
                "name": "ST LIS3LV02DL Accelerometer\n", "poll": "50\n", "min": "0\n",
                "max": "2000\n",
            ],
            evdev: .success(lis3))
    }

    static func iio() -> AccelerometerDescription {
        let attrs = [
            "name": "bmc150_accel\n", "in_accel_x_raw": "0\n", "in_accel_y_raw": "-512\n", "in_accel_z_raw": "0\n",
            "in_accel_scale": "0.019163\n",
        ]
        return AccelerometerDescription(
            snapshot: AttributeSnapshot(
                id: "iio:device0", index: 0, syspath: "/sys/devices/x/iio:device0",
                devnode: "/dev/iio:device0", attributes: attrs,
                udevProperties: [:], triggerNames: []),
            configuredMatrix: nil)
    }

    // --- units ---

    @Test func unitsFromResolutionWhereTheDeviceIsAnAccelerometerElseFromTheTable() throws {
        let ds = try InputUnits.accelerometer(Self.dualSense).get()
        #expect(ds.scale == Vector3(1, 1, 1) * (standardGravity / 8192))
        #expect(ds.source == "evdev: resolution 8192 counts per g (INPUT_PROP_ACCELEROMETER)")
        let gyro = try #require(InputUnits.gyroscope(Self.dualSense))
        #expect(gyro.scale == Vector3(1, 1, 1) * (Double.pi / 180 / 1024))
        let lis3 = try InputUnits.accelerometer(Self.lis3).get()
        #expect(lis3.scale == Vector3(1, 1, 1) * (standardGravity / 1000))
        #expect(lis3.source.hasPrefix("table: lis3lv02d: milli-g (drivers/misc/lis3lv02d/lis3lv02d.c"))
        #expect(InputUnits.gyroscope(Self.lis3) == nil)
    }

    @Test func anAccelerometerWithoutUnitsIsUnusableAndSaysWhy() {
        var unknown = Self.lis3
        unknown.name = "Some Joystick Accelerometer"
        let d = AccelerometerDescription(input: Self.controller(joystick: nil, facts: unknown), configuredMatrix: nil)
        #expect(!d.isUsable)
        #expect(
            d.skipReason == "no units: no INPUT_PROP_ACCELEROMETER (so no resolution in counts per g), and "
                + "\"Some Joystick Accelerometer\" is not in shimmerd's table of input accelerometers' units")
        var zero = Self.dualSense
        zero.axes[.y] = Self.axis(32768, 0)
        zero.name = "Zero"
        #expect(throws: InputUnits.UnitsProblem.self) { try InputUnits.accelerometer(zero).get() }
    }

    // --- the controller table ---

    /// How each entry reads the poses docs/TILT.md, "Axes and signs", names: lying face up, the
    /// screen flat (0, 0, -g); stood on its grips, the triggers' edge up, upright (0, -g, 0);
    /// rolled right edge down, gravity toward +x. The controller reads +1 g up.
    @Test(arguments: ControllerAxes.table.map(\.key))
    func everyEntryTurnsTheControllersRestingReadingsIntoTheScreens(_ key: String) throws {
        let c = try #require(ControllerAxes.table.first { $0.key == key })
        let g = standardGravity
        // The controller's own axes: Sony x right, y out of the face, z toward the player;
        // Nintendo x toward the triggers, y left, z out of the face.
        let sony = c.vendor == 0x054c
        let faceUp = sony ? Vector3(0, g, 0) : Vector3(0, 0, g)
        let triggersUp = sony ? Vector3(0, 0, -g) : Vector3(g, 0, 0)
        let rightDown = sony ? Vector3(-g, 0, 0) : Vector3(0, g, 0)
        #expect(close(c.matrix.apply(faceUp), Vector3(0, 0, -g)))
        #expect(close(c.matrix.apply(triggersUp), Vector3(0, -g, 0)))
        #expect(close(c.matrix.apply(rightDown), Vector3(g, 0, 0)))
        // det -1: the gyroscope on the same node turns by -M, a rotation.
        #expect(c.matrix.determinant == -1)
        #expect(!c.source.isEmpty && !c.model.isEmpty)
    }

    func close(_ a: Vector3, _ b: Vector3) -> Bool { (a - b).length < 1e-12 }

    // --- the description ---

    @Test func aControllersDescriptionTakesItsTableFrameAndItsOwnGyroscope() throws {
        let d = AccelerometerDescription(input: Self.controller(), configuredMatrix: nil)
        #expect(d.isUsable && d.isInput && d.id == "input:event21" && d.index == 21)
        #expect(d.mountMatrixSource == "table:054c:0ce6 (DualSense)")
        #expect(d.input?.controller?.contains("input20 beside it under the same parent") == true)
        #expect(d.input?.bufferEvents == 128 && d.input?.eventsPerReport == 8)
        let g = try #require(GyroscopeDescription(input: d))
        let pairing = GyroPairing.pair(accelerometer: d, gyroscopes: [g], selector: .auto, configuredMatrix: nil)
        #expect(pairing.gyro?.id == "input:event21" && pairing.calibration?.sign == -1)
        #expect(pairing.matrixSource == "accelerometer:table:054c:0ce6 (DualSense)")
        // An IIO selector never names an input device's gyroscope, whatever its number.
        let iio = GyroPairing.pair(accelerometer: d, gyroscopes: [g], selector: .iioDevice(21), configuredMatrix: nil)
        #expect(iio.gyro == nil)
    }

    @Test func udevAndTheConfigurationWinOverTheTable() throws {
        var s = Self.controller()
        s.udevProperties["ACCEL_MOUNT_MATRIX"] = "1, 0, 0; 0, 1, 0; 0, 0, 1"
        #expect(
            AccelerometerDescription(input: s, configuredMatrix: nil).mountMatrixSource == "udev:ACCEL_MOUNT_MATRIX")
        let m = try MountMatrix.parse("0, 1, 0; 1, 0, 0; 0, 0, 1").get()
        #expect(
            AccelerometerDescription(input: s, configuredMatrix: m).mountMatrixSource == "config:Sensor.mount_matrix")
        s.udevProperties["ACCEL_MOUNT_MATRIX"] = "0, 0, 0; 0, 1, 0; 0, 0, 1"
        let bad = AccelerometerDescription(input: s, configuredMatrix: nil)
        #expect(bad.mountMatrixSource == "table:054c:0ce6 (DualSense)" && bad.mountMatrixProblems.count == 1)
    }

    @Test func aNodeThatWouldNotOpenIsUnusableWithTheError() {
        var s = Self.laptop()
        s.evdev = .failure(EvdevError(operation: "open", device: "/dev/input/event6", code: 13))
        let d = AccelerometerDescription(input: s, configuredMatrix: nil)
        #expect(
            d.skipReason?.hasPrefix("cannot read /dev/input/event6: open /dev/input/event6: Permission denied") == true)
    }

    @Test(arguments: [(6, 0, 128), (3, 0, 128), (0, 0, 64), (20, 0, 256), (2, 2, 128)])
    func theKernelsBufferPerReader(_ abs: Int, _ rel: Int, _ events: Int) {
        #expect(InputDeviceFacts.kernelBufferEvents(absoluteAxes: abs, relativeAxes: rel) == events)
    }

    // --- selection ---

    @Test func autoNeverTakesAGameControllerAndSaysWhy() {
        let c = AccelerometerDescription(input: Self.controller(), configuredMatrix: nil)
        let s = SensorSelection.select(.auto, from: [c])
        #expect(s.chosen == nil)
        #expect(
            s.notChosen["input:event21"]?.hasSuffix(
                "auto leaves game controllers alone (name it: Sensor.device = "
                    + "input:event21 or name:Sony Interactive Entertainment DualSense Wireless Controller Motion Sensors)"
            ) == true)
        #expect(SensorSelection.select(.inputEvent(21), from: [c]).chosen?.id == "input:event21")
        #expect(SensorSelection.select(.name(c.name!), from: [c]).chosen?.id == "input:event21")
        #expect(SensorSelection.select(.iioDevice(21), from: [c]).chosen == nil)
    }

    @Test func autoTakesAnIIOAccelerometerFirstThenALaptopsInputOne() {
        let laptop = AccelerometerDescription(input: Self.laptop(), configuredMatrix: nil)
        let pad = AccelerometerDescription(input: Self.controller(), configuredMatrix: nil)
        let without = SensorSelection.select(.auto, from: [pad, laptop])
        #expect(without.chosen?.id == "input:event6")
        #expect(
            without.reason == "input:event6 (ST LIS3LV02DL Accelerometer): no usable IIO accelerometer; an input "
                + "accelerometer, not part of a game controller, built in (BUS_HOST, /sys/devices/platform/lis3lv02d/input/input6)"
        )
        let with = SensorSelection.select(.auto, from: [Self.iio(), pad, laptop])
        #expect(with.chosen?.id == "iio:device0")
        #expect(with.notChosen["input:event6"] == "auto takes an IIO accelerometer first (iio:device0)")
        #expect(with.notChosen["input:event21"]?.contains("auto leaves game controllers alone") == true)
    }

    /// An accelerometer any program with /dev/uinput can make: under /sys/devices/virtual,
    /// copying lis3lv02d's name and BUS_HOST, as uinput lets it.
    static func virtual(number: Int = 3, bus: UInt16 = 0x19) -> InputDeviceSnapshot {
        var facts = lis3
        facts.id.bustype = bus
        let input = "/sys/devices/virtual/input/input\(number)"
        return InputDeviceSnapshot(
            sysname: "event\(number)", number: number, syspath: input + "/event\(number)",
            devnode: "/dev/input/event\(number)", inputSyspath: input, parentSyspath: nil,
            udevProperties: ["ID_INPUT_ACCELEROMETER": "1"], inputAttributes: [:],
            evdev: .success(facts))
    }

    @Test func autoPrefersABuiltInInputAccelerometerToAVirtualOneOfALowerEventNumberAndSaysWhy() {
        let laptop = AccelerometerDescription(input: Self.laptop(), configuredMatrix: nil)
        let forged = AccelerometerDescription(input: Self.virtual(), configuredMatrix: nil)
        let s = SensorSelection.select(.auto, from: [forged, laptop])
        #expect(s.chosen?.id == "input:event6")
        #expect(
            s.reason == "input:event6 (ST LIS3LV02DL Accelerometer): no usable IIO accelerometer; an input "
                + "accelerometer, not part of a game controller, built in (BUS_HOST, /sys/devices/platform/lis3lv02d/input/input6); "
                + "preferred over 1 virtual, USB or Bluetooth one")
        #expect(
            s.notChosen["input:event3"]
                == "virtual (/sys/devices/virtual/input/input3); auto prefers a built-in device, input:event6")
        // Alone, the virtual one is taken, and the reason says there is no built-in one.
        let alone = SensorSelection.select(.auto, from: [forged])
        #expect(alone.chosen?.id == "input:event3")
        #expect(
            alone.reason.hasSuffix(
                "not part of a game controller, virtual (/sys/devices/virtual/input/input3); "
                    + "no built-in input accelerometer"))
        // Named, it is taken whatever else there is.
        #expect(SensorSelection.select(.inputEvent(3), from: [forged, laptop]).chosen?.id == "input:event3")
        // Two built-in ones: the lower event number.
        var other = Self.laptop()
        other.number = 9
        other.sysname = "event9"
        let second = AccelerometerDescription(input: other, configuredMatrix: nil)
        let two = SensorSelection.select(.auto, from: [forged, laptop, second])
        #expect(two.chosen?.id == "input:event6")
        #expect(two.notChosen["input:event9"] == "auto also matches it, but input:event6 has the lower event number")
    }

    @Test(arguments: [
        ("/sys/devices/virtual/input/input3", 0x19 as UInt16?, false, "virtual (/sys/devices/virtual/input/input3)"),
        (
            "/sys/devices/pci0000:00/usb1/1-3/input/input21", 0x03, false,
            "on the USB bus (/sys/devices/pci0000:00/usb1/1-3/input/input21)"
        ),
        (
            "/sys/devices/pci0000:00/bt/input/input30", 0x05, false,
            "on the Bluetooth bus (/sys/devices/pci0000:00/bt/input/input30)"
        ),
        (
            "/sys/devices/platform/x/input/input4", 0x06, false,
            "virtual (BUS_VIRTUAL, /sys/devices/platform/x/input/input4)"
        ),
        (
            "/sys/devices/platform/lis3lv02d/input/input6", 0x19, true,
            "built in (BUS_HOST, /sys/devices/platform/lis3lv02d/input/input6)"
        ),
        (
            "/sys/devices/pci0000:00/i2c-1/input/input8", 0x18, true,
            "built in (BUS_I2C, /sys/devices/pci0000:00/i2c-1/input/input8)"
        ),
        (
            "/sys/devices/platform/y/input/input5", nil, true,
            "built in (bus unknown, /sys/devices/platform/y/input/input5)"
        ),
    ])
    func whereAnInputDeviceSits(_ path: String, _ bus: UInt16?, _ builtIn: Bool, _ text: String) {
        let p = InputPlacement(inputSyspath: path, bus: bus)
        #expect(p.builtIn == builtIn)
        #expect(p.description == text)
    }

    @Test func theJoystickBesideAnAccelerometerUnderItsParent() {
        let hid = Self.hid
        let entries: [InputDiscovery.Entry] = [
            .init(sysname: "input20", syspath: hid + "/input/input20", parentSyspath: hid, joystick: true),
            .init(
                sysname: "event20", syspath: hid + "/input/input20/event20", parentSyspath: hid + "/input/input20",
                joystick: true),
            .init(sysname: "input21", syspath: hid + "/input/input21", parentSyspath: hid, joystick: false),
            .init(sysname: "input22", syspath: hid + "/input/input22", parentSyspath: hid, joystick: false),
        ]
        #expect(InputDiscovery.joystickSibling(of: hid + "/input/input21", parent: hid, in: entries) == "input20")
        // Marked only on its node: still the gamepad.
        let nodeOnly = entries.map { e -> InputDiscovery.Entry in
            var e = e
            if e.sysname == "input20" { e.joystick = false }
            return e
        }
        #expect(InputDiscovery.joystickSibling(of: hid + "/input/input21", parent: hid, in: nodeOnly) == "input20")
        #expect(
            InputDiscovery.joystickSibling(
                of: hid + "/input/input21", parent: hid,
                in: entries.filter { !$0.sysname.hasSuffix("20") }) == nil)
        #expect(
            InputDiscovery.joystickSibling(
                of: "/sys/devices/platform/lis3lv02d/input/input6",
                parent: "/sys/devices/platform/lis3lv02d", in: entries) == nil)
    }

    @Test(arguments: [("input:event21", DeviceSelector.inputEvent(21)), ("input:event0", .inputEvent(0))])
    func inputEventSelectors(_ text: String, _ want: DeviceSelector) throws {
        #expect(try DeviceSelector.parse(text).get() == want)
        #expect(want.description == text)
    }

    @Test(arguments: ["input:event", "input:eventx", "input:event-1", "input:event01"])
    func malformedInputEventSelectors(_ text: String) {
        #expect(throws: DeviceSelector.ParseError.self) { try DeviceSelector.parse(text).get() }
    }

    // --- timing ---

    @Test func mscTimestampIsUnwrappedAcross32Bits() {
        var c = InputReportClock()
        let a = c.unwrap(microseconds: Int32(bitPattern: 0xFFFF_F000))
        let b = c.unwrap(microseconds: 0x0000_0FA0)  // 0x1000 + 0xFA0 us later, past the wrap
        #expect(b - a == Int64(0x1000 + 0xFA0) * 1000)
        let step = Int64(0x1000 + 0xFA0) * 1000
        #expect(c.place(deviceNs: a, arrivalNs: 5_000_000_000) == .init(ns: 5_000_000_000, implausible: nil))
        #expect(
            c.place(deviceNs: b, arrivalNs: 5_000_000_000 + step) == .init(ns: 5_000_000_000 + step, implausible: nil))
        #expect(c.reportInterval == Double(step) / 1e9)
    }

    /// Reports 4 ms apart (250 Hz) that arrive with up to 3 ms of jitter: the device's
    /// own times are used, anchored on the first report's arrival.
    @Test func aPlausibleDeviceClockGivesTheDevicesTimesOnTheArrivalClock() {
        var c = InputReportClock()
        let jitter: [Int64] = [0, 3, 1, 0, 2, 3, 0, 1]
        for (k, j) in jitter.enumerated() {
            let device = 7_000_000_000 + Int64(k) * 4_000_000
            let placed = c.place(deviceNs: device, arrivalNs: 100_000_000 + Int64(k) * 4_000_000 + j * 1_000_000)
            #expect(placed == .init(ns: 100_000_000 + Int64(k) * 4_000_000, implausible: nil))
        }
        #expect(!c.usingArrivalTimes)
        #expect(abs(c.reportInterval! - 0.004) < 0.002)
    }

    /// A frozen clock, then one that jumps at random, then a sane one again: the arrival
    /// times while it is implausible, said once when it becomes so; the device's clock
    /// taken up again, anchored anew, from the first plausible step. Times never go back,
    /// and the interval between reports comes from the arrivals all along.
    @Test func anImplausibleDeviceClockGivesArrivalTimesAndIsSaidOnce() {
        var c = InputReportClock()
        var said: [String] = []
        var given: [Int64] = []
        func report(_ k: Int, device: Int64, jitter: Int64 = 0) {
            let p = c.place(deviceNs: device, arrivalNs: 1_000_000_000 + Int64(k) * 4_000_000 + jitter)
            if let why = p.implausible { said.append(why) }
            given.append(p.ns)
        }
        report(0, device: 50_000_000)
        for k in 1...10 { report(k, device: 50_000_000) }  // frozen
        #expect(c.usingArrivalTimes)
        #expect(
            said == [
                "implausible MSC_TIMESTAMP: the device's clock moved 0 us between two reports that arrived 4000 us apart"
            ])
        #expect(given == (0...10).map { 1_000_000_000 + Int64($0) * 4_000_000 })
        var x: UInt64 = 41
        for k in 11...30 {  // random
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            report(k, device: Int64(x >> 32) * 1000)
        }
        #expect(said.count == 1)
        #expect(given[11...] == ArraySlice((11...30).map { 1_000_000_000 + Int64($0) * 4_000_000 }))
        let back: Int64 = 9_000_000_000
        // Sane again.
        for k in 31...40 { report(k, device: back + Int64(k) * 4_000_000, jitter: Int64(k % 2) * 1_000_000) }
        #expect(!c.usingArrivalTimes)
        // The first sane step follows a random value; from the next one the device's clock
        // is used (without the arrivals' jitter), anchored on that report's arrival.
        #expect(given[32...] == ArraySlice((32...40).map { 1_000_000_000 + Int64($0) * 4_000_000 }))
        #expect(zip(given, given.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(c.reportInterval! - 0.004) < 0.0006)
    }

    @Test(arguments: [
        (4_000_000 as Int64, 4_000_000 as Int64, true), (0, 4_000_000, false), (-4_000_000, 4_000_000, false),
        (24_000_000, 4_000_000, true), (24_000_001, 4_000_000, false), (1_000, 900_000_000, true),
        (1_000, 1_100_000_000, false), (3_600_000_000_000, 4_000_000, false),
    ])
    func whatStepOfTheDevicesClockIsPlausible(_ device: Int64, _ arrival: Int64, _ plausible: Bool) {
        #expect((InputReportClock.implausibility(deviceStep: device, arrivalStep: arrival) == nil) == plausible)
    }

    @Test func anInputDevicesBadReadingNamesItsAxes() {
        #expect(InputDeviceAccelerometer.accelerometerAxes == "ABS_X,ABS_Y,ABS_Z")
        #expect(InputDeviceAccelerometer.gyroscopeAxes == "ABS_RX,ABS_RY,ABS_RZ")
        guard
            case .failure(let p) = ReadingUnits.acceleration(
                counts: .zero, scale: Vector3(1, 1, 1), offset: .zero,
                attributes: InputDeviceAccelerometer.accelerometerAxes)
        else {
            Issue.record("a zero vector is no reading")
            return
        }
        #expect(p.description == "ABS_X,ABS_Y,ABS_Z = \"0 0 0\": zero acceleration vector")
    }

    @Test(arguments: [
        (60.0, false, 17 as Int?), (20.0, false, nil), (1000.0, false, 1), (10.0, true, nil), (100.0, true, 10),
    ])
    func thePollersIntervalForSensorRate(_ rate: Double, _ shared: Bool, _ want: Int?) {
        let p = InputPollInterval(currentMs: 50, minMs: 0, maxMs: 2000)
        #expect(p.target(forRate: rate, shared: shared) == want)
        #expect(InputPollInterval(currentMs: 50, minMs: 30, maxMs: 2000).target(forRate: 60) == 30)
    }

    @Test func anInputDevicesReadsArePacedFromTheLastReadNotOnAGrid() {
        var s = ReadSchedule(rateHz: 60)
        s.pace(period: 1.0 / 60, fromLastRead: true)
        s.attached(now: 0, batchInterval: 1)
        s.didRead(now: 0.005, waited: false, woke: false, gotData: true)
        #expect(abs(s.nextRead - (0.005 + 1.0 / 60)) < 1e-12)
        // A late read moves the next one with it (the frames move with the reads).
        s.didRead(now: 0.030, waited: false, woke: false, gotData: true)
        #expect(abs(s.nextRead - (0.030 + 1.0 / 60)) < 1e-12)
    }
}
