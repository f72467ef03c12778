import Glibc
import IIO

/// How an accelerometer of a libiio context (or of sysfs alone) is read: the driver that
/// `Sensor.mode` and the device allow, and why, as the attach line says it.
extension AccelerometerService {
    /// `Sensor.mode` for a libiio context: buffer where the device supports it and the
    /// process may write its buffer attributes, else poll; says why.
    /// - Parameter shared: why another reader may be using the device
    ///   (`BufferSharing`): then it is polled whatever `mode` says, and its buffer left alone.
    static func makeIIODriver(_ d: AccelerometerDescription, context: Context, mode: SensorMode, local: Bool,
                              scansPerWakeup: Int = 1, gyro: GyroscopeDescription? = nil, shared: String? = nil)
        -> Result<(any AccelerometerDriver, String), SensorError>
    {
        let bufferProblem = BufferPermission.problem(d, local: local)
        func poll(_ why: String) -> Result<(any AccelerometerDriver, String), SensorError> {
            do { return .success((try IIOPolledAccelerometer(device: d, context: context, gyro: gyro), why)) }
            catch {
                // A gyroscope that libiio cannot read must not cost the accelerometer.
                guard gyro != nil else { return .failure(error) }
                do { return .success((try IIOPolledAccelerometer(device: d, context: context), why)) }
                catch { return .failure(error) }
            }
        }
        // Another reader's buffer: polled, left alone (`BufferSharing`).
        func leaveAlone(_ why: String) -> Result<(any AccelerometerDriver, String), SensorError> {
            let why = "\(mode == .buffer ? "Sensor.mode = buffer, but" : "auto:") \(why)"
            if d.pollCapable { return poll("\(why): polling, the buffer left alone") }
            guard d.unreadableRaws.isEmpty else {
                return .failure(SensorError(device: d.displayName, "\(why), and the kernel refuses its raw attributes while that "
                    + "buffer runs (\(d.unreadableRaws.joined(separator: ", ")) would not read); looking again every second"))
            }
            return .failure(SensorError(device: d.displayName, "\(why), and it has no raw attributes to poll"))
        }
        if let shared, mode != .poll { return leaveAlone(shared) }
        if mode == .poll { return poll("Sensor.mode = poll") }
        if let p = bufferProblem {
            if mode == .buffer { return .failure(SensorError(device: d.displayName, "Sensor.mode = buffer, but \(p)")) }
            return d.pollCapable ? poll("auto: \(p)") : .failure(SensorError(device: d.displayName, p))
        }
        do {
            let b = try IIOBufferedAccelerometer(device: d, context: context, scansPerWakeup: scansPerWakeup, gyro: gyro != nil)
            return .success((b, mode == .buffer ? "Sensor.mode = buffer"
                : "auto: the device has scan elements and trigger \(d.trigger ?? "?"), and its buffer attributes are writable"))
        } catch where error.errno == EBUSY {
            // The IIO character device opens once (iio_chrdev_open: EBUSY for a second
            // opener): another program reads the device. What the failed setup wrote
            // (trigger, length, watermark) is put back as the buffer is released.
            return leaveAlone(BufferSharing.nodeHeldReason(devnode: d.devnode ?? "/dev/\(d.id)"))
        } catch {
            if mode == .buffer { return .failure(error) }
            return d.pollCapable ? poll("auto: buffer setup failed (\(error))") : .failure(error)
        }
    }

    static func makeSysfsDriver(_ d: AccelerometerDescription, mode: SensorMode, contextError: IIOError?)
        -> Result<(any AccelerometerDriver, String), SensorError>
    {
        let why = "libiio cannot build a local context (\(contextError.map { "\($0)" } ?? "unknown error")); reading sysfs directly"
        if mode == .buffer {
            return .failure(SensorError(device: d.displayName, "Sensor.mode = buffer, but \(why)"))
        }
        do { return .success((try SysfsPolledAccelerometer(device: d), why)) }
        catch { return .failure(error) }
    }
}
