import Testing
import TestSupport
@testable import Motion

/// The baseline comes from a device at rest: a fold still moving when the recapture is
/// asked for is not in it, a device that never rests gets one after `restLimit` (and is
/// told so), and with the filter off the spec's first samples are the baseline.
struct BaselineCaptureTests {
    /// Leaned back by `lean` radians from upright: the up direction.
    static func up(lean: Double) -> Vector3 { Vector3(0, _cos(lean), _sin(lean)) }

    /// A lid folding from `from` to `to` within `seconds` (a smooth start and end).
    static func fold(_ t: Double, from: Double = 0.26, to: Double = 1.3, seconds: Double = 1.5) -> Double {
        let s = min(max(t / seconds, 0), 1)
        return from + (to - from) * s * s * (3 - 2 * s)
    }

    static func angle(_ a: Vector3, _ b: Vector3) -> Double { (a.normalized! - b.normalized!).length }

    /// Feeds `up(t)` at 100 Hz from `start` until the baseline is done: its up and rest
    /// flag, and when.
    static func capture(_ c: inout BaselineCapture, from start: Double = 0, noise: Double = 0.005,
                        seed: UInt64 = 1, sigma: Double = 0, _ up: (Double) -> Vector3)
        -> (up: Vector3, rested: Bool, at: Double)?
    {
        var n = Noise(seed: seed)
        for i in 0..<1000 {
            let t = start + Double(i) * 0.01
            let u = (up(t) + Vector3(n.gaussian(), n.gaussian(), n.gaussian()) * sigma).normalized!
            if case .done(let sum, let rested) = c.add(u, usable: true, at: t, noise: noise) {
                return (sum.normalized!, rested, t)
            }
        }
        return nil
    }

    @Test func aDeviceAtRestGivesItsBaselineAfterTheSettleTime() throws {
        var c = BaselineCapture(samples: 10, requireRest: true)
        let got = try #require(Self.capture(&c) { _ in Self.up(lean: 0.26) })
        #expect(got.rested && Self.angle(got.up, Self.up(lean: 0.26)) < 1e-12)
        #expect(got.at >= BaselineCapture.settleTime && got.at < BaselineCapture.settleTime + 0.05)
    }

    /// Asked for mid-fold (the tablet-mode switch at a lean of 1.1 rad, 0.2 rad to go):
    /// the baseline is the pose the lid comes to rest in, noiseless and with 2 LSB of noise.
    @Test(arguments: [0.0, 0.002])
    func aFoldStillMovingIsNotInTheBaseline(_ sigma: Double) throws {
        var c = BaselineCapture(samples: 10, requireRest: true)
        // The fold passes 1.1 rad at about 1.06 s of its 1.5 s.
        var switchAt = 0.0
        while Self.fold(switchAt) < 1.1 { switchAt += 0.01 }
        let got = try #require(Self.capture(&c, from: switchAt, noise: 0.005, sigma: sigma) {
            Self.up(lean: Self.fold($0))
        })
        #expect(got.rested)
        #expect(got.at > 1.5 && got.at < 1.5 + 0.6)   // at rest from 1.5 s
        // A reading 0.02 rad off in 40 moves the mean by 5e-4; the noise's own share is
        // about 2e-3 / sqrt(40).
        #expect(Self.angle(got.up, Self.up(lean: 1.3)) < (sigma == 0 ? 1e-4 : 1e-3))
    }

    @Test func aDeviceThatNeverRestsGetsItsLastReadingsAfterTheLimit() throws {
        var c = BaselineCapture(samples: 10, requireRest: true)
        // Turning steadily at 0.2 rad/s.
        let got = try #require(Self.capture(&c) { Self.up(lean: 0.2 * $0) })
        #expect(!got.rested)
        #expect(abs(got.at - BaselineCapture.restLimit) < 0.015)
        // The mean of about the last 0.4 s: 0.2 s behind the newest reading.
        #expect(Self.angle(got.up, Self.up(lean: 0.2 * (got.at - 0.2))) < 0.01)
    }

    @Test func readingsFromBeforeTheRequestAndOutsideTheGBandAreNotUsed() throws {
        var c = BaselineCapture(samples: 10, requireRest: true)
        c.restart(notBefore: 1.0)
        // A batch read late: 0.2 s of the old pose dated before the request, then the new.
        for i in 0..<20 {
            #expect(c.add(Self.up(lean: 0), usable: true, at: 0.8 + Double(i) * 0.01, noise: 0.005)
                    == .collecting(have: 0, need: 10, used: false))
        }
        let got = try #require(Self.capture(&c, from: 1.0) { _ in Self.up(lean: 1.0) })
        #expect(Self.angle(got.up, Self.up(lean: 1.0)) < 1e-12)
        // A reading outside [0.5 g, 1.5 g] (a shake) starts the rest over.
        var d = BaselineCapture(samples: 10, requireRest: true)
        for i in 0..<30 { _ = d.add(Self.up(lean: 0), usable: true, at: Double(i) * 0.01, noise: 0.005) }
        #expect(d.add(Self.up(lean: 0), usable: false, at: 0.30, noise: 0.005) == .collecting(have: 0, need: 10, used: false))
        let after = try #require(Self.capture(&d, from: 0.31) { _ in Self.up(lean: 0) })
        #expect(after.at >= 0.30 + BaselineCapture.settleTime)
    }

    /// The spec's rule with the filter off: the first samples, moving or not.
    @Test func withoutTheRestRuleTheFirstSamplesAreTheBaseline() {
        var c = BaselineCapture(samples: 3, requireRest: false)
        #expect(c.add(Self.up(lean: 0), usable: true, at: 0, noise: 0.005) == .collecting(have: 1, need: 3, used: true))
        #expect(c.add(Self.up(lean: 0.5), usable: false, at: 0.01, noise: 0.005) == .collecting(have: 1, need: 3, used: false))
        _ = c.add(Self.up(lean: 0.1), usable: true, at: 0.02, noise: 0.005)
        guard case .done(let sum, true) = c.add(Self.up(lean: 0.2), usable: true, at: 0.03, noise: 0.005) else {
            Issue.record("no baseline")
            return
        }
        let want = Self.up(lean: 0) + Self.up(lean: 0.1) + Self.up(lean: 0.2)
        #expect((sum - want).length < 1e-12)
    }
}
