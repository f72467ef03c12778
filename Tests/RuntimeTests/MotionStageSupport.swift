import Motion
import Sensors

@testable import Runtime

extension SensorEvent {
    /// An accelerometer reading, m/s^2, at `t`.
    static func reading(_ a: Vector3, at t: Double) -> SensorEvent {
        .motion(.acceleration(metersPerSecondSquared: a, at: t))
    }
    /// A gyroscope reading, rad/s, at `t`.
    static func rate(_ w: Vector3, at t: Double) -> SensorEvent {
        .motion(.angularVelocity(radiansPerSecond: w, at: t))
    }
}

extension MotionStage {
    /// Frames published every 10 ms from `t` for `seconds`; the last one drawn.
    func frames(from t: Double, for seconds: Double) -> FocalPoint {
        var p = drawnFocal
        for k in 1...Int((seconds * 100).rounded()) { p = draw(at: t + Double(k) * 0.01) }
        return p
    }
}
