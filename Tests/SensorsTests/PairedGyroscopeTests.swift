import Motion
import Testing

@testable import Sensors

/// The paired gyroscope's own decisions: when to look for one, which one is taken up, why
/// one found is not used (said once), and what the status shows meanwhile.
struct PairedGyroscopeTests {
    @Test func aDeviceThatAppearsAsksForALookOnceWhileNoneIsUsed() {
        let g = PairedGyroscope()
        #expect(!g.takeLookupDue())
        g.noteDeviceAppeared(selector: .auto)
        g.noteDeviceAppeared(selector: .auto)  // a burst of events: one look
        #expect(g.takeLookupDue())
        #expect(!g.takeLookupDue())
        g.noteDeviceAppeared(selector: .auto)
        g.cancelLookup()  // the accelerometer was released
        #expect(!g.takeLookupDue())
    }

    @Test func noGyroscopeIsLookedForWhenNoneIsWanted() {
        let g = PairedGyroscope()
        g.noteDeviceAppeared(selector: .none)
        #expect(!g.takeLookupDue())
    }

    @Test func withSensorGyroNoneNothingIsTakenUp() throws {
        let device = try SysfsAccelerometer(gyroscope: true)
        let gyroscopes = try [#require(GyroscopeDescription(snapshot: device.snapshot))]
        let g = PairedGyroscope()
        let r = g.takeUp(
            accelerometer: device.description, driver: try device.driver(), gyroscopes: gyroscopes,
            settings: AccelerometerSettings(gyro: .none), sensorProxy: .noBus)
        guard case .nothing(let why) = r else {
            Issue.record("\(r)")
            return
        }
        #expect(why == "Sensor.gyro = none")
        #expect(!g.isUsed && g.shown == nil)
    }

    @Test func withoutAGyroscopeNothingIsTakenUp() throws {
        let device = try SysfsAccelerometer()
        let g = PairedGyroscope()
        let r = g.takeUp(
            accelerometer: device.description, driver: try device.driver(), gyroscopes: [],
            settings: AccelerometerSettings(), sensorProxy: .noBus)
        guard case .nothing = r else {
            Issue.record("\(r)")
            return
        }
        #expect(!g.isUsed)
    }

    @Test func aGyroscopeFoundButNotReadIsRefusedAndSaidOnce() throws {
        // The accelerometer's own gyroscope, which the sysfs driver does not read.
        let device = try SysfsAccelerometer(gyroscope: true)
        let gyroscopes = try [#require(GyroscopeDescription(snapshot: device.snapshot))]
        let driver = try device.driver()
        let g = PairedGyroscope()
        // The attach found none usable and said why; the status shows it.
        _ = g.start(
            GyroPairing(gyro: nil, reason: "no gyroscope"), accelerometer: device.description, driver: driver,
            context: nil, local: true, settings: AccelerometerSettings())
        #expect(g.shown?.reason == "no gyroscope")
        var lines: [String] = []
        for _ in 0..<2 {
            let r = g.takeUp(
                accelerometer: device.description, driver: driver, gyroscopes: gyroscopes,
                settings: AccelerometerSettings(), sensorProxy: .noBus)
            guard case .refused(let line, let saidBefore) = r else {
                Issue.record("\(r)")
                return
            }
            #expect(line == "gyroscope found but not used: iio:device0 (kxtf9) is not read in sysfs-poll mode")
            #expect(saidBefore == !lines.isEmpty)
            lines.append(line)
        }
        #expect(!g.isUsed)
        #expect(g.shown?.reason == "no gyroscope")
    }
}
