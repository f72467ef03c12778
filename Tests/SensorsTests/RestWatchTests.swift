import Testing
@testable import Sensors

/// What tells the daemon that a still device moved: chosen per device and mode; a HID
/// hub's sensitivity read back and its compliance judged; the schedule at rest.
struct RestWatchTests {
    /// A HID hub's accelerometer (hid-sensor-accel-3d), local or remote.
    static func hub(local: Bool = true, hysteresis: String? = "0.000000\n") -> AccelerometerDescription {
        var attrs = ["name": "accel_3d\n", "in_accel_scale": "0.009806650\n"]
        for (i, a) in ["x", "y", "z"].enumerated() {
            attrs["in_accel_\(a)_raw"] = "2\n"
            attrs["scan_elements/in_accel_\(a)_en"] = "0\n"
            attrs["scan_elements/in_accel_\(a)_index"] = "\(i)\n"
            attrs["scan_elements/in_accel_\(a)_type"] = "le:s32/32>>0\n"
        }
        if let hysteresis { attrs["in_accel_hysteresis"] = hysteresis }
        let s = AttributeSnapshot(id: "iio:device3", index: 3, syspath: local ? "/sys/devices/hub/iio:device3" : nil,
                                  devnode: local ? "/dev/iio:device3" : nil, attributes: attrs, udevProperties: [:],
                                  triggerNames: ["accel_3d-dev3"])
        return AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    }

    @Test(arguments: [
        ("input", true, RestWatch.node),
        ("buffer", true, .hysteresis),
        ("poll", true, .read),
        ("buffer", false, .read),
        ("sysfs-poll", false, .read),
    ])
    func eachDeviceGetsTheWatchItsModeAllows(mode: String, hysteresis: Bool, watch: RestWatch) {
        let d = Self.hub(hysteresis: hysteresis ? "0.000000\n" : nil)
        let chosen = RestWatch.choose(d, mode: mode)
        #expect(chosen.watch == watch)
        #expect(!chosen.why.isEmpty)
    }

    @Test func aRemoteHubIsReadOnATimer() {
        // Its hysteresis cannot be read back through sysfs.
        #expect(RestWatch.choose(Self.hub(local: false), mode: "buffer").watch == .read)
        #expect(Self.hub().restHysteresis == "0.000000")
    }

    @Test(arguments: [("0.004000", true), ("0.004\n", true), ("0.0045", true), ("0.000000", false),
                      ("0.010000", false), ("nonsense", false), ("", false), ("nan", false)])
    func theSensitivityReadsBackOnlyAsTheValueWritten(text: String, backs: Bool) {
        #expect(HysteresisCompliance.readsBack(text) == backs)
    }

    @Test func aHubThatSendsEvery200MsWhileStillIsFoundOutAfterTheWindow() {
        var c = HysteresisCompliance()
        var verdict: Double?
        var t = 0.0
        while verdict == nil, t < 10 {
            verdict = c.scans(at: t)
            t += 0.2
        }
        #expect(verdict.map { abs($0 - 5) < 0.1 } == true)
        #expect(t >= HysteresisCompliance.window && t < HysteresisCompliance.window + 0.5)
    }

    @Test func aHubThatHonoursItSendsOnlyWhenMovedAndIsNeverFoundOut() {
        var c = HysteresisCompliance()
        // A scan now and then, when the device was nudged: one every three seconds.
        for k in 0..<20 { #expect(c.scans(at: Double(k) * 3) == nil) }
        // Rest begins again after a move: counting starts over.
        c.restart()
        #expect(c.scans(at: 100) == nil && c.scans(at: 100.1) == nil)
    }

    @Test func atRestTheDevicesOwnWakeupsReplaceTheTimedReadsUntilItMoves() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        s.restBackstop = .infinity
        #expect(s.watchesAtRest && s.period == .infinity)
        s.didRead(now: 1, waited: true, woke: false, gotData: true)
        #expect(!s.isDue(now: 1000) && s.timeout(now: 2) == .infinity)
        // It woke the caller: read every idle period for a second, then nothing timed.
        s.didRead(now: 10, waited: true, woke: true, gotData: true)
        var reads = 0
        var t = 10.0
        while s.timeout(now: t).isFinite {
            t = s.nextRead
            s.didRead(now: t, waited: true, woke: false, gotData: true)
            reads += 1
        }
        #expect((10...11).contains(reads) && t >= 11 - 1e-9 && t < 11.1 + 1e-9)
        // The device moved: full rate at once.
        s.idlePeriod = nil
        #expect(!s.watchesAtRest && s.isDue(now: 2) && s.period == 0.01)
    }

    @Test func aWatchGivenUpAtRestFallsBackToTimedReadsAtOnce() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        s.restBackstop = .infinity
        s.didRead(now: 1, waited: true, woke: false, gotData: true)
        s.restBackstop = nil
        #expect(s.isDue(now: 1.01) && s.period == 0.1)
        // At most the two reads a stalled grid owes, then every 0.1 s.
        var owed = 0
        while s.isDue(now: 1.01), owed < 10 {
            s.didRead(now: 1.01, waited: false, woke: false, gotData: true)
            owed += 1
        }
        #expect(owed <= 3)
        #expect(!s.isDue(now: 1.05) && s.isDue(now: 1.12))
    }

    @Test func aBackstopReadComesEveryBackstopSeconds() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        s.restBackstop = 1.0
        s.didRead(now: 5, waited: true, woke: false, gotData: true)
        #expect(!s.isDue(now: 5.99) && s.isDue(now: 6))
    }
}
