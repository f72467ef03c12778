import Logging
import Motion
import Sensors
import TestSupport
import Testing
import Tracing

@testable import Runtime

/// The motion stage's own decisions: a new baseline where a device comes to rest far from
/// the old one, gyroscope readings into the attitude, and the spring that follows the
/// sensor's pace.
struct MotionStageRestTests {
    func stage(_ edit: (inout Configuration) -> Void = { _ in }) throws -> MotionStage {
        var c = Configuration()
        c.attitude.baselineSamples = 3
        edit(&c)
        return MotionStage(MotionConfiguration(c))
    }

    /// Flat, then folded 40 degrees (a convertible into tablet mode) and left there.
    func fold(_ m: MotionStage, restFor seconds: Double) -> [String] {
        var logs: [String] = []
        let g = standardGravity
        for i in 0..<100 {
            _ = m.take(.reading(Vector3(0, 0, -g), at: Double(i) * 0.01), at: Double(i) * 0.01, trace: nil)
        }
        let s = 0.6427876096865393, c = 0.766044443118978  // sin, cos 40 degrees
        var t = 1.0
        while t < 1 + seconds {
            if case .log(_, let line) = m.take(.reading(Vector3(0, -g * s, -g * c), at: t), at: t, trace: nil) {
                logs.append(line)
            }
            t += 0.01
        }
        return logs
    }

    @Test func restingFarFromTheBaselineCapturesANewOne() throws {
        let m = try stage()
        let logs = fold(m, restFor: 5)
        #expect(logs.count == 1)
        #expect(logs.first?.hasPrefix("recapturing the baseline: rested 3 s at 40 degrees from the baseline") == true)
        // The new baseline is the folded pose: the card is back at its origin.
        let p = m.frames(from: 6, for: 3.01)
        #expect(m.isSettled(at: 9.01) && abs(p.x - m.origin.x) < 1e-6 && abs(p.y - m.origin.y) < 1e-6)
    }

    @Test func restingNearTheBaselineOrWithRecaptureOffKeepsIt() throws {
        let off = try stage { $0.attitude.recaptureAfter = 0 }
        #expect(fold(off, restFor: 8).isEmpty)
        let wide = try stage { $0.attitude.recaptureAngle = 1.0 }
        #expect(fold(wide, restFor: 8).isEmpty)
    }

    @Test func gyroscopeReadingsReachTheAttitude() throws {
        let m = try stage()
        let g = standardGravity
        // Lying still past the fusion's first second (its gravity starts from their mean).
        for i in 0..<150 {
            let t = Double(i) * 0.01
            _ = m.take(.rate(Vector3(0, 0, 0), at: t), at: t, trace: nil)
            _ = m.take(.reading(Vector3(0, 0, -g), at: t), at: t, trace: nil)
        }
        // A push the gyroscope says is no turn: the fused attitude stays at the origin.
        for i in 150..<180 {
            let t = Double(i) * 0.01
            _ = m.take(.rate(Vector3(0, 0, 0), at: t), at: t, trace: nil)
            _ = m.take(.reading(Vector3(2, 0, -g), at: t), at: t, trace: nil)
        }
        let p = m.frames(from: 1.8, for: 1.01)
        #expect(abs(p.x - m.origin.x) < 3 && abs(p.y - m.origin.y) < 3)
    }
}
