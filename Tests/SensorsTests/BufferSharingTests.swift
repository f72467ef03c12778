import Testing

@testable import Sensors

private func description(
    enabled: String = "0\n", udev: [String: String] = [:], frequency: String = "125.000000\n",
    available: String = "7.810000 15.630000 31.250000 62.500000 125 250 500 1000\n"
)
    -> AccelerometerDescription
{
    var attrs = [
        "name": "bmc150_accel\n", "in_accel_x_raw": "0\n", "in_accel_y_raw": "0\n", "in_accel_z_raw": "512\n",
        "in_accel_scale": "0.009582\n", "buffer/enable": enabled, "in_accel_sampling_frequency": frequency,
        "in_accel_sampling_frequency_available": available,
    ]
    for (i, a) in ["x", "y", "z"].enumerated() {
        attrs["scan_elements/in_accel_\(a)_en"] = "0\n"
        attrs["scan_elements/in_accel_\(a)_index"] = "\(i)\n"
        attrs["scan_elements/in_accel_\(a)_type"] = "le:s12/16>>4\n"
    }
    let s = AttributeSnapshot(
        id: "iio:device0", index: 0, syspath: "/sys/devices/x/iio:device0", devnode: "/dev/iio:device0",
        attributes: attrs, udevProperties: udev, triggerNames: ["bmc150_accel-dev0"])
    return AccelerometerDescription(snapshot: s, configuredMatrix: nil)
}

private let tagged = ["IIO_SENSOR_PROXY_TYPE": "iio-poll-accel iio-buffer-accel"]

@Test(
    arguments: [
        // (buffer/enable, udev properties, iio-sensor-proxy, shared)
        ("0\n", [:], BufferSharing.SensorProxy.bus(running: true), false),  // not a device it reads
        ("0\n", tagged, .noBus, false),  // it cannot run without a bus
        ("0\n", tagged, .bus(running: nil), true),
        ("0\n", tagged, .bus(running: false), true),  // it may start at any time
        ("0\n", tagged, .bus(running: true), true),
        ("1\n", [:], .noBus, true),  // someone else's buffer
        ("1", [:], .noBus, true),  // libiio writes no newline
    ] as [(String, [String: String], BufferSharing.SensorProxy, Bool)])
func sharedWhenAnotherReaderMayBeThere(
    _ enabled: String, _ udev: [String: String],
    _ proxy: BufferSharing.SensorProxy, _ shared: Bool
) {
    #expect((BufferSharing.reason(description(enabled: enabled, udev: udev), sensorProxy: proxy) != nil) == shared)
}

@Test func theReasonNamesTheTagAndTheBus() {
    let why = BufferSharing.reason(description(udev: tagged), sensorProxy: .bus(running: true))
    #expect(
        why == "iio-sensor-proxy may read it (udev IIO_SENSOR_PROXY_TYPE = iio-poll-accel iio-buffer-accel; "
            + "net.hadess.SensorProxy on the system bus: running)")
}

@Test(
    arguments: [
        // (current Hz, wanted rate, written when shared)
        ("125.000000\n", 60.0, nil),  // would be lowered to 62.5: left
        ("15.630000\n", 60.0, 62.5),  // raised
        ("62.500000\n", 60.0, nil),  // already fits
    ] as [(String, Double, Double?)])
func aSharedRateIsOnlyRaised(_ current: String, _ rate: Double, _ written: Double?) {
    let info = description(frequency: current).samplingFrequency!
    #expect(BufferSharing.sharedTarget(info, rateHz: rate) == written)
}

@Test func aRawAttributeTheKernelRefusedIsToldFromOneThatIsMissing() {
    var attrs = [
        "name": "bmc150_accel\n", "in_accel_y_raw": "0\n", "in_accel_z_raw": "512\n", "in_accel_scale": "0.009582\n",
        "buffer/enable": "1\n",
    ]
    for (i, a) in ["x", "y", "z"].enumerated() {
        attrs["scan_elements/in_accel_\(a)_en"] = "1\n"
        attrs["scan_elements/in_accel_\(a)_index"] = "\(i)\n"
        attrs["scan_elements/in_accel_\(a)_type"] = "le:s12/16>>4\n"
    }
    var s = AttributeSnapshot(
        id: "iio:device0", index: 0, syspath: "/sys/devices/x/iio:device0", devnode: "/dev/iio:device0",
        attributes: attrs, udevProperties: [:], triggerNames: [])
    let missing = AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    #expect(!missing.pollCapable && missing.unreadableRaws.isEmpty)
    s.unreadable = ["in_accel_x_raw", "buffer/data_available"]  // listed, but EBUSY on read
    let refused = AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    #expect(!refused.pollCapable && refused.unreadableRaws == ["in_accel_x_raw"])
}

@Test func aHeldNodeIsNamed() {
    #expect(
        BufferSharing.nodeHeldReason(devnode: "/dev/iio:device3")
            == "its device node /dev/iio:device3 is open in another program, which reads the device (EBUSY on open)")
}
