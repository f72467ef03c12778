import Testing

@testable import Runtime

/// `DemandHold`: someone looking resumes at once; nobody looking idles only after
/// `idleAfter` seconds without anyone; a storm of claims and releases changes the state
/// once. Time is passed in.
struct DemandHoldTests {
    private static let nobody = Demand(looking: false, reason: "nobody has claimed the frames")
    private static let claimed = Demand(looking: true, reason: "1 claim on the system bus")
    private static let idle = DemandHold.Change.idle("nobody has claimed the frames")
    private static let resumed = DemandHold.Change.resumed("1 claim on the system bus")

    /// What `update` says at each step (nil: nothing), steps of (someone looks, time).
    private static func changes(_ hold: inout DemandHold, _ steps: [(Bool, Double)]) -> [DemandHold.Change?] {
        steps.map { hold.update($0.0 ? claimed : nobody, at: $0.1) }
    }

    @Test func nobodyLookingAtTheStartIdlesAtOnce() {
        var hold = DemandHold()
        #expect(Self.changes(&hold, [(false, 0), (false, 0.1)]) == [Self.idle, nil])
        #expect(hold.isIdle)
        #expect(hold.idleDue(now: 0.1) == nil, "idle already: nothing to wake for")
    }

    @Test func aClaimResumesAtOnceAndItsEndIdlesOnlyAfterTheHold() {
        var hold = DemandHold(idleAfter: 1)
        let said = Self.changes(&hold, [(false, 0), (true, 5), (true, 6), (false, 6.5)])
        #expect(said == [Self.idle, Self.resumed, nil, nil], "6.5 is within the hold of the last look (6)")
        #expect(hold.idleDue(now: 6.5) == 0.5)
        #expect(Self.changes(&hold, [(false, 6.99), (false, 7)]) == [nil, Self.idle])
        #expect(hold.isIdle)
    }

    /// Claim and release every half millisecond for 10 s: one resume at the first claim,
    /// no change during the storm, one idle a second after its last claim.
    @Test func aStormOfClaimsAndReleasesChangesTheStateTwice() {
        var hold = DemandHold(idleAfter: 1)
        var steps: [(Bool, Double)] = [(false, 0)]
        steps += (0..<20_000).map { ($0 % 2 == 0, 1 + Double($0) * 0.0005) }
        steps += (0..<8).map { (false, 11 + Double($0) * 0.25) }
        #expect(Self.changes(&hold, steps).compactMap { $0 } == [Self.idle, Self.resumed, Self.idle])
    }

    /// A look within the hold starts it again: idling comes `idleAfter` after the last one.
    @Test func aLookWithinTheHoldStartsItAgain() {
        var hold = DemandHold(idleAfter: 1)
        #expect(Self.changes(&hold, [(true, 0), (false, 0.9), (true, 0.95), (false, 1.5)]) == [nil, nil, nil, nil])
        #expect(abs((hold.idleDue(now: 1.5) ?? 0) - 0.45) < 1e-9)
        #expect(Self.changes(&hold, [(false, 1.95)]) == [Self.idle])
    }
}
