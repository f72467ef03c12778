import Output
import Testing

@testable import Runtime

/// Who looks at the card (`Sink.demand`): each sink's audience against the setting and
/// the claims the bus holds.
struct DemandTests {
    @Test(arguments: [FrameAudience.own, .claimants, .display(unseenBecause: "the display is off (DPMS Off)")])
    func alwaysPaintsForEverySink(audience: FrameAudience) {
        let d = Demand.of(.always, audience: audience, claims: 0)
        #expect(d == Demand(looking: true, reason: "Sink.demand = always"))
    }

    @Test func aSinkThatIsItsOwnReaderIsAlwaysLookedAt() {
        #expect(Demand.of(.auto, audience: .own, claims: 0).looking)
        #expect(Demand.of(.auto, audience: .own, claims: nil).looking)
    }

    @Test(arguments: [
        (0, false, "nobody has claimed the frames"), (1, true, "1 claim on the system bus"),
        (3, true, "3 claims on the system bus"),
    ])
    func sharedMemoryIsLookedAtWhileClaimed(claims: Int, looking: Bool, reason: String) {
        #expect(Demand.of(.auto, audience: .claimants, claims: claims) == Demand(looking: looking, reason: reason))
    }

    /// Without a bus nobody could claim: the frames are painted, as with `always`.
    @Test func withoutABusSharedMemoryIsPainted() {
        let d = Demand.of(.auto, audience: .claimants, claims: nil)
        #expect(d.looking)
        #expect(d.reason == "no system bus: nobody could claim the frames, so they are painted")
    }

    @Test func aDisplayIsLookedAtUnlessItSaysWhyNot() {
        #expect(
            Demand.of(.auto, audience: .display(unseenBecause: nil), claims: 0)
                == Demand(looking: true, reason: "the display is on and its console in front"))
        #expect(
            Demand.of(
                .auto, audience: .display(unseenBecause: "the console is switched away (VT 2 in front)"), claims: 5)
                == Demand(looking: false, reason: "the console is switched away (VT 2 in front)"))
    }
}
