import Glibc
import Motion
import TestSupport
import Testing

@testable import Sensors

/// An inv_mpu6050 as the kernel describes it (drivers/iio/imu/inv_mpu6050): accel x, y, z
/// at scan indices 0-2, temperature 3, anglvel x, y, z 4-6, timestamp 7, all be:s16 but
/// the timestamp; `in_accel_mount_matrix` and `in_anglvel_mount_matrix` from the same
/// platform data (here unquirked identities), and the hwdb matrix on the udev device.
private func mpu6050(
    udev: [String: String] = [:],
    syspath: String = "/sys/devices/pci0000:00/0000:00:15.1/i2c_designware.1/i2c-1/i2c-INVN6500:00/iio:device0"
) -> AttributeSnapshot {
    var a: [String: String] = [
        "name": "mpu6500\n", "in_accel_scale": "0.000598\n", "in_anglvel_scale": "0.001064724\n",
        "in_accel_mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 1\n",
        "in_anglvel_mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 1\n",
    ]
    let elements: [(String, Int, String)] = [
        ("accel_x", 0, "be:s16/16>>0"), ("accel_y", 1, "be:s16/16>>0"),
        ("accel_z", 2, "be:s16/16>>0"), ("temp", 3, "be:s16/16>>0"),
        ("anglvel_x", 4, "be:s16/16>>0"), ("anglvel_y", 5, "be:s16/16>>0"),
        ("anglvel_z", 6, "be:s16/16>>0"), ("timestamp", 7, "le:s64/64>>0"),
    ]
    for (n, i, t) in elements {
        a["scan_elements/in_\(n)_en"] = "1\n"
        a["scan_elements/in_\(n)_index"] = "\(i)\n"
        a["scan_elements/in_\(n)_type"] = "\(t)\n"
        if n.hasPrefix("accel") || n.hasPrefix("anglvel") { a["in_\(n)_raw"] = "0\n" }
    }
    return AttributeSnapshot(
        id: "iio:device0", index: 0, syspath: syspath, devnode: "/dev/iio:device0",
        attributes: a, udevProperties: udev, triggerNames: ["mpu6500-dev0"])
}

/// HID sensor hub children: accel_3d and gyro_3d under one hub device.
private func hid(_ id: Int, _ usage: String, _ name: String, channel: String, scale: String) -> AttributeSnapshot {
    var a: [String: String] = ["name": "\(name)\n", "in_\(channel)_scale": "\(scale)\n"]
    for (i, x) in ["x", "y", "z"].enumerated() {
        a["in_\(channel)_\(x)_raw"] = "0\n"
        a["scan_elements/in_\(channel)_\(x)_en"] = "0\n"
        a["scan_elements/in_\(channel)_\(x)_index"] = "\(i)\n"
        a["scan_elements/in_\(channel)_\(x)_type"] = "le:s32/32>>0\n"
    }
    let hub = "/sys/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0002"
    return AttributeSnapshot(
        id: "iio:device\(id)", index: id, syspath: "\(hub)/HID-SENSOR-\(usage).\(id).auto/iio:device\(id)",
        devnode: "/dev/iio:device\(id)", attributes: a, udevProperties: [:], triggerNames: [])
}

@Test func aCombinedIMUsScanLayoutCoversEveryElement() throws {
    let d = AccelerometerDescription(snapshot: mpu6050(), configuredMatrix: nil)
    let l = try d.scanLayout.get()
    #expect(l.scanBytes == 24)
    #expect(
        l.elements.map(\.name) == [
            "accel_x", "accel_y", "accel_z", "temp", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp",
        ])
    #expect(l.elements.last?.offset == 16)
}

@Test func aCombinedIMUPairsWithItsOwnGyroscopeInTheAccelerometersFrame() throws {
    // A hwdb quirk mirrors the accelerometer (det -1): the rate takes det(M) * M.
    let snap = mpu6050(udev: ["ACCEL_MOUNT_MATRIX": "-1, 0, 0; 0, 1, 0; 0, 0, 1"])
    let a = AccelerometerDescription(snapshot: snap, configuredMatrix: nil)
    let g = try #require(GyroscopeDescription(snapshot: snap))
    #expect(g.pollCapable && g.bufferCapable && g.ownMatrixSource == "sysfs:in_anglvel_mount_matrix")
    let p = GyroPairing.pair(accelerometer: a, gyroscopes: [g], selector: .auto, configuredMatrix: nil)
    #expect(p.gyro?.id == "iio:device0")
    #expect(p.reason == "the accelerometer's own IIO device")
    #expect(p.matrixSource == "accelerometer:udev:ACCEL_MOUNT_MATRIX")
    let cal = try #require(p.calibration)
    // 100 counts about sensor x: the mirrored x axis, then the sign of det(M) = -1.
    let w = cal.angularVelocity(raw: Vector3(100, 0, 0))
    #expect(abs(w.x - 100 * 0.001064724) < 1e-12 && w.y == 0 && w.z == 0)
    let wz = cal.angularVelocity(raw: Vector3(0, 0, 100))
    #expect(abs(wz.z + 100 * 0.001064724) < 1e-12)
}

@Test func aHIDHubPairsItsGyroSiblingAndNotAStrangersGyroscope() throws {
    let accel = AccelerometerDescription(
        snapshot: hid(3, "200073", "accel_3d", channel: "accel", scale: "0.098"),
        configuredMatrix: nil)
    let sibling = try #require(
        GyroscopeDescription(snapshot: hid(4, "200076", "gyro_3d", channel: "anglvel", scale: "0.000174533")))
    var stranger = try #require(GyroscopeDescription(snapshot: mpu6050()))
    stranger.facts.id = "iio:device5"
    stranger.facts.index = 5
    let p = GyroPairing.pair(
        accelerometer: accel, gyroscopes: [stranger, sibling], selector: .auto, configuredMatrix: nil)
    #expect(p.gyro?.id == "iio:device4")
    #expect(p.reason.hasPrefix("same parent device as the accelerometer"))
    #expect(p.matrixSource == "accelerometer:default:identity")
    let alone = GyroPairing.pair(accelerometer: accel, gyroscopes: [stranger], selector: .auto, configuredMatrix: nil)
    #expect(alone.gyro == nil && alone.reason.contains("not paired: iio:device5 (mpu6500)"))
    // Named explicitly, the stranger is used in its own frame.
    let named = GyroPairing.pair(
        accelerometer: accel, gyroscopes: [stranger], selector: .iioDevice(5), configuredMatrix: nil)
    #expect(named.gyro?.id == "iio:device5" && named.matrixSource == "sysfs:in_anglvel_mount_matrix")
}

@Test func configurationOverridesPairingAndMatrix() throws {
    let snap = mpu6050(udev: ["ACCEL_MOUNT_MATRIX": "0, 1, 0; -1, 0, 0; 0, 0, 1"])
    let a = AccelerometerDescription(snapshot: snap, configuredMatrix: nil)
    let g = try #require(GyroscopeDescription(snapshot: snap))
    #expect(GyroPairing.pair(accelerometer: a, gyroscopes: [g], selector: .none, configuredMatrix: nil).gyro == nil)
    let m = try MountMatrix.parse("0, -1, 0; 1, 0, 0; 0, 0, 1").get()
    let p = GyroPairing.pair(accelerometer: a, gyroscopes: [g], selector: .auto, configuredMatrix: m)
    #expect(
        p.matrixSource == "config:Sensor.gyro_mount_matrix" && p.calibration?.mountMatrix == m
            && p.calibration?.sign == 1)
}

@Test(arguments: [
    ("auto", "auto"), ("none", "none"), ("iio:device2", "iio:device2"), ("name:gyro_3d", "name:gyro_3d"),
    ("label:x", "label:x"),
])
func gyroSelectorParses(_ text: String, _ back: String) throws {
    #expect(try GyroSelector.parse(text).get().description == back)
}

@Test(arguments: ["", "trace:x", "uri:ip:1", "iio:devicex", "gyro"])
func gyroSelectorRejects(_ text: String) {
    guard case .failure = GyroSelector.parse(text) else { Issue.record("accepted \(text)"); return }
}

@Test(arguments: [
    ("2", true), ("22", true), ("1", false), ("0", false), ("20", false), ("3\n", true),
    ("0 2", true), ("2 0", false), ("zz", false), ("", false),
])
func tabletModeBitInTheCapabilityBitmap(_ text: String, _ has: Bool) {
    #expect(TabletModeSwitch.hasTabletModeBit(text) == has)
}

/// The switch's node as the kernel fills it: `struct input_event`s (a 16-byte timeval, u16
/// type, u16 code, s32 value on 64-bit Linux), here written into a FIFO. The newest
/// `SW_TABLET_MODE` value of what is waiting is read; other events are passed over.
@Test func theTabletModeSwitchReadsTheNewestSwitchValueOfItsEvents() throws {
    let scratch = ScratchDirectory("tablet-switch")
    defer { scratch.remove() }
    let path = scratch.file("event7")
    #expect(mkfifo(path, 0o600) == 0)
    let sw = try TabletModeSwitch(devnode: path, name: "Intel Virtual Switches")
    let writer = open(path, O_WRONLY | O_CLOEXEC)
    #expect(writer >= 0)
    defer { close(writer) }
    func event(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        return bytes
    }
    #expect(try sw.read() == nil)
    let events =
        event(type: 0x05, code: 0x01, value: 1) + event(type: 0x00, code: 0, value: 0)
        + event(type: 0x05, code: 0x00, value: 1) + event(type: 0x05, code: 0x01, value: 0)
        + event(type: 0x00, code: 0, value: 0)
    #expect(write(writer, events, events.count) == events.count)
    #expect(try sw.read() == 0)
    #expect(try sw.read() == nil)
}
