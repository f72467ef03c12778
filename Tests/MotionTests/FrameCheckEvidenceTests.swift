import TestSupport
import Testing

@testable import Motion

/// The frame check speaks only on evidence: a correct gyroscope on a device turned about
/// gravity with the hand's lever arm, carried about while it tilts, or vibrating while it
/// turns keeps its whole weight and is never doubted, where the same motions give the
/// hand's and the vibration's acceleration to the accelerometer. The device's orientation
/// is the integral of the rates the gyroscope reads, so the right frame fits exactly but
/// for what the acceleration does.
struct FrameCheckEvidenceTests {
    private static let g = standardGravity

    /// A motion: the world's angular velocity (rad/s) and the device's linear acceleration
    /// (m/s^2, world frame) at t.
    struct Motion {
        var turn: (Double) -> Vector3
        var acceleration: (Double) -> Vector3
    }

    /// What 60 s of `motion` did to an estimator fed its rates as read and its readings:
    /// the gyroscope steps that were doubted and weighed down, and the seconds the check
    /// weighed.
    static func play(_ motion: Motion, tilted: Double = 0.35, seconds: Double = 60)
        -> (doubted: Int, weighed: Int, secondsWeighed: Double)
    {
        var e = AttitudeEstimator(.defaults)
        var orientation = Rotation(rotationVector: Vector3(tilted, 0, 0))  // device to world
        var doubted = 0, weighed = 0
        let dt = 0.01
        for i in 0..<Int(seconds / dt) {
            let t = Double(i) * dt
            let w = orientation.applyInverse(motion.turn(t))  // body rates
            switch e.update(angularVelocity: w, at: t) {
            case .doubted: doubted += 1
            case .weighed: weighed += 1
            default: break
            }
            let up = orientation.applyInverse(Vector3(0, 0, 1))
            // The reading is minus the specific force: -g up - R^T a.
            let a = up * -g - orientation.applyInverse(motion.acceleration(t))
            _ = e.update(acceleration: a, at: t)
            orientation = Rotation(rotationVector: motion.turn(t) * dt) * orientation
            orientation.normalize()
        }
        return (doubted, weighed, e.frameCheck.secondsWeighed)
    }

    /// Tilting to and fro by `degrees` about two horizontal axes (0.3 and 0.45 Hz): the
    /// world's angular velocity.
    static func tilting(_ degrees: Double) -> (Double) -> Vector3 {
        let w1 = 2 * Double.pi * 0.3, w2 = 2 * Double.pi * 0.45
        let tilt = degrees * Double.pi / 180
        return { t in Vector3(tilt * w1 * cos(w1 * t), tilt * w2 * cos(w2 * t), 0) }
    }

    /// d^2/dt^2 of a position, numerically.
    static func second(_ p: (Double) -> Vector3, _ t: Double) -> Vector3 {
        let h = 1e-3
        return (p(t + h) + p(t - h) - p(t) * 2) / (h * h)
    }

    /// Turned to and fro about gravity (0.8 rad at 0.4 Hz) by a hand 12 cm from the axis,
    /// nodding 2 degrees: the tangential and centripetal acceleration follow the turn, as
    /// a hand that swivels a tablet on a desk gives them; a frame that reverses the turn
    /// seems to fit them, and gravity hardly moves.
    @Test func aTurnAboutGravityWithTheHandsLeverArmIsNoEvidence() {
        let angle = { (t: Double) in 0.8 * sin(2 * Double.pi * 0.4 * t) }
        let rate = { (t: Double) in 0.8 * 2 * Double.pi * 0.4 * cos(2 * Double.pi * 0.4 * t) }
        let nod = { (t: Double) in 2.0 * Double.pi / 180 * 2 * Double.pi * 0.9 * cos(2 * Double.pi * 0.9 * t) }
        let position = { (t: Double) in Vector3(0.12 * cos(angle(t)), 0.12 * sin(angle(t)), 0) }
        let got = Self.play(
            Motion(
                turn: { Vector3(nod($0), 0, rate($0)) },
                acceleration: { Self.second(position, $0) }))
        #expect(got.doubted == 0 && got.weighed == 0, "\(got)")
    }

    /// Carried back and forth (0.4 m at 0.35 Hz and 0.3 m at 0.5 Hz: 2-3 m/s^2) while it
    /// tilts 12 degrees about two axes: the readings scatter about gravity by more than
    /// the turn moves it.
    @Test func aDeviceCarriedAboutWhileItTiltsIsNoEvidence() {
        let position = { (t: Double) in
            Vector3(0.4 * sin(2 * Double.pi * 0.35 * t), 0.3 * sin(2 * Double.pi * 0.5 * t + 1), 0)
        }
        let got = Self.play(Motion(turn: Self.tilting(12), acceleration: { Self.second(position, $0) }))
        #expect(got.doubted == 0 && got.weighed == 0, "\(got)")
    }

    /// Vibrating (a motor at 31, 37 and 43 Hz, 1 m/s^2 an axis, aliased by the 100 Hz
    /// readings) while it tilts 15 degrees about two axes: the check weighs the motion
    /// and keeps the gyroscope's whole weight.
    @Test func aVibratingDeviceThatTiltsIsWeighedAndKeepsItsGyroscope() {
        let shake = { (t: Double) in
            Vector3(sin(2 * Double.pi * 31 * t), sin(2 * Double.pi * 37 * t + 2), sin(2 * Double.pi * 43 * t + 4))
                * 2.0.squareRoot()
        }
        let got = Self.play(Motion(turn: Self.tilting(15), acceleration: shake))
        #expect(got.doubted == 0 && got.weighed == 0, "\(got)")
        #expect(got.secondsWeighed >= 20, "\(got)")
    }
}
