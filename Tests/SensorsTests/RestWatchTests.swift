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
        let s = AttributeSnapshot(
            id: "iio:device3", index: 3, syspath: local ? "/sys/devices/hub/iio:device3" : nil,
            devnode: local ? "/dev/iio:device3" : nil, attributes: attrs, udevProperties: [:],
            triggerNames: ["accel_3d-dev3"])
        return AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    }

    @Test(arguments: [
        (DriverMode.input, true, RestWatch.node),
        (.buffer, true, .hysteresis),
        (.poll, true, .read),
        (.buffer, false, .read),
        (.sysfsPoll, false, .read),
    ])
    func eachDeviceGetsTheWatchItsModeAllows(mode: DriverMode, hysteresis: Bool, watch: RestWatch) {
        let d = Self.hub(hysteresis: hysteresis ? "0.000000\n" : nil)
        let chosen = RestWatch.choose(d, mode: mode)
        #expect(chosen.watch == watch)
        #expect(!chosen.why.isEmpty)
    }

    @Test func aRemoteHubIsReadOnATimer() {
        // Its hysteresis cannot be read back through sysfs.
        #expect(RestWatch.choose(Self.hub(local: false), mode: .buffer).watch == .read)
        #expect(Self.hub().restHysteresis == "0.000000")
    }

    @Test(arguments: [
        ("0.004000", true), ("0.004\n", true), ("0.0045", true), ("0.000000", false),
        ("0.010000", false), ("nonsense", false), ("", false), ("nan", false),
    ])
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

    /// A backstop read the rest gate doubted: ten reads at full rate settle it, then the
    /// backstop's pace again; a look under way is not lengthened by a second doubt.
    @Test func aDoubtedBackstopReadIsFollowedByATenthOfASecondAtFullRate() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        s.restBackstop = 1.0
        s.didRead(now: 5, waited: true, woke: false, gotData: true)
        s.lookCloser(now: 5)
        #expect(abs(s.nextRead - 5.01) < 1e-12)
        var t = 5.0
        var reads: [Double] = []
        while t < 7 {
            t = s.nextRead
            reads.append(t)
            s.didRead(now: t, waited: true, woke: false, gotData: true)
            if t < 5.09 { s.lookCloser(now: t) }  // still doubted: the look is not lengthened
            if t > 5.2 { break }
        }
        #expect(reads.filter { $0 < 5.1 + 1e-9 }.count == ReadSchedule.closerReads)
        #expect(abs(reads.last! - 6.1) < 1e-9, "after the look, the next read is a backstop's: \(reads)")
    }

    /// A motion event woke the caller: ten reads at full rate (the scan that shows the
    /// motion may come after the event), then every idle period to the end of the
    /// confirming second, then the backstop's pace.
    @Test func aMotionEventIsFollowedByTenReadsAtFullRateThenTheConfirmingOnes() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        s.restBackstop = 1.0
        s.didRead(now: 5, waited: true, woke: true, gotData: true)
        var reads: [Double] = []
        var t = 5.0
        while reads.count < 40 {
            t = s.nextRead
            if t > 8 { break }
            reads.append(t)
            s.didRead(now: t, waited: true, woke: false, gotData: true)
        }
        let gaps = zip(reads, [5.0] + reads).map { (($0 - $1) * 1000).rounded() / 1000 }
        #expect(gaps.prefix(ReadSchedule.closerReads - 1).allSatisfy { $0 == 0.01 }, "\(gaps)")
        #expect(gaps.dropFirst(ReadSchedule.closerReads - 1).prefix(9).allSatisfy { $0 == 0.1 }, "\(gaps)")
        #expect(gaps.last == 1.0 && reads.last! < 7.1, "\(gaps)")
    }

    @Test func aDoubtChangesNothingWhereTheDeviceIsNotReadOnABackstop() {
        // Read every idle period at rest (no watch of its own): no look needed.
        var timed = ReadSchedule(rateHz: 100)
        timed.attached(now: 0, batchInterval: 0.01)
        timed.idlePeriod = 0.1
        timed.didRead(now: 5, waited: false, woke: false, gotData: true)
        let due = timed.nextRead
        timed.lookCloser(now: 5)
        #expect(timed.nextRead == due)
        // A node that reports its changes itself (no backstop read): nothing timed at all.
        var node = ReadSchedule(rateHz: 100)
        node.attached(now: 0, batchInterval: 0.01)
        node.idlePeriod = 0.1
        node.restBackstop = .infinity
        node.didRead(now: 5, waited: true, woke: false, gotData: true)
        node.lookCloser(now: 5)
        #expect(node.timeout(now: 5) == .infinity)
        // Moving: reads are at full rate anyway.
        var moving = ReadSchedule(rateHz: 100)
        moving.attached(now: 0, batchInterval: 0.01)
        moving.didRead(now: 5, waited: false, woke: false, gotData: true)
        let next = moving.nextRead
        moving.lookCloser(now: 5)
        #expect(moving.nextRead == next)
    }
}

/// The records of a device's event stream, and which devices' motion events are used.
struct MotionEventTests {
    /// `IIO_EVENT_CODE(chan_type, diff, modifier, direction, type, chan, ...)` of
    /// include/linux/iio/events.h, built independently of the decoder.
    static func code(channelType: UInt64, modifier: UInt64 = 1, direction: UInt64 = 0, type: UInt64 = 2) -> UInt64 {
        (type << 56) | (direction << 48) | (modifier << 40) | (channelType << 32)
    }

    static func records(_ codes: [UInt64], extra: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        for (k, c) in codes.enumerated() {
            withUnsafeBytes(of: c) { bytes += $0 }
            withUnsafeBytes(of: Int64(1_000_000_000 + k)) { bytes += $0 }
        }
        return bytes + [UInt8](repeating: 0xAB, count: extra)
    }

    @Test func accelerationEventsOfEveryAxisAndTypeAreMotions() {
        // bmc150's rate of change on x, y and z (either direction); a magnitude, rising, on
        // x|y|z (the mma8452 family); a threshold (kxcjk-1013's wake-up).
        let bytes = Self.records([
            Self.code(channelType: 3, modifier: 1), Self.code(channelType: 3, modifier: 2),
            Self.code(channelType: 3, modifier: 3),
            Self.code(channelType: 3, modifier: 8, direction: 1, type: 1),
            Self.code(channelType: 3, type: 0),
        ])
        let r = bytes.withUnsafeBytes { MotionEventRecords($0) }
        #expect(r.motions == 5 && r.problem == nil)
    }

    @Test func aRecordOfAnotherChannelIsNamedAndTheRestCount() {
        // IIO_ANGL_VEL (4): a gyroscope's event in the same stream.
        let r = Self.records([Self.code(channelType: 4), Self.code(channelType: 3)]).withUnsafeBytes {
            MotionEventRecords($0)
        }
        #expect(r.motions == 1)
        #expect(r.problem?.contains("channel type 4, not an acceleration") == true)
    }

    @Test(arguments: [1, 10, 15])
    func bytesThatAreNoWholeRecordAreSaidWithTheirCount(extra: Int) {
        let r = Self.records([Self.code(channelType: 3)], extra: extra).withUnsafeBytes { MotionEventRecords($0) }
        #expect(r.motions == 1)
        #expect(r.problem == "\(16 + extra) bytes, not a whole number of 16-byte records")
    }

    @Test func nothingReadIsNoMotionAndNoProblem() {
        let r = [UInt8]().withUnsafeBytes { MotionEventRecords($0) }
        #expect(r.motions == 0 && r.problem == nil)
    }

    /// A bmc150 with its rate-of-change events, with or without its any-motion trigger.
    static func bmc150(trigger: Bool, local: Bool = true) -> AccelerometerDescription {
        let name = "BMA253/BMA254/BMA255/BMC150/BMC156/BMI055"
        return withEvents(
            name: name, kind: "roc_either", index: 0,
            triggers: trigger ? [name + "-dev0", name + "-any-motion-dev0"] : [], local: local)
    }

    /// A device of `name` with `events/in_accel_{x,y,z}_<kind>_{en,value,period}` and the
    /// triggers `triggers`, as the kernel lists them for iio:device`index` (over the network
    /// with `local` false: no syspath, no node).
    static func withEvents(
        name: String, kind: String, index: Int, triggers: [String], local: Bool = true
    ) -> AccelerometerDescription {
        var attrs = ["name": name + "\n", "in_accel_scale": "0.009582\n"]
        for a in ["x", "y", "z"] {
            attrs["in_accel_\(a)_raw"] = "2\n"
            for f in ["en", "value", "period"] { attrs["events/in_accel_\(a)_\(kind)_\(f)"] = "0\n" }
        }
        let s = AttributeSnapshot(
            id: "iio:device\(index)", index: index, syspath: local ? "/sys/devices/i2c/iio:device\(index)" : nil,
            devnode: local ? "/dev/iio:device\(index)" : nil, attributes: attrs, udevProperties: [:],
            triggerNames: triggers)
        return AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    }

    @Test(arguments: [DriverMode.poll, .buffer, .sysfsPoll])
    func aBmc150WithItsInterruptGetsEventsInEveryMode(mode: DriverMode) {
        let d = Self.bmc150(trigger: true)
        #expect(
            d.motionEventEnables == [
                "events/in_accel_x_roc_either_en", "events/in_accel_y_roc_either_en",
                "events/in_accel_z_roc_either_en",
            ])
        let chosen = RestWatch.choose(d, mode: mode)
        #expect(chosen.watch == .events && chosen.watch.backstop == 1)
        #expect(chosen.why.contains("in_accel_x_roc_either_en"))
    }

    /// kxcjk-1013 and mma8452 list their events whether or not the interrupt is wired; the
    /// trigger the driver registers with it (`-any-motion-devN`, `-devN`) decides. An
    /// SMO8500 (whose interrupt kxcjk-1013 never takes) and an mma8452 on a board without
    /// the line are read ten times a second; a device of another driver with events gets
    /// them.
    @Test func kxcjkAndMma8452EventsNeedTheTriggerTheirInterruptBrings() {
        let cases: [(name: String, kind: String, triggers: [String], watch: RestWatch, why: String?)] = [
            ("KIOX010A:00", "thresh_either", ["KIOX010A:00-dev1", "KIOX010A:00-any-motion-dev1"], .events, nil),
            ("SMO8500:00", "thresh_either", [], .read, "no SMO8500:00-any-motion-dev1 trigger"),
            ("kxcjk1013", "thresh_either", ["kxcjk1013-dev1"], .read, "no kxcjk1013-any-motion-dev1 trigger"),
            ("mma8452", "mag_rising", ["mma8452-dev1"], .events, nil),
            ("mma8653", "mag_rising", [], .read, "no mma8653-dev1 trigger"),
            ("fxls8962af", "mag_rising", [], .events, nil),
        ]
        for c in cases {
            let d = Self.withEvents(name: c.name, kind: c.kind, index: 1, triggers: c.triggers)
            let chosen = RestWatch.choose(d, mode: .poll)
            #expect(chosen.watch == c.watch, "\(c.name): \(chosen.why)")
            if let why = c.why { #expect(chosen.why.contains(why), "\(c.name): \(chosen.why)") }
        }
    }

    @Test func aBmc150WithoutItsInterruptOrARemoteOneIsReadOnATimer() {
        let unwired = RestWatch.choose(Self.bmc150(trigger: false), mode: .poll)
        #expect(unwired.watch == .read)
        #expect(unwired.why.contains("no BMA253/BMA254/BMA255/BMC150/BMC156/BMI055-any-motion-dev0 trigger"))
        #expect(RestWatch.choose(Self.bmc150(trigger: true, local: false), mode: .poll).watch == .read)
    }
}
