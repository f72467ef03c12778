import IIO
import LinuxSystem
import Motion

/// The gyroscope paired with the attached accelerometer (attitude.md section 9), as
/// `AccelerometerService` reads it: in the accelerometer's own readings (a combined IMU,
/// whose driver reads both), or from a device of its own (`GyroscopeDriver`) in the
/// accelerometer's mode: polled with each reading in poll mode; in buffer mode from its
/// own buffer where it has one this process may use, else polled. Holds what must be
/// put back (its sampling frequency) and whether one may be taken up later.
final class PairedGyroscope {
    /// The pairing while its readings are used; nil without a gyroscope or once given up.
    private(set) var pairing: GyroPairing?
    /// Its calibration, while its readings are used.
    private(set) var calibration: RateCalibration?
    /// The driver of a gyroscope in a device of its own.
    private(set) var sibling: (any GyroscopeDriver)?
    /// The sibling is read from its own buffer (its scans carry their timestamps).
    private(set) var isBuffered = false
    /// The sibling's node wakes the caller; cleared when it is readable without data
    /// (an emulated node at its end), set again when a read finds data.
    var bufferWakesUs = true
    /// Consecutive reads that failed (the reads themselves, not bad values).
    var failures = 0
    private var restoreFrequency: FrequencyRestore?
    /// Another reader may use the sibling (`BufferSharing`): its rate is only raised.
    private var shared = false

    /// Readings are used.
    var isUsed: Bool { calibration != nil }

    /// Starts reading `p`'s gyroscope; says how (for the log line), or, when none is used
    /// (`isUsed` false), why not.
    /// - Parameters:
    ///   - context: the libiio context to read a sibling through; nil when there is none.
    ///   - local: the devices are this machine's (their sysfs files can be checked).
    ///   - sensorProxy: what is known of iio-sensor-proxy (`BufferSharing`).
    func start(_ p: GyroPairing, accelerometer: AccelerometerDescription, driver: any AccelerometerDriver,
               context: Context?, local: Bool, settings: AccelerometerSettings,
               sensorProxy: BufferSharing.SensorProxy = .noBus) -> String {
        release(deviceGone: false)
        failures = 0
        bufferWakesUs = true
        guard let g = p.gyro, let cal = p.calibration else { return p.reason }
        var frame = "frame \(cal.sign < 0 ? "-1 * " : "")\(cal.mountMatrix) from \(p.matrixSource ?? "?")"
        if p.matrixSource == g.ownMatrixSource {
            frame += g.ownMatrixProblems.map { "; \($0.logText)" }.joined()
        }
        if g.id == accelerometer.id {
            guard driver.readsGyroscope else {
                return "\(g.displayName) is not read in \(driver.modeName) mode"
            }
            (pairing, calibration) = (p, cal)
            return "\(g.displayName), \(p.reason), in the same \(driver.modeName == "buffer" ? "scan" : "reads"); \(frame)"
        }
        guard let context else { return "\(g.displayName) needs libiio" }
        // The rate it will sample at once its sampling frequency is set.
        let deviceHz = g.samplingFrequency.flatMap { $0.target(forRate: settings.rateHz) ?? $0.currentHz } ?? settings.rateHz
        let made: (any GyroscopeDriver, String)
        let sharedWhy = BufferSharing.reason(g, sensorProxy: sensorProxy)
        shared = sharedWhy != nil
        switch Self.makeDriver(g, accelerometer: accelerometer, bufferMode: driver.modeName == "buffer", context: context,
                               local: local, shared: sharedWhy, scansPerRefill: 2 * settings.scansPerWakeup(deviceHz: deviceHz)) {
        case .success(let m): made = m
        case .failure(let e): return "\(e)"
        }
        let (d, how) = made
        sibling = d
        isBuffered = d.modeName == "buffer"
        (pairing, calibration) = (p, cal)
        let freq = setSamplingFrequency(d, rateHz: settings.rateHz)
        return "\(g.displayName), \(p.reason), \(how); \(frame); sampling frequency: \(freq)"
    }

    /// A gyroscope of its own device in the accelerometer's mode: from its own buffer
    /// when the accelerometer is read from its buffer and the gyroscope's can be used
    /// (`BufferPermission`'s rules, timestamps on the accelerometer's clock), else polled
    /// with each reading; says which and why.
    static func makeDriver(_ g: GyroscopeDescription, accelerometer a: AccelerometerDescription, bufferMode: Bool,
                           context: Context, local: Bool, shared: String? = nil, scansPerRefill: Int)
        -> Result<(any GyroscopeDriver, String), SensorError>
    {
        func poll(_ how: String) -> Result<(any GyroscopeDriver, String), SensorError> {
            do { return .success((try IIOPolledGyroscope(device: g, context: context), how)) }
            catch { return .failure(error) }
        }
        guard bufferMode else { return poll("polled with each reading") }
        var problem = shared.map { "\($0), so its buffer is left alone" } ?? BufferPermission.problem(g, local: local)
        if problem == nil, g.timestampClock != a.timestampClock {
            // Its scans are placed among the accelerometer's by their timestamps.
            problem = "its timestamps are on clock \(g.timestampClock ?? "(unknown)"), "
                + "the accelerometer's on \(a.timestampClock ?? "(unknown)")"
        }
        if let problem { return poll("polled with each reading, not from its buffer: \(problem)") }
        do {
            let b = try IIOBufferedGyroscope(device: g, context: context, scansPerRefill: scansPerRefill)
            return .success((b, "read from its own buffer (trigger \(g.trigger ?? "?"), \(b.scansPerRefill) scans per refill)"))
        } catch {
            return poll("polled with each reading, not from its buffer: \(error.message)")
        }
    }

    /// A sibling samples at least as fast as it is read (`Sensor.rate`), and its
    /// frequency is put back when it is released, as the accelerometer's is.
    private func setSamplingFrequency(_ d: any GyroscopeDriver, rateHz: Double) -> String {
        guard let info = d.device.samplingFrequency else { return "no sampling_frequency attribute" }
        let (text, restore) = SamplingFrequencyControl.set(info, rateHz: rateHz, syspath: d.device.syspath,
                                                                        shared: shared, write: d.writeAttribute)
        restoreFrequency = restore
        return text
    }

    /// Stops using the gyroscope: closes a sibling's buffer and puts back its sampling
    /// frequency (unless the device is gone). Returns what could not be put back.
    @discardableResult
    func release(deviceGone: Bool) -> [SensorError] {
        var errors: [SensorError] = []
        if let s = sibling {
            do { try s.close() } catch { errors.append(error) }
            if let r = restoreFrequency, !deviceGone {
                do { _ = try r.putBack(write: s.writeAttribute) } catch { errors.append(error) }
            }
        }
        restoreFrequency = nil
        sibling = nil
        isBuffered = false
        pairing = nil
        calibration = nil
        return errors
    }
}
