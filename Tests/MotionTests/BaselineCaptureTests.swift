import TestSupport
import Testing

@testable import Motion

/// At once the baseline is the first samples, moving or not; after a fold it comes from
/// the device at rest: no reading of the fold still moving when the recapture is asked
/// for is in it, a device that never rests gets one after `restLimit` (and is told so).
struct BaselineCaptureTests {
    /// Leaned back by `lean` radians from upright: the up direction.
    static func up(lean: Double) -> Vector3 { Vector3(0, _cos(lean), _sin(lean)) }

    /// A lid folding from `from` to `to` within `seconds` (a smooth start and end).
    static func fold(_ t: Double, from: Double = 0.26, to: Double = 1.3, seconds: Double = 1.5) -> Double {
        let s = min(max(t / seconds, 0), 1)
        return from + (to - from) * s * s * (3 - 2 * s)
    }

    static func angle(_ a: Vector3, _ b: Vector3) -> Double { (a.normalized! - b.normalized!).length }

    /// A capture that waits for the device to rest (after a fold).
    static func untilRest() -> BaselineCapture {
        var c = BaselineCapture(samples: 10)
        c.restart(untilRest: true)
        return c
    }

    /// Feeds `up(t)` at 100 Hz from `start` until the baseline is done: its up and rest
    /// flag, when, and the time of its first reading.
    static func capture(
        _ c: inout BaselineCapture, from start: Double = 0, noise: Double = 0.005,
        seed: UInt64 = 1, sigma: Double = 0, _ up: (Double) -> Vector3
    )
        -> (up: Vector3, rested: Bool, at: Double, from: Double)?
    {
        var n = Noise(seed: seed)
        for i in 0..<1000 {
            let t = start + Double(i) * 0.01
            let u = (up(t) + Vector3(n.gaussian(), n.gaussian(), n.gaussian()) * sigma).normalized!
            if case .done(let sum, let rested, let from) = c.add(u, usable: true, at: t, noise: noise) {
                return (sum.normalized!, rested, t, from)
            }
        }
        return nil
    }

    @Test func aDeviceAtRestGivesItsBaselineAfterTheSettleTime() throws {
        var c = Self.untilRest()
        let got = try #require(Self.capture(&c) { _ in Self.up(lean: 0.26) })
        #expect(got.rested && Self.angle(got.up, Self.up(lean: 0.26)) < 1e-12)
        let wait = BaselineCapture.tailTime + BaselineCapture.restMeanTime
        #expect(got.at >= wait && got.at < wait + 0.05)
        #expect(got.from >= BaselineCapture.tailTime)
    }

    /// Asked for mid-fold (the tablet-mode switch at a lean of 1.1 rad, 0.2 rad to go):
    /// the baseline is the pose the lid comes to rest in, noiseless and with 2 LSB of noise.
    /// The fold within `seconds`, the switch firing as it passes 1.1 rad, readings with
    /// `sigma` of noise (0.002: 0.11 degrees, a 12-bit part; 0.005: a noisy one): the
    /// baseline holds only readings from after the lid came to rest, and it comes within a
    /// second of the rest.
    @Test(arguments: [(0.0, 1.5), (0.002, 1.5), (0.005, 1.5), (0.002, 0.6), (0.005, 0.6)])
    func aFoldStillMovingIsNotInTheBaseline(_ sigma: Double, _ seconds: Double) throws {
        var c = Self.untilRest()
        var switchAt = 0.0
        while Self.fold(switchAt, seconds: seconds) < 1.1 { switchAt += 0.01 }
        let got = try #require(
            Self.capture(&c, from: switchAt, noise: sigma, sigma: sigma) {
                Self.up(lean: Self.fold($0, seconds: seconds))
            })
        #expect(got.rested)
        #expect(got.from >= seconds, "the baseline's first reading at \(got.from) s, the lid at rest from \(seconds) s")
        #expect(got.at > seconds && got.at < seconds + 1.0)
        // The noise's own share: sigma / sqrt(40).
        #expect(Self.angle(got.up, Self.up(lean: 1.3)) < (sigma == 0 ? 1e-12 : 3 * sigma / 40.0.squareRoot()))
    }

    /// At start, a claim, a sensor back or a recalibration: the first samples, at once,
    /// though the device moves.
    @Test func atOnceTheFirstSamplesOfAMovingDeviceAreTheBaseline() throws {
        var c = BaselineCapture(samples: 10)
        let got = try #require(Self.capture(&c, from: 2.0) { Self.up(lean: 0.5 * $0) })
        #expect(got.rested && got.from == 2.0)
        #expect(abs(got.at - 2.09) < 1e-9)
        #expect(Self.angle(got.up, Self.up(lean: 0.5 * 2.045)) < 1e-4)
    }

    @Test func aDeviceThatNeverRestsGetsItsLastReadingsAfterTheLimit() throws {
        var c = Self.untilRest()
        // Turning steadily at 0.2 rad/s.
        let got = try #require(Self.capture(&c) { Self.up(lean: 0.2 * $0) })
        #expect(!got.rested)
        #expect(abs(got.at - BaselineCapture.restLimit) < 0.015)
        // The mean of about the last 0.4 s: 0.2 s behind the newest reading.
        #expect(Self.angle(got.up, Self.up(lean: 0.2 * (got.at - 0.2))) < 0.01)
    }

    @Test func readingsFromBeforeTheRequestAndOutsideTheGBandAreNotUsed() throws {
        var c = BaselineCapture(samples: 10)
        c.restart(notBefore: 1.0, untilRest: true)
        // A batch read late: 0.2 s of the old pose dated before the request, then the new.
        for i in 0..<20 {
            #expect(
                c.add(Self.up(lean: 0), usable: true, at: 0.8 + Double(i) * 0.01, noise: 0.005)
                    == .collecting(have: 0, need: 10, used: false))
        }
        let got = try #require(Self.capture(&c, from: 1.0) { _ in Self.up(lean: 1.0) })
        #expect(Self.angle(got.up, Self.up(lean: 1.0)) < 1e-12)
        // A reading outside [0.5 g, 1.5 g] (a shake) starts the rest over.
        var d = Self.untilRest()
        for i in 0..<30 { _ = d.add(Self.up(lean: 0), usable: true, at: Double(i) * 0.01, noise: 0.005) }
        #expect(
            d.add(Self.up(lean: 0), usable: false, at: 0.30, noise: 0.005)
                == .collecting(have: 0, need: 10, used: false))
        let after = try #require(Self.capture(&d, from: 0.31) { _ in Self.up(lean: 0) })
        #expect(after.at >= 0.30 + BaselineCapture.tailTime + BaselineCapture.restMeanTime)
        #expect(after.from >= 0.30 + BaselineCapture.tailTime)
    }

    /// The rule at once, and the spec's with the filter off: the first samples, moving or
    /// not, each usable.
    @Test func withoutTheRestRuleTheFirstSamplesAreTheBaseline() {
        var c = BaselineCapture(samples: 3)
        #expect(c.add(Self.up(lean: 0), usable: true, at: 0, noise: 0.005) == .collecting(have: 1, need: 3, used: true))
        #expect(
            c.add(Self.up(lean: 0.5), usable: false, at: 0.01, noise: 0.005)
                == .collecting(have: 1, need: 3, used: false))
        _ = c.add(Self.up(lean: 0.1), usable: true, at: 0.02, noise: 0.005)
        guard case .done(let sum, true, 0) = c.add(Self.up(lean: 0.2), usable: true, at: 0.03, noise: 0.005) else {
            Issue.record("no baseline")
            return
        }
        let want = Self.up(lean: 0) + Self.up(lean: 0.1) + Self.up(lean: 0.2)
        #expect((sum - want).length < 1e-12)
    }
}
