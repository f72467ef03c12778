import Logging
import Motion

import Sensors
import Tracing

/// The validated `[Sensor]`, `[Attitude]`, `[Mapper]` and `[Card]` configuration turned
/// into the Sensors and Motion values (`sensors`, `monitor`). The configuration layer
/// has already checked the syntax; a failure here is still a configuration error.
package struct MotionConfiguration {
    package var sensor: AccelerometerSettings
    package var attitude: AttitudeConfiguration
    package var mapper: FocalMapper
    /// `Attitude.recapture_after` (seconds, 0 = never) and `Attitude.recapture_angle`
    /// (radians): a new baseline after resting that long that far from the old one.
    package var recaptureAfter: Double
    package var recaptureAngle: Double

    package init(_ c: Configuration) throws(Failure) {
        let device: DeviceSelector
        switch DeviceSelector.parse(c.sensor.device) {
        case .success(let d): device = d
        case .failure(let e): throw Failure(.configuration, "\(e)")
        }
        guard let mode = SensorMode(rawValue: c.sensor.mode) else {
            throw Failure(.configuration, "Sensor.mode \"\(c.sensor.mode)\": expected auto, poll or buffer")
        }
        var matrix: MountMatrix?
        if c.sensor.mountMatrix != "auto" {
            switch MountMatrix.parse(c.sensor.mountMatrix) {
            case .success(let m): matrix = m
            case .failure(let e): throw Failure(.configuration, "Sensor.mount_matrix \"\(c.sensor.mountMatrix)\": \(e)")
            }
        }
        let gyro: GyroSelector
        switch GyroSelector.parse(c.sensor.gyro) {
        case .success(let g): gyro = g
        case .failure(let e): throw Failure(.configuration, "\(e)")
        }
        var gyroMatrix: MountMatrix?
        if c.sensor.gyroMountMatrix != "auto" {
            switch MountMatrix.parse(c.sensor.gyroMountMatrix) {
            case .success(let m): gyroMatrix = m
            case .failure(let e): throw Failure(.configuration, "Sensor.gyro_mount_matrix \"\(c.sensor.gyroMountMatrix)\": \(e)")
            }
        }
        sensor = AccelerometerSettings(device: device, mode: mode, rateHz: c.sensor.rate, mountMatrix: matrix,
                                       invert: c.sensor.invert, framesPerSecond: c.sink.fps,
                                       gyro: gyro, gyroMountMatrix: gyroMatrix)
        let euro = OneEuroParameters(minCutoff: c.attitude.minCutoff, beta: c.attitude.beta, dCutoff: c.attitude.dCutoff)
        attitude = AttitudeConfiguration(baselineSamples: c.attitude.baselineSamples,
                                         filter: c.attitude.filter == "none" ? .none : .oneEuro(euro))
        recaptureAfter = c.attitude.recaptureAfter
        recaptureAngle = c.attitude.recaptureAngle
        mapper = FocalMapper(origin: c.card.effectiveOrigin, rollRangeRadians: c.mapper.rollRange, pitchRangeRadians: c.mapper.pitchRange,
                             maxOffsetPoints: c.mapper.maxOffset, clamp: c.mapper.clamp)
    }

    /// The motion stage this configuration asks for: the one the daemon runs and the one
    /// `shimmerd monitor` runs, so that both recapture, rest and judge the gyroscope alike.
    package var interpreter: MotionInterpreter {
        MotionInterpreter(attitude: attitude, mapper: mapper, recaptureAfter: recaptureAfter,
                          recaptureAngle: recaptureAngle, frameInterval: 1 / max(sensor.framesPerSecond ?? 60, 1))
    }
}
