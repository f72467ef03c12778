import LinuxSystem
import Logging
import Udev

/// What comes and goes around the accelerometer: udev's `add`, `change` and `remove` of
/// IIO and input devices, iio-sensor-proxy on the system bus, the kernel's tablet-mode
/// switches. It reads them when their descriptors are readable and hands back what
/// changed as values (`Change`); `AccelerometerService` acts on them (releases, attaches,
/// looks for a gyroscope). It remembers the devices removed (never attached, even if
/// their sysfs directory lingers a moment after the event). Every stored property is its
/// own. A remote selector (`uri:`) has none of these: no udev, no bus, no switches.
final class HotplugWatch {
    /// One thing that changed.
    enum Change: Equatable, Sendable {
        /// A udev `remove` of the device at `syspath`.
        case removed(syspath: String)
        /// A udev `add` or `change`: a device may be there to attach, or a gyroscope to take up.
        case appeared(syspath: String)
        /// A udev `change` of the device whose buffer is read: iio-sensor-proxy may read it
        /// now; why it is given back.
        case bufferWanted(syspath: String, why: String)
        /// iio-sensor-proxy came or went (the line is said).
        case sensorProxy(BufferSharing.SensorProxy)
        /// A tablet-mode switch changed (the line is said): why a new baseline.
        case tabletMode(String)
    }

    private let log: Logger
    private let udev: UdevContext?
    private let monitor: UdevMonitor?
    /// iio-sensor-proxy on the system bus (local devices only): a device it may read is
    /// polled, its buffer left alone (`BufferSharing`).
    private let sensorProxy: SensorProxyWatch?
    /// The kernel's tablet-mode switches (a convertible folding into tablet mode): each
    /// change asks for a new baseline.
    private var tabletSwitches: [TabletModeSwitch] = []
    /// The switch's lines: two every 2 s at most (a fold and an unfold in quick succession
    /// are both said), with how many changes were held back; a switch that flaps (a loose
    /// hinge sensor, a uinput device claiming SW_TABLET_MODE) must not flood the journal.
    private var switchLines = RateLimiter(interval: 2, burst: 2)
    /// The switches' changes, handed on as new baselines at most every 0.5 s, the newest last.
    private var switchChanges = TabletModeHold(interval: 0.5)
    /// Devices whose udev `remove` event arrived and no `add` since.
    private var removed: Set<String> = []
    /// The bus going away and coming back, for iio-sensor-proxy's lines (`sayProxy`).
    private var proxyOutages = FlapLimiter()
    /// What was last said of iio-sensor-proxy, and what before the connection was lost.
    private var proxySaid: BufferSharing.SensorProxy?
    private var proxyBeforeLoss: BufferSharing.SensorProxy?

    /// - Parameter local: the devices are this machine's (else nothing is watched).
    /// - Throws: only when libudev cannot be initialised for local devices.
    init(local: Bool, log: Logger) throws(SensorError) {
        self.log = log
        guard local else {
            (udev, monitor, sensorProxy) = (nil, nil, nil)
            return
        }
        sensorProxy = SensorProxyWatch(noBus: { why in
            log.debug("no system bus (\(why)): iio-sensor-proxy cannot be running; buffers of devices it tags are used")
        })
        let u: UdevContext
        do { u = try UdevContext() } catch { throw SensorError(device: "udev", "\(error)") }
        udev = u
        // Without a monitor, hotplug still works through the once-a-second
        // rediscovery while waiting; a vanished device shows as read errors.
        do {
            // IIO devices, and input devices (accelerometers, game controllers).
            monitor = try UdevMonitor(context: u, subsystems: ["iio", "input"])
        } catch {
            monitor = nil
            log.warning("no udev monitor (\(error)); hotplug falls back to rediscovery every second")
        }
        for sw in TabletModeSwitch.find(udev: u) {
            do {
                tabletSwitches.append(try TabletModeSwitch(devnode: sw.devnode, name: sw.name))
                log.info(
                    "tablet-mode switch \(sw.devnode) (\(sw.name)): a change captures a new baseline",
                    ["input.device": sw.devnode])
            } catch {
                log.notice(
                    "tablet-mode switch \(sw.devnode) (\(sw.name)) not readable: \(error)", ["input.device": sw.devnode]
                )
            }
        }
    }

    /// udev, to enumerate local devices with; nil for a remote selector.
    var udevContext: UdevContext? { udev }

    /// What is known of iio-sensor-proxy; `.noBus` for a remote device.
    var sensorProxyState: BufferSharing.SensorProxy { sensorProxy?.state ?? .noBus }

    /// Whether udev removed the device at `syspath` (and has not added it since).
    func isRemoved(_ syspath: String?) -> Bool {
        guard let syspath else { return false }
        return removed.contains(syspath)
    }

    /// Appends the descriptors to poll: the udev monitor, the bus, the switches.
    func appendFileDescriptors(to fds: inout [Int32]) {
        if let m = monitor { fds.append(m.fileDescriptor) }
        if let fd = sensorProxy?.fileDescriptor { fds.append(fd) }
        for sw in tabletSwitches { fds.append(sw.fileDescriptor) }
    }

    /// Seconds until the bus watch is due even without its descriptor (a reply's timeout,
    /// a reconnect), or a switch's change held back is handed on.
    func timeout(now: Double) -> Double {
        min(sensorProxy?.timeout(now: now) ?? .infinity, switchChanges.timeout(now: now))
    }

    /// Takes what the readable descriptors have and appends what changed, in order.
    /// - Parameter bufferOf: the syspath of the device whose buffer is read, if any.
    func take(readable: [Int32], now: Double, bufferOf: String?, into changes: inout [Change]) {
        if let m = monitor, readable.contains(m.fileDescriptor) {
            while let d = m.receive() {
                let action = d.action ?? ""
                log.debug("udev \(action) \(d.sysname)", ["udev.action": action, "udev.syspath": d.syspath])
                if action == "remove" { removed.insert(d.syspath) }
                if action == "add" { removed.remove(d.syspath) }
                let change = Self.change(
                    action: action, syspath: d.syspath, bufferOf: bufferOf, sensorProxy: sensorProxyState,
                    sensorProxyType: Discovery.snapshot(of: d, triggerNames: [])?.sensorProxyType)
                if let change { changes.append(change) }
            }
        }
        if let w = sensorProxy, w.process(now: now, readable: readable) {
            let state = w.state
            sayProxy(state, now: now)
            changes.append(.sensorProxy(state))
        }
        if !tabletSwitches.isEmpty { readTabletSwitches(readable, now: now) }
        if let why = switchChanges.due(now: now) { changes.append(.tabletMode(why)) }
    }

    /// What a udev event says: `remove` a device gone; `add` or `change` one that may be
    /// there; a `change` of the device whose buffer is read (`bufferOf`) that iio-sensor-proxy
    /// may now read (`sensorProxyType`, its udev tag, looked at only then) wants the buffer
    /// back. Other actions (`bind`, `unbind`, `move`) say nothing.
    static func change(
        action: String, syspath: String, bufferOf: String?, sensorProxy: BufferSharing.SensorProxy,
        sensorProxyType: @autoclosure () -> String?
    ) -> Change? {
        switch action {
        case "remove":
            return .removed(syspath: syspath)
        case "change" where syspath == bufferOf:
            if let why = BufferSharing.reason(sensorProxyType: sensorProxyType(), sensorProxy: sensorProxy) {
                return .bufferWanted(syspath: syspath, why: "udev change event: \(why)")
            }
            return .appeared(syspath: syspath)
        case "add", "change":
            return .appeared(syspath: syspath)
        default:
            return nil
        }
    }

    /// Says what is known of iio-sensor-proxy now. A bus that restarts over and over is
    /// told for at most three of its restarts a minute (`FlapLimiter`): the connection lost,
    /// then what is known once it is back; a restart not told says nothing when it leaves
    /// things as they were.
    private func sayProxy(_ state: BufferSharing.SensorProxy, now: Double) {
        if state == .disconnected {
            let told = proxyOutages.gone(now: now)
            if proxyBeforeLoss == nil { proxyBeforeLoss = proxySaid }
            guard told.say else { return }
            log.info(
                "iio-sensor-proxy: \(Self.text(state))"
                    + (told.untold > 0 ? " (lost \(told.untold) more times since the last such line)" : ""))
        } else if let before = proxyBeforeLoss {
            proxyBeforeLoss = nil
            guard proxyOutages.back() || state != before else {
                proxySaid = state
                return
            }
            log.info("iio-sensor-proxy: \(Self.text(state))")
        } else {
            log.info("iio-sensor-proxy: \(Self.text(state))")
        }
        proxySaid = state
    }

    /// How iio-sensor-proxy's state is said.
    static func text(_ state: BufferSharing.SensorProxy) -> String {
        switch state {
        case .noBus: "there is no system bus"
        case .disconnected: "the system bus connection was lost; until it is back, iio-sensor-proxy may be running"
        case .bus(running: true): "\(BufferSharing.sensorProxyBusName) appeared on the system bus"
        case .bus: "\(BufferSharing.sensorProxyBusName) is not on the system bus"
        }
    }

    /// A change of a tablet-mode switch asks for a new baseline (said as `switchLines`
    /// allows, handed on as `switchChanges` allows); a switch whose node fails is
    /// dropped with one line.
    private func readTabletSwitches(_ readable: [Int32], now: Double) {
        var i = 0
        while i < tabletSwitches.count {
            let sw = tabletSwitches[i]
            guard readable.contains(sw.fileDescriptor) else {
                i += 1
                continue
            }
            do {
                if let value = try sw.read() {
                    let why = "tablet-mode switch \(sw.name): \(value != 0 ? "tablet mode" : "laptop mode")"
                    let (allowed, held) = switchLines.allow(sw.devnode, now: now)
                    if allowed {
                        log.notice(
                            "\(why); capturing a new baseline"
                                + (held > 0 ? " (\(held) more changes since the last report)" : ""),
                            ["input.device": sw.devnode])
                    }
                    switchChanges.changed(why)
                }
                i += 1
            } catch {
                log.warning(
                    "tablet-mode switch \(sw.devnode) (\(sw.name)) stopped: \(error)", ["input.device": sw.devnode])
                tabletSwitches.remove(at: i)
            }
        }
    }
}
