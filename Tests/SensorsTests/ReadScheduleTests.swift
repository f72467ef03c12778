import Testing

@testable import Sensors

/// When the accelerometer is read: at `Sensor.rate`, slowly while still, and in buffer
/// mode when the kernel's batch is due.
struct ReadScheduleTests {
    @Test func timedReadsKeepThePaceAndDoNotPileUpAfterAStall() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        #expect(s.isDue(now: 0))
        s.didRead(now: 0, waited: false, woke: false, gotData: true)
        #expect(!s.isDue(now: 0.009) && s.isDue(now: 0.01))
        #expect(abs(s.timeout(now: 0.004) - 0.006) < 1e-12)
        // A loop that stalled half a second (50 periods) owes two reads more at most, then
        // keeps the pace from there.
        s.didRead(now: 0.5, waited: false, woke: false, gotData: true)
        var owed = 0
        while s.isDue(now: 0.5), owed < 60 {
            s.didRead(now: 0.5, waited: false, woke: false, gotData: true)
            owed += 1
        }
        #expect(owed == 2)
        #expect(abs(s.nextRead - 0.51) < 1e-12)
    }

    @Test func aStillDeviceIsReadSlowlyAndTheFirstMoveRestoresTheRate() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.01)
        s.idlePeriod = 0.1
        #expect(s.period == 0.1 && !s.waitsOnNode)
        s.didRead(now: 0, waited: false, woke: false, gotData: true)
        #expect(!s.isDue(now: 0.05) && s.isDue(now: 0.1))
        s.idlePeriod = nil
        #expect(s.period == 0.01 && s.waitsOnNode && s.isDue(now: 0.05))
    }

    @Test func theKernelsBatchPaceIsLearntFromConsecutiveBatches() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.04)
        s.didRead(now: 0, waited: true, woke: true, gotData: true)
        #expect(abs(s.nextRead - 0.044) < 1e-12)  // a tenth after the expected batch
        s.didRead(now: 0.05, waited: true, woke: true, gotData: true)  // batches 50 ms apart
        #expect(abs(s.batchInterval! - (0.8 * 0.04 + 0.2 * 0.05)) < 1e-12)
        #expect(abs(s.nextSampleExpected(now: 0.06, waitedOnNode: true) - (0.05 + s.batchInterval! - 0.06)) < 1e-12)
        // A gap of two batches is a pause, not the pace.
        let pace = s.batchInterval!
        s.didRead(now: 0.2, waited: true, woke: true, gotData: true)
        #expect(s.batchInterval == pace)
    }

    @Test func aNodeReadableWithoutDataIsNotWaitedOnUntilATimedReadFindsData() {
        var s = ReadSchedule(rateHz: 50)
        s.attached(now: 0, batchInterval: 0.02)
        #expect(s.waitsOnNode)
        s.didRead(now: 0.1, waited: true, woke: true, gotData: false)
        #expect(!s.waitsOnNode && abs(s.nextRead - 0.12) < 1e-12)
        s.didRead(now: 0.12, waited: false, woke: false, gotData: true)
        #expect(s.waitsOnNode)
    }

    @Test func aLateBatchIsLookedForWhenItWasDueAndRefusedReadsWaitASecond() {
        var s = ReadSchedule(rateHz: 100)
        s.attached(now: 0, batchInterval: 0.04)
        s.didRead(now: 0.044, waited: true, woke: false, gotData: false)
        #expect(abs(s.nextRead - 0.084) < 1e-12)
        s.postpone(until: 1.044)
        #expect(!s.isDue(now: 1) && s.isDue(now: 1.044))
    }
}
