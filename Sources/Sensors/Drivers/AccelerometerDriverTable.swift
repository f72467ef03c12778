import Glibc
import IIO

/// How an accelerometer is read, in iio-sensor-proxy's shape: a table of drivers tried in
/// order, each with a probe that says whether it reads the device under `Sensor.mode`
/// (and why, in the attach line's words) and an opener. A driver that passes says why,
/// and the next one's line starts from that; an open that fails may pass on too (a
/// buffer that another program holds is polled and left alone).
struct AccelerometerDriverTable {
    /// What the probes look at.
    struct Candidate {
        var device: AccelerometerDescription
        /// The libiio context, nil when libiio cannot build one (sysfs alone), with its error.
        var context: Context?
        var contextError: IIOError?
        var mode: SensorMode
        var local: Bool
        var scansPerWakeup: Int
        /// The gyroscope of the same device (a combined IMU), read with the accelerometer.
        var gyro: GyroscopeDescription?
        /// Why another reader may be using the device (`BufferSharing`): then it is
        /// polled whatever `Sensor.mode` says, and its buffer left alone.
        var shared: String?
    }

    /// Why a driver passed the device on to the next.
    enum PassedOn {
        /// Another reader's buffer: why (with the mode's words in front).
        case leaveAlone(String)
        /// `Sensor.mode = auto` found the buffer unusable: why, and the failure to report
        /// if the device cannot be polled either.
        case auto(String, refusal: SensorError)
    }

    /// What a probe (or a failed open) says.
    enum Verdict {
        /// This driver reads it: why.
        case use(String)
        /// Not this driver; the next one is told why (nil: nothing to pass on).
        case next(PassedOn?)
        /// No driver reads it: why.
        case refuse(SensorError)
    }

    struct Driver: Sendable {
        /// `buffer`, `poll`, `sysfs-poll`.
        let name: String
        let probe: @Sendable (Candidate, PassedOn?) -> Verdict
        let open: @Sendable (Candidate) -> Result<any AccelerometerDriver, SensorError>
        /// What a failed open means: the search ends, or the next driver tries.
        let openFailed: @Sendable (Candidate, SensorError) -> Verdict
    }

    /// The drivers, in the order they are tried.
    static let drivers: [Driver] = [input, buffer, poll, sysfsPoll]

    /// The first driver whose probe takes the device and which opens, with why.
    static func open(_ c: Candidate) -> Result<(any AccelerometerDriver, String), SensorError> {
        var passed: PassedOn?
        for driver in drivers {
            var verdict = driver.probe(c, passed)
            if case .use(let why) = verdict {
                switch driver.open(c) {
                case .success(let d): return .success((d, why))
                case .failure(let e): verdict = driver.openFailed(c, e)
                }
            }
            switch verdict {
            case .use: continue
            case .next(let p): passed = p ?? passed
            case .refuse(let e): return .failure(e)
            }
        }
        return .failure(SensorError(device: c.device.displayName, "no driver reads it"))
    }

    /// An input device (an evdev node, `InputDeviceAccelerometer`): its events read through
    /// libevdev, whatever `Sensor.mode` says (it chooses between an IIO device's buffer and
    /// its raw attributes). IIO devices are passed on.
    static let input = Driver(
        name: "input",
        probe: { c, _ in
            guard c.device.isInput else { return .next(nil) }
            let why = "an input device: its event node read through libevdev"
            return .use(c.mode == .auto ? why : "\(why) (Sensor.mode = \(c.mode.rawValue) applies to IIO devices)")
        },
        open: { c in
            do throws(SensorError) {
                return .success(try InputDeviceAccelerometer(device: c.device, gyro: c.gyro))
            } catch { return .failure(error) }
        }, openFailed: { _, error in .refuse(error) })

    /// Buffer mode: scan elements, a trigger and buffer attributes the process may write,
    /// and no other reader that may want the buffer.
    static let buffer = Driver(
        name: "buffer",
        probe: { c, _ in
            guard c.context != nil, c.mode != .poll else { return .next(nil) }
            if let shared = c.shared {
                return .next(.leaveAlone("\(c.mode == .buffer ? "Sensor.mode = buffer, but" : "auto:") \(shared)"))
            }
            if let p = BufferPermission.problem(c.device, local: c.local) {
                if c.mode == .buffer {
                    return .refuse(SensorError(device: c.device.displayName, "Sensor.mode = buffer, but \(p)"))
                }
                return .next(.auto(p, refusal: SensorError(device: c.device.displayName, p)))
            }
            return .use(
                c.mode == .buffer
                    ? "Sensor.mode = buffer"
                    : "auto: the device has scan elements and a trigger, and its buffer attributes are writable")
        },
        open: { c in
            do throws(SensorError) {
                return .success(
                    try IIOBufferedAccelerometer(
                        device: c.device, context: c.context!, scansPerWakeup: c.scansPerWakeup,
                        gyro: c.gyro))
            } catch { return .failure(error) }
        },
        openFailed: { c, error in
            if error.errno == EBUSY {
                // The IIO character device opens once (iio_chrdev_open: EBUSY for a second
                // opener): another program reads the device. What the failed setup wrote
                // (trigger, length, watermark) is put back as the buffer is released.
                let why = BufferSharing.nodeHeldReason(devnode: c.device.devnode ?? "/dev/\(c.device.id)")
                return .next(.leaveAlone("\(c.mode == .buffer ? "Sensor.mode = buffer, but" : "auto:") \(why)"))
            }
            if c.mode == .buffer { return .refuse(error) }
            return .next(.auto("buffer setup failed (\(error))", refusal: error))
        })

    /// Raw attributes read through libiio: `Sensor.mode = poll`, or what the buffer
    /// passed on.
    static let poll = Driver(
        name: "poll",
        probe: { c, passed in
            guard c.context != nil else { return .next(passed) }
            let d = c.device
            switch passed {
            case .leaveAlone(let why)?:
                if d.pollCapable { return .use("\(why): polling, the buffer left alone") }
                guard d.unreadableRaws.isEmpty else {
                    return .refuse(
                        SensorError(
                            device: d.displayName,
                            "\(why), and the kernel refuses its raw attributes while that "
                                + "buffer runs (\(d.unreadableRaws.joined(separator: ", ")) would not "
                                + "read); looking again every second"))
                }
                return .refuse(SensorError(device: d.displayName, "\(why), and it has no raw attributes to poll"))
            case .auto(let why, let refusal)?:
                return d.pollCapable ? .use("auto: \(why)") : .refuse(refusal)
            case nil:
                return .use("Sensor.mode = poll")
            }
        },
        open: { c in
            do throws(SensorError) {
                return .success(try IIOPolledAccelerometer(device: c.device, context: c.context!, gyro: c.gyro))
            } catch {
                // A gyroscope that libiio cannot read must not cost the accelerometer.
                guard c.gyro != nil else { return .failure(error) }
                do throws(SensorError) {
                    return .success(try IIOPolledAccelerometer(device: c.device, context: c.context!))
                } catch { return .failure(error) }
            }
        }, openFailed: { _, error in .refuse(error) })

    /// Sysfs read directly, where libiio cannot build a local context.
    static let sysfsPoll = Driver(
        name: "sysfs-poll",
        probe: { c, _ in
            let why =
                "libiio cannot build a local context "
                + "(\(c.contextError.map { "\($0)" } ?? "unknown error")); reading sysfs directly"
            if c.mode == .buffer {
                return .refuse(SensorError(device: c.device.displayName, "Sensor.mode = buffer, but \(why)"))
            }
            return .use(why)
        },
        open: { c in
            do throws(SensorError) { return .success(try SysfsPolledAccelerometer(device: c.device)) } catch {
                return .failure(error)
            }
        }, openFailed: { _, error in .refuse(error) })
}
