import Testing
@testable import Runtime

/// `DemandHold`: someone looking resumes at once; nobody looking idles only after
/// `idleAfter` seconds without anyone; a storm of claims and releases changes the state
/// once. Time is passed in.
struct DemandHoldTests {
    private let nobody = Demand(looking: false, reason: "nobody has claimed the frames")
    private let claimed = Demand(looking: true, reason: "1 claim on the system bus")

    @Test func nobodyLookingAtTheStartIdlesAtOnce() {
        var hold = DemandHold()
        #expect(hold.update(nobody, at: 0) == .idle("nobody has claimed the frames"))
        #expect(hold.isIdle)
        #expect(hold.update(nobody, at: 0.1) == nil)
        #expect(hold.idleDue(now: 0.1) == nil, "idle already: nothing to wake for")
    }

    @Test func aClaimResumesAtOnceAndItsEndIdlesOnlyAfterTheHold() {
        var hold = DemandHold(idleAfter: 1)
        _ = hold.update(nobody, at: 0)
        #expect(hold.update(claimed, at: 5) == .resumed("1 claim on the system bus"))
        #expect(hold.update(claimed, at: 6) == nil)
        #expect(hold.update(nobody, at: 6.5) == nil, "within the hold of the last look (6)")
        #expect(hold.idleDue(now: 6.5) == 0.5)
        #expect(hold.update(nobody, at: 6.99) == nil)
        #expect(hold.update(nobody, at: 7) == .idle("nobody has claimed the frames"))
        #expect(hold.isIdle)
    }

    /// Claim and release every millisecond for 10 s: one resume at the first claim, no
    /// change during the storm, one idle a second after its last claim.
    @Test func aStormOfClaimsAndReleasesChangesTheStateTwice() {
        var hold = DemandHold(idleAfter: 1)
        var changes: [DemandHold.Change] = []
        if let c = hold.update(nobody, at: 0) { changes.append(c) }
        for i in 0..<20_000 {
            let t = 1 + Double(i) * 0.0005
            if let c = hold.update(i % 2 == 0 ? claimed : nobody, at: t) { changes.append(c) }
        }
        var t = 11.0
        while t < 13 {
            if let c = hold.update(nobody, at: t) { changes.append(c) }
            t += 0.25
        }
        #expect(changes == [.idle("nobody has claimed the frames"), .resumed("1 claim on the system bus"),
                            .idle("nobody has claimed the frames")])
    }

    /// A look within the hold starts it again: idling comes `idleAfter` after the last one.
    @Test func aLookWithinTheHoldStartsItAgain() {
        var hold = DemandHold(idleAfter: 1)
        _ = hold.update(claimed, at: 0)
        #expect(hold.update(nobody, at: 0.9) == nil)
        #expect(hold.update(claimed, at: 0.95) == nil)
        #expect(hold.update(nobody, at: 1.5) == nil)
        #expect(abs((hold.idleDue(now: 1.5) ?? 0) - 0.45) < 1e-9)
        #expect(hold.update(nobody, at: 1.95) == .idle("nobody has claimed the frames"))
    }
}
