import Logging
import Motion
import Sensors
import Tracing

/// The validated `[Sensor]`, `[Attitude]`, `[Mapper]` and `[Card]` configuration turned
/// into the Sensors and Motion values (`sensors`, `monitor`). The configuration layer
/// has already parsed and checked every value.
package struct MotionConfiguration {
    package var sensor: AccelerometerSettings
    package var attitude: AttitudeConfiguration
    package var mapper: FocalMapper
    /// `Attitude.recapture_after` (seconds, 0 = never) and `Attitude.recapture_angle`
    /// (radians): a new baseline after resting that long that far from the old one.
    package var recaptureAfter: Double
    package var recaptureAngle: Double

    /// The configuration's values are typed and checked where they were read.
    package init(_ c: Configuration) {
        sensor = AccelerometerSettings(
            device: c.sensor.device, mode: c.sensor.mode, rateHz: c.sensor.rate,
            mountMatrix: c.sensor.mountMatrix, invert: c.sensor.invert, framesPerSecond: c.sink.fps,
            gyro: c.sensor.gyro, gyroMountMatrix: c.sensor.gyroMountMatrix)
        let euro = OneEuroParameters(
            minCutoff: c.attitude.minCutoff, beta: c.attitude.beta, dCutoff: c.attitude.dCutoff)
        attitude = AttitudeConfiguration(
            baselineSamples: c.attitude.baselineSamples,
            filter: c.attitude.filter == .none ? .none : .oneEuro(euro))
        recaptureAfter = c.attitude.recaptureAfter
        recaptureAngle = c.attitude.recaptureAngle
        mapper = FocalMapper(
            origin: c.card.effectiveOrigin, rollRangeRadians: c.mapper.rollRange,
            pitchRangeRadians: c.mapper.pitchRange,
            maxOffsetPoints: c.mapper.maxOffset, clamp: c.mapper.clamp)
    }

    /// The motion stage this configuration asks for: the one the daemon runs and the one
    /// `shimmerd monitor` runs, so that both recapture, rest and judge the gyroscope alike.
    package var interpreter: MotionInterpreter {
        MotionInterpreter(
            attitude: attitude, mapper: mapper, recaptureAfter: recaptureAfter,
            recaptureAngle: recaptureAngle, frameInterval: 1 / max(sensor.framesPerSecond ?? 60, 1))
    }
}
