import LoopTestSupport
import Output
import Runtime
import Testing

/// Painting only while someone looks (`Sink.demand`, `Demand`, `DemandHold`), through the
/// loop: a display's audience, the claims on the bus, and what the loop does meanwhile.
struct PipelineDemandTests {
    static let off = FrameAudience.display(unseenBecause: "the display is off")
    static let on = FrameAudience.display(unseenBecause: nil)

    @Test func aDisplayNobodySeesAtStartIdlesAtOnce() throws {
        let loop = try LoopHarness(audience: Self.off)
        loop.run(until: 3)
        #expect(loop.sink.frames.isEmpty)
        #expect(loop.source.suspensions.map(\.why) == ["nobody looks: the display is off"])
        #expect(loop.source.suspensions.map(\.at) == [0])
        #expect(
            loop.log.messages(containing: "idle: ")
                == ["idle: the display is off; the sensor is released and nothing is painted until someone looks"])
        #expect(loop.notifier.states == ["STATUS=idle: the display is off"])
        #expect(loop.source.readingsDelivered == 0)  // the demand is weighed before the first read
    }

    @Test func aDisplaySeenAgainResumesWithAFrameAtOnce() throws {
        let loop = try LoopHarness(audience: Self.off)
        loop.run(until: 2)
        loop.sink.audience = Self.on
        loop.run(until: 4)
        #expect(loop.source.resumptions.last == 2)
        #expect(loop.sink.frameTimes.first == 2)
        #expect(
            loop.log.messages(containing: "resumed: ")
                == [
                    "resumed: the display is on and its console in front; reading the sensor again, with a new baseline"
                ])
        #expect(loop.notifier.sent.contains { $0.state.hasPrefix("READY=1") && $0.at == 2 })
    }

    /// A display switched off and on within a second changes nothing: no line, the sensor
    /// not released.
    @Test func aDisplayOffForLessThanASecondChangesNothing() throws {
        let loop = try LoopHarness(audience: Self.on)
        loop.run(until: 2)
        loop.sink.audience = Self.off
        loop.run(until: 2.8)
        loop.sink.audience = Self.on
        loop.run(until: 5)
        #expect(loop.source.suspensions.isEmpty)
        #expect(loop.log.messages(containing: "idle").isEmpty)
    }

    @Test func aDisplayOffForGoodIdlesOneSecondAfterItWasLastSeen() throws {
        let loop = try LoopHarness(audience: Self.on)
        loop.run(until: 2)
        loop.sink.audience = Self.off
        loop.run(until: 5)
        let idle = try #require(loop.source.suspensions.first)
        #expect(idle.at >= 2.99 - 1e-9 && idle.at <= 3 + 1e-9)
        #expect(loop.source.suspensions.count == 1)
    }

    @Test func unclaimedTheLoopIdlesAndAClaimBringsAFrameAtOnce() throws {
        let loop = try LoopHarness(audience: .claimants, bus: true)
        let bus = try #require(loop.channel)
        bus.claim(at: 2)
        loop.run(until: 4)
        #expect(loop.source.suspensions.map(\.at) == [0])
        #expect(loop.log.messages(containing: "idle: nobody has claimed the frames").count == 1)
        #expect(loop.source.resumptions.last == 2)
        #expect(loop.sink.frameTimes.first == 2)
        #expect(loop.log.messages(containing: "resumed: 1 claim on the system bus").count == 1)
    }

    @Test func theEndOfTheLastClaimIdlesASecondLater() throws {
        let loop = try LoopHarness(audience: .claimants, bus: true)
        let bus = try #require(loop.channel)
        bus.claim(at: 1)
        bus.release(at: 4)
        loop.run(until: 8)
        #expect(loop.source.suspensions.count == 2)
        let second = loop.source.suspensions[1].at
        #expect(second >= 4.99 - 1e-9 && second <= 5 + 1e-9)
        #expect(loop.sink.frameTimes.allSatisfy { $0 < 5 })
    }

    /// A claim taken and given back within one wakeup still counts: someone looked.
    @Test func aClaimTakenAndReleasedAtOnceCountsAsALook() throws {
        let loop = try LoopHarness(audience: .claimants, bus: true)
        let bus = try #require(loop.channel)
        bus.claimAndRelease(at: 2)
        loop.run(until: 5)
        #expect(loop.source.resumptions.last == 2)
        #expect(loop.sink.frameTimes.first == 2)
        #expect(loop.source.suspensions.count == 2)
    }

    @Test func withoutABusNobodyCouldClaimSoTheFramesArePainted() throws {
        let loop = try LoopHarness(audience: .claimants, bus: false)
        loop.run(until: 2)
        #expect(loop.source.suspensions.isEmpty)
        #expect(loop.sink.frameTimes.first == 0)
    }

    @Test func demandAlwaysPaintsWithoutAnyClaim() throws {
        let loop = try LoopHarness(demand: .always, audience: .claimants, bus: true)
        loop.run(until: 2)
        #expect(loop.source.suspensions.isEmpty)
        #expect(loop.sink.frameTimes.first == 0)
    }

    /// Idle, nothing of the loop's own wakes it: once the bus has said the state, the
    /// loop sleeps until the deadline.
    @Test func anIdleLoopSleepsUntilSomethingHappens() throws {
        let loop = try LoopHarness(audience: .claimants, bus: true)
        loop.run(until: 10)
        #expect(loop.clock.waits(in: 1...10).isEmpty)
        #expect(loop.sink.maintenanceCalls == 0)
    }

    @Test func theBusIsToldTheStateAndTheFramesPublished() throws {
        let loop = try LoopHarness(audience: .claimants, bus: true)
        let bus = try #require(loop.channel)
        bus.claim(at: 1)
        loop.run(until: 3)
        // No device attachment to show: while painting, the state is "waiting".
        #expect(bus.states == ["idle", "waiting"])
        #expect(bus.published.last?.status.frames == UInt64(loop.sink.frames.count))
        #expect(bus.published.last?.status.sink == "recording")
    }

    @Test func recalibrateOnTheBusRecapturesTheBaseline() throws {
        let loop = try LoopHarness(path: .roll(0.2, from: 0.5, over: 1), demand: .always, bus: true)
        let bus = try #require(loop.channel)
        bus.recalibrate(by: ":1.42", at: 3)
        loop.run(until: 8)
        let origin = try #require(loop.sink.frames.first).info
        let beforeRecapture = try #require(loop.sink.frames.last { $0.at < 3 }).info
        let last = try #require(loop.sink.frames.last).info
        #expect(abs(beforeRecapture.focalX - origin.focalX) > 10)
        #expect(abs(last.focalX - origin.focalX) < 0.5)
    }
}
