import Motion
import Testing

@testable import Sensors

/// Snapshots written from the fixtures' facts (the umockdev view of sysfs and udev).
private func snapshot(
    id: Int = 0, name: String = "kxtf9", label: String? = nil,
    extra: [String: String] = [:], udev: [String: String] = [:],
    triggers: [String] = []
) -> AttributeSnapshot {
    var attrs = [
        "name": "\(name)\n", "in_accel_x_raw": "2\n", "in_accel_y_raw": "443\n", "in_accel_z_raw": "256\n",
        "in_accel_scale": "0.019163\n",
    ]
    for a in ["x", "y", "z"] {
        attrs["scan_elements/in_accel_\(a)_en"] = "0\n"
        attrs["scan_elements/in_accel_\(a)_index"] = "\(["x": 0, "y": 1, "z": 2][a]!)\n"
        attrs["scan_elements/in_accel_\(a)_type"] = "le:s12/16>>4\n"
    }
    attrs["scan_elements/in_timestamp_index"] = "3\n"
    attrs["scan_elements/in_timestamp_type"] = "le:s64/64>>0\n"
    if let label { attrs["label"] = label + "\n" }
    attrs.merge(extra) { $1 }
    return AttributeSnapshot(
        id: "iio:device\(id)", index: id, syspath: "/sys/devices/x/iio:device\(id)",
        devnode: "/dev/iio:device\(id)", attributes: attrs, udevProperties: udev,
        triggerNames: triggers)
}

@Test(
    arguments: [
        // (udev, sysfs attributes, expected source)
        (
            ["ACCEL_MOUNT_MATRIX": "0, 1, 0; -1, 0, 0; 0, 0, 1"], ["in_mount_matrix": "0, -1, 0; 1, 0, 0; 0, 0, 1\n"],
            "udev:ACCEL_MOUNT_MATRIX"
        ),
        (
            [:],
            ["mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 1\n", "in_accel_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1\n"],
            "sysfs:mount_matrix"
        ),
        (
            [:],
            [
                "in_accel_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1\n",
                "in_mount_matrix": "0, -1, 0; 1, 0, 0; 0, 0, 1\n",
            ],
            "sysfs:in_accel_mount_matrix"
        ),
        ([:], ["in_mount_matrix": "0, -1, 0; 1, 0, 0; 0, 0, 1\n"], "sysfs:in_mount_matrix"),
        ([:], [:], "default:identity"),
        (
            ["ACCEL_MOUNT_MATRIX": "0, 0, 0; 0, 1, 0; 0, 0, 1"], ["in_mount_matrix": "0, -1, 0; 1, 0, 0; 0, 0, 1\n"],
            "sysfs:in_mount_matrix"
        ),
    ] as [([String: String], [String: String], String)])
func mountMatrixPrecedence(_ udev: [String: String], _ attrs: [String: String], _ source: String) {
    let d = AccelerometerDescription(snapshot: snapshot(extra: attrs, udev: udev), configuredMatrix: nil)
    #expect(d.mountMatrixSource == source)
    #expect(d.mountMatrixProblems.isEmpty == !(udev["ACCEL_MOUNT_MATRIX"]?.hasPrefix("0, 0, 0") ?? false))
}

@Test func configuredMatrixWinsOverEverything() throws {
    let m = try MountMatrix.parse("-1, 0, 0; 0, 1, 0; 0, 0, 1").get()
    let d = AccelerometerDescription(
        snapshot: snapshot(udev: ["ACCEL_MOUNT_MATRIX": "0, 1, 0; -1, 0, 0; 0, 0, 1"]),
        configuredMatrix: m)
    #expect(d.mountMatrixSource == "config:Sensor.mount_matrix")
    #expect(d.mountMatrix == m)
}

@Test(
    arguments: [
        (["ACCEL_LOCATION": "base"], "accel-display", AccelLocation.base, "udev:ACCEL_LOCATION"),
        ([:], "accel-base", .base, "sysfs:label"),
        ([:], "accel-display", .display, "sysfs:label"),
        ([:], nil, .display, "default"),
    ] as [([String: String], String?, AccelLocation, String)])
func location(_ udev: [String: String], _ label: String?, _ want: AccelLocation, _ source: String) {
    let d = AccelerometerDescription(snapshot: snapshot(label: label, udev: udev), configuredMatrix: nil)
    #expect(d.location == want && d.locationSource == source)
}

@Test func badScaleMakesTheDeviceUnusableWithTheReason() {
    let d = AccelerometerDescription(snapshot: snapshot(extra: ["in_accel_scale": "nan\n"]), configuredMatrix: nil)
    #expect(!d.isUsable)
    #expect(d.skipReason?.contains("in_accel_scale") == true)
}

@Test func triggerChoice() {
    let named = AccelerometerDescription(
        snapshot: snapshot(id: 1, triggers: ["kxtf9-dev1", "kxtf9-any-motion-dev1"]),
        configuredMatrix: nil)
    #expect(named.trigger == "kxtf9-dev1" && !named.triggerIsCurrent)
    let st = AccelerometerDescription(
        snapshot: snapshot(name: "lis2dh12_accel", triggers: ["lis2dh12_accel-trigger"]),
        configuredMatrix: nil)
    #expect(st.trigger == "lis2dh12_accel-trigger")
    let hid = AccelerometerDescription(
        snapshot: snapshot(name: "accel_3d", extra: ["trigger/current_trigger": "accel_3d-dev3\n"]),
        configuredMatrix: nil)
    #expect(hid.trigger == "accel_3d-dev3" && hid.triggerIsCurrent)
    #expect(AccelerometerDescription(snapshot: snapshot(), configuredMatrix: nil).trigger == nil)
}

@Test func autoPrefersDisplayThenLowestIndex() {
    let base = AccelerometerDescription(snapshot: snapshot(id: 0, label: "accel-base"), configuredMatrix: nil)
    let display2 = AccelerometerDescription(snapshot: snapshot(id: 2, label: "accel-display"), configuredMatrix: nil)
    let display1 = AccelerometerDescription(snapshot: snapshot(id: 1), configuredMatrix: nil)
    let s = SensorSelection.select(.auto, from: [base, display2, display1].sorted { $0.index < $1.index })
    #expect(s.chosen?.id == "iio:device1")
    #expect(s.notChosen["iio:device0"]?.contains("base") == true)
    #expect(SensorSelection.select(.label("accel-base"), from: [base, display1]).chosen?.id == "iio:device0")
    #expect(SensorSelection.select(.iioDevice(2), from: [base, display2]).chosen?.id == "iio:device2")
    #expect(SensorSelection.select(.name("nope"), from: [base]).chosen == nil)
    let onlyBase = SensorSelection.select(.auto, from: [base])
    #expect(onlyBase.chosen?.id == "iio:device0")
}

@Test(arguments: [
    ("auto", DeviceSelector.auto), ("iio:device3", .iioDevice(3)), ("name:BMA253/BMI055", .name("BMA253/BMI055")),
    ("label:accel-display", .label("accel-display")), ("uri:ip:127.0.0.1", .uri("ip:127.0.0.1")),
    ("trace:/tmp/t.jsonl", .trace("/tmp/t.jsonl")),
])
func selectorParses(_ text: String, _ want: DeviceSelector) throws {
    #expect(try DeviceSelector.parse(text).get() == want)
}

@Test(arguments: ["", "iio:device", "iio:devicex", "iio:device01", "name:", "usb:1", "Auto"])
func selectorRejects(_ text: String) {
    #expect(throws: DeviceSelector.ParseError.self) { try DeviceSelector.parse(text).get() }
}

@Test(arguments: [
    // (available, current, wanted, written)
    ("15.620000 31.260000 62.50000 125 250 500 1000 2000", "125.000000", 60.0, 62.5 as Double?),
    ("1 10 25 50 100 200 400 1600", "1", 60.0, 100),
    ("1 10 25 50 100 200 400 1600", "1", 2.0, 10),  // never below 10 Hz
    ("25 50 100", "100", 500.0, nil),  // highest available, already set
    ("25 50 100", "50", 500.0, 100),
    ("", "10.000000", 60.0, 60),  // no list: the wanted rate
    ("", "60", 60.0, nil),
])
func samplingFrequencyTarget(_ available: String, _ current: String, _ wanted: Double, _ written: Double?) throws {
    var attrs = ["in_accel_sampling_frequency": current + "\n"]
    if !available.isEmpty { attrs["in_accel_sampling_frequency_available"] = available + "\n" }
    let d = AccelerometerDescription(snapshot: snapshot(extra: attrs), configuredMatrix: nil)
    let f = try #require(d.samplingFrequency)
    #expect(f.target(forRate: wanted) == written)
}

/// Buffer mode lets the kernel gather one frame interval of scans per wakeup: the
/// fewest scans spanning 1 / fps, so frames never come faster than Sink.fps.
@Test(arguments: [
    (125.0, 60.0 as Double?, 3),  // the bmc150 at Sensor.rate 100: 41.7 wakeups and frames a second
    (100.0, 60.0, 2),  // 50 a second
    (120.0, 60.0, 2),  // exactly 60
    (60.0, 60.0, 1),
    (31.25, 60.0, 1),  // a slow sensor: every scan
    (1000.0, 30.0, 34),
    (8000.0, 1.0, 64),  // at most 64 (the buffer holds at least 64)
    (100.0, nil, 1),  // no frames (sensors, monitor): every scan
    (.nan, 60.0, 1),
])
func scansPerWakeupSpanAFrame(_ deviceHz: Double, _ fps: Double?, _ expected: Int) {
    let s = AccelerometerSettings(rateHz: 100, framesPerSecond: fps)
    #expect(s.scansPerWakeup(deviceHz: deviceHz) == expected)
}

@Test func frequencyTextIsCLocale() {
    #expect(SamplingFrequencyInfo.text(62.5) == "62.500000")
    #expect(SamplingFrequencyInfo.text(100) == "100")
    #expect(SamplingFrequencyInfo.text(0.781) == "0.781000")
}

@Test func scanLayoutFromDescription() throws {
    let d = AccelerometerDescription(snapshot: snapshot(), configuredMatrix: nil)
    let l = try d.scanLayout.get()
    #expect(l.scanBytes == 16 && l.elements.map(\.name) == ["accel_x", "accel_y", "accel_z", "timestamp"])
}
