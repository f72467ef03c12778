import Testing

@testable import Sensors

/// What the hotplug watch makes of a udev event: its action, its device, and (for the
/// device whose buffer is read) the tag iio-sensor-proxy reads devices by.
struct HotplugWatchTests {
    static let accel = "/sys/devices/platform/kxtf9/iio:device0"
    static let other = "/sys/devices/platform/hub/iio:device3"

    typealias Case = (
        action: String, syspath: String, bufferOf: String?, proxy: BufferSharing.SensorProxy,
        type: String?, change: HotplugWatch.Change?
    )

    static let cases: [Case] = [
        ("remove", accel, accel, .bus(running: true), nil, .removed(syspath: accel)),
        ("remove", other, nil, .noBus, nil, .removed(syspath: other)),
        ("add", other, nil, .noBus, nil, .appeared(syspath: other)),
        ("change", other, accel, .bus(running: true), "accel", .appeared(syspath: other)),
        // The device read from its buffer, tagged for iio-sensor-proxy while it runs: given back.
        (
            "change", accel, accel, .bus(running: true), "accel",
            .bufferWanted(
                syspath: accel,
                why: "udev change event: iio-sensor-proxy may read it (udev IIO_SENSOR_PROXY_TYPE = accel; "
                    + "net.hadess.SensorProxy on the system bus: running)")
        ),
        // Not running now, but it may start at any time: given back too.
        (
            "change", accel, accel, .bus(running: false), "accel",
            .bufferWanted(
                syspath: accel,
                why: "udev change event: iio-sensor-proxy may read it (udev IIO_SENSOR_PROXY_TYPE = accel; "
                    + "net.hadess.SensorProxy on the system bus: not running now, but may start at any time)")
        ),
        // Untagged, or no bus at all: nothing to give back; it may have a gyroscope now.
        ("change", accel, accel, .bus(running: true), nil, .appeared(syspath: accel)),
        ("change", accel, accel, .noBus, "accel", .appeared(syspath: accel)),
        ("bind", other, nil, .noBus, nil, nil),
        ("unbind", accel, accel, .bus(running: true), "accel", nil),
        ("move", other, nil, .noBus, nil, nil),
    ]

    @Test(arguments: cases)
    func aUdevEventSaysWhatChanged(_ c: Case) {
        let change = HotplugWatch.change(
            action: c.action, syspath: c.syspath, bufferOf: c.bufferOf, sensorProxy: c.proxy,
            sensorProxyType: c.type)
        #expect(change == c.change)
    }

    @Test func theTagIsLookedAtOnlyForTheDeviceWhoseBufferIsRead() {
        var looked = 0
        func type() -> String? {
            looked += 1
            return "accel"
        }
        _ = HotplugWatch.change(
            action: "change", syspath: Self.other, bufferOf: Self.accel, sensorProxy: .bus(running: true),
            sensorProxyType: type())
        _ = HotplugWatch.change(
            action: "add", syspath: Self.accel, bufferOf: Self.accel, sensorProxy: .bus(running: true),
            sensorProxyType: type())
        #expect(looked == 0)
        _ = HotplugWatch.change(
            action: "change", syspath: Self.accel, bufferOf: Self.accel, sensorProxy: .bus(running: true),
            sensorProxyType: type())
        #expect(looked == 1)
    }

    @Test(arguments: [
        (BufferSharing.SensorProxy.noBus, "there is no system bus"),
        (.disconnected, "the system bus connection was lost; until it is back, iio-sensor-proxy may be running"),
        (.bus(running: true), "net.hadess.SensorProxy appeared on the system bus"),
        (.bus(running: false), "net.hadess.SensorProxy is not on the system bus"),
        (.bus(running: nil), "net.hadess.SensorProxy is not on the system bus"),
    ])
    func iioSensorProxysStateIsSaidInOneLine(_ state: BufferSharing.SensorProxy, _ text: String) {
        #expect(HotplugWatch.text(state) == text)
    }

    @Test func aRemoteSensorHasNothingToWatch() throws {
        let w = try HotplugWatch(local: false, log: quietLog)
        var fds: [Int32] = []
        w.appendFileDescriptors(to: &fds)
        #expect(fds.isEmpty)
        #expect(w.timeout(now: 0) == .infinity)
        #expect(w.sensorProxyState == .noBus)
        #expect(w.udevContext === nil)
        var changes: [HotplugWatch.Change] = []
        w.take(readable: [0, 1, 2], now: 0, bufferOf: nil, into: &changes)
        #expect(changes.isEmpty)
        #expect(!w.isRemoved(Self.accel) && !w.isRemoved(nil))
    }
}

/// A switch's changes go on at most every interval, the newest last: a change after a
/// quiet spell at once; changes within the interval held, only the newest handed on when
/// it ends; the timeout says when.
@Test func aTabletModeSwitchsChangesAreHandedOnAtMostEveryIntervalTheNewestLast() {
    var hold = TabletModeHold(interval: 0.5)
    #expect(hold.due(now: 0) == nil && hold.timeout(now: 0) == .infinity)
    hold.changed("tablet mode")
    #expect(hold.due(now: 10) == "tablet mode")
    #expect(hold.due(now: 10.1) == nil)
    hold.changed("laptop mode")
    hold.changed("tablet mode")
    hold.changed("laptop mode")
    #expect(abs(hold.timeout(now: 10.2) - 0.3) < 1e-12)
    #expect(hold.due(now: 10.2) == nil)
    #expect(hold.due(now: 10.5) == "laptop mode")
    #expect(hold.timeout(now: 10.5) == .infinity && hold.due(now: 11) == nil)
    // A flood: 1000 changes over 2 s give one change every 0.5 s, the last one's state last.
    var handed: [Double] = []
    for k in 0..<1000 {
        let now = 20 + Double(k) * 0.002
        hold.changed(k % 2 == 0 ? "tablet mode" : "laptop mode")
        if hold.due(now: now) != nil { handed.append(now) }
    }
    #expect(handed.count == 4)
    #expect(hold.due(now: 22.5) == "laptop mode")
}
