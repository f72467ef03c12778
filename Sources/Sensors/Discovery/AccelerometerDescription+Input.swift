import Evdev
import Motion

/// Input accelerometers described like IIO ones: the same description, so selection,
/// the attach line, the calibration and the gyroscope's pairing treat both alike.
extension AccelerometerDescription {
    /// Interprets an input device's snapshot.
    /// - Parameter configuredMatrix: `Sensor.mount_matrix` when not `auto`; it wins.
    package init(input s: InputDeviceSnapshot, configuredMatrix: MountMatrix?) {
        let f = try? s.evdev?.get()
        let units = f.map(InputUnits.accelerometer)
        let gyro = f.flatMap(InputUnits.gyroscope)
        let scale = (try? units?.get())?.scale ?? Vector3(1, 1, 1)
        facts = IIODeviceFacts(input: s)
        axes = AxisChannels(
            inputAxes: f.map { e in [AbsoluteAxis.x, .y, .z].filter { e.axes[$0] != nil } } ?? [],
            scale: scale)
        udevProperties = s.udevProperties
        if let l = s.udevProperties["ACCEL_LOCATION"].flatMap({ AccelLocation(rawValue: $0) }) {
            (location, locationSource) = (l, "udev:ACCEL_LOCATION")
        } else {
            (location, locationSource) = (.display, "default")
        }
        samplingFrequency = nil
        (mountMatrix, mountMatrixSource, mountMatrixProblems) = Self.inputMountMatrix(s, configured: configuredMatrix)
        let vp = s.vendorProduct
        let axisCount = f.map { e in [AbsoluteAxis.x, .y, .z, .rx, .ry, .rz].filter { e.axes[$0] != nil }.count } ?? 3
        input = InputDeviceFacts(
            eventNumber: s.number, inputSyspath: s.inputSyspath, parentSyspath: s.parentSyspath,
            vendor: vp?.vendor, product: vp?.product,
            placement: InputPlacement(inputSyspath: s.inputSyspath, bus: s.bus),
            controller: s.joystickSibling.map {
                "part of a game controller: \($0) beside it under the same parent"
                    + "\(s.parentSyspath.map { " (\($0))" } ?? "") is a joystick (ID_INPUT_JOYSTICK=1)"
            },
            axesSource: vp.flatMap { ControllerAxes.entry(vendor: $0.vendor, product: $0.product) }.map {
                "\($0.model): \($0.source)"
            },
            unitsSource: (try? units?.get())?.source, gyroScale: gyro?.scale, gyroUnitsSource: gyro?.source,
            timestamps: f?.timestamps ?? false, poller: InputPollInterval(attribute: s.attribute),
            bufferEvents: InputDeviceFacts.kernelBufferEvents(
                absoluteAxes: f?.absoluteAxisCount ?? 3,
                relativeAxes: f?.relativeAxisCount ?? 0),
            eventsPerReport: axisCount + (f?.timestamps == true ? 1 : 0) + 1)
        skipReason = Self.inputSkipReason(s, units: units, axes: axes.channels)
    }

    /// Why an input device cannot be read as an accelerometer; nil when it can.
    private static func inputSkipReason(
        _ s: InputDeviceSnapshot,
        units: Result<
            (scale: Vector3, source: String),
            InputUnits.UnitsProblem
        >?, axes: [String]
    ) -> String? {
        switch s.evdev {
        case nil: return "not opened"
        case .failure(let e)?: return "cannot read \(s.devnode ?? s.sysname): \(e)"
        case .success?: break
        }
        if axes.count < 3 {
            return
                "not an accelerometer: it has \(axes.isEmpty ? "none" : axes.joined(separator: ", ")) of ABS_X, ABS_Y and ABS_Z"
        }
        if case .failure(let p)? = units { return "no units: \(p)" }
        return nil
    }

    /// Config > udev `ACCEL_MOUNT_MATRIX` > the controller table > identity; a malformed
    /// udev matrix is reported and skipped.
    private static func inputMountMatrix(_ s: InputDeviceSnapshot, configured: MountMatrix?)
        -> (MountMatrix, String, [MountMatrixProblem])
    {
        if let configured { return (configured, "config:Sensor.mount_matrix", []) }
        var problems: [MountMatrixProblem] = []
        if let text = s.udevProperties["ACCEL_MOUNT_MATRIX"] {
            switch MountMatrix.parse(text) {
            case .success(let m): return (m, "udev:ACCEL_MOUNT_MATRIX", [])
            case .failure(let e):
                problems.append(
                    MountMatrixProblem(
                        source: "udev:ACCEL_MOUNT_MATRIX",
                        text: String(text[...].trimmingASCIIWhitespace()), error: e))
            }
        }
        if let vp = s.vendorProduct, let c = ControllerAxes.entry(vendor: vp.vendor, product: vp.product) {
            return (c.matrix, "table:\(c.key) (\(c.model))", problems)
        }
        return (.identity, "default:identity", problems)
    }

    /// Whether it is an input device (an evdev node) rather than an IIO device.
    package var isInput: Bool { input != nil }
}

extension GyroscopeDescription {
    /// The gyroscope of an input accelerometer's node (ABS_RX/RY/RZ with
    /// `INPUT_PROP_ACCELEROMETER`), nil when it has none. Its frame is the accelerometer's
    /// (one chip: the pairing rule of docs/TILT.md, "With a gyroscope", gives det(M) * M).
    package init?(input a: AccelerometerDescription) {
        guard let i = a.input, let scale = i.gyroScale, a.isUsable else { return nil }
        facts = a.facts
        axes = AxisChannels(inputAxes: [.rx, .ry, .rz], scale: scale)
        ownMatrix = .identity
        ownMatrixSource = "default:identity"
        ownMatrixProblems = []
        skipReason = nil
        samplingFrequency = nil
        fromInputDevice = true
    }
}

extension IIODeviceFacts {
    /// An input device's: id `input:eventN`, its name; no buffer, trigger or scan.
    init(input s: InputDeviceSnapshot) {
        id = "input:\(s.sysname)"
        index = s.number
        syspath = s.syspath
        devnode = s.devnode
        name = s.name
        label = nil
        scanElements = []
        trigger = nil
        triggerIsCurrent = false
        timestampClock = nil
        bufferEnabled = false
        sensorProxyType = s.udevProperties["IIO_SENSOR_PROXY_TYPE"]
    }
}

extension AxisChannels {
    /// An input device's axes (`ABS_X`...), read from its event node: no raw attributes, no
    /// scan elements; the drivers calibrate, so the offset is 0.
    init(inputAxes: [AbsoluteAxis], scale: Vector3) {
        channels = inputAxes.map { "\($0)" }
        pollCapable = false
        unreadableRaws = []
        bufferCapable = false
        self.scale = scale
        scaleSources = [:]
        offset = .zero
        offsetSources = [:]
        valueProblem = nil
    }
}
