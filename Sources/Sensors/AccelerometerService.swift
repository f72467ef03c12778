import IIO
import LinuxSystem
import Motion
import Udev

/// The accelerometer as a long-lived source: chooses the device (`Sensor.device`), the
/// driver (`Sensor.mode`), sets `sampling_frequency` (restored on detach), follows
/// hotplug through a udev monitor, and turns readings into device-frame m/s^2 with bad
/// input filtered out. Single-threaded: the caller polls `appendFileDescriptors` with
/// `nextTimeout(now:)` and calls `handle(now:readable:into:)`.
///
/// The paired gyroscope (`PairedGyroscope`, attitude.md section 9) follows hotplug too:
/// one that appears while the accelerometer is attached without one is taken up, and a
/// sibling whose device is removed is dropped at once. Every reading carries its time
/// (`ReadingTimeline`): a sibling read from its own buffer delivers several scans per
/// wakeup, each placed among the accelerometer's by its timestamp.
package final class AccelerometerService {
    package struct Attachment: Sendable {
        package var device: AccelerometerDescription
        /// `poll`, `buffer`, `sysfs-poll`.
        package var mode: String
        /// Why this mode.
        package var modeReason: String
        /// Why this device.
        package var selectionReason: String
        /// e.g. `in_accel_sampling_frequency 125.000000 -> 62.5`, or why unchanged.
        package var samplingFrequency: String
        /// The gyroscope read with it, or why none (attitude.md section 9).
        package var gyro: GyroPairing? = nil
    }

    package enum Event: Sendable {
        /// No accelerometer yet: why. Emitted once per distinct reason.
        case waiting(String)
        case attached(Attachment)
        /// The device went away: which, why.
        case detached(String, reason: String)
        /// A good sample: m/s^2, device frame, after scale, offset, matrix and invert;
        /// `at`: when it was taken, seconds on the caller's clock (the `now` of the
        /// `handle` that delivered it, or earlier for a buffered scan older than the
        /// wakeup's newest).
        case sample(Vector3, RawReading, at: Double)
        /// A good gyroscope reading: rad/s, device frame, after scale, offset and the
        /// gyroscope's matrix, at its time. Readings come in time order; one read with a
        /// sample (the same scan, or polled with it) comes just before it, at its time.
        case gyro(Vector3, at: Double)
        /// A gyroscope taken up while the accelerometer is attached (it appeared later,
        /// or came back): the pairing, and how it is read (the text of the log line).
        case gyroAttached(GyroPairing, how: String)
        /// The gyroscope in use went away (a udev `remove`, or reads that fail): which,
        /// why. The accelerometer goes on alone.
        case gyroDetached(String, reason: String)
        /// Capture the baseline again from the next readings (a recorded recapture, when
        /// a trace is replayed as the sensor); why.
        case recapture(String)
    }

    package let settings: AccelerometerSettings
    private let log: SensorLog
    private let udev: UdevContext?
    private let monitor: UdevMonitor?
    /// iio-sensor-proxy on the system bus (local devices only): a device it may read is
    /// polled, its buffer left alone (`BufferSharing`).
    private let sensorProxy: SensorProxyWatch?
    private var context: Context?
    private var driver: (any AccelerometerDriver)?
    private var calibration = AccelCalibration(scale: Vector3(1, 1, 1))
    /// The paired gyroscope and how it is read.
    private let gyro = PairedGyroscope()
    /// Consecutive gyroscope reads that fail (not bad values: the reads themselves) after
    /// which it is given up (one log line; the accelerometer goes on alone).
    static let gyroGiveUp = 3
    /// A udev `add` or `change` came while the accelerometer is attached without a
    /// gyroscope: look for one once the events of this wakeup are taken.
    private var gyroLookupDue = false
    /// The last reason a gyroscope found on a udev event was not used (said once).
    private var lastGyroRefusal: String?
    /// The sibling's buffered readings and read problems of one wakeup; kept so that
    /// reads allocate nothing.
    private var gyroReadings: [GyroReading] = []
    private var gyroProblems: [ReadProblem] = []
    /// Places each reading of a wakeup in time.
    private var timeline = ReadingTimeline()
    private var restoreFrequency: FrequencyRestore?
    private var lastWaitingReason: String?
    private var nextAttachAttempt = 0.0
    /// When `attachAgainForBuffer` looks next.
    private var nextBufferCheck = 0.0
    private var nextRead = 0.0
    /// Buffer mode: the device node is waited on (it has given data when readable);
    /// cleared when it reports readable without data (an emulated node at its end, a
    /// failing device), set again when a timed read finds data.
    private var bufferWakesUs = true
    /// When the last read that found data happened, and the smoothed time between such
    /// reads while waiting on the buffer (the batch interval the kernel delivers).
    private var lastData: Double?
    private var batchInterval: Double?
    private var limiter = RateLimitedLog(interval: 1.0)
    /// Buffer mode: how long the node has gone without a scan (one line when it stops,
    /// one when it delivers again).
    private var silence: ScanSilence?
    /// The kernel's tablet-mode switches (a convertible folding into tablet mode): each
    /// change asks for a new baseline.
    private var tabletSwitches: [TabletModeSwitch] = []
    /// Devices whose udev `remove` event arrived and no `add` since: never attached,
    /// even if their sysfs directory lingers a moment after the event.
    private var removed: Set<String> = []

    /// Seconds between reads: `1 / Sensor.rate`.
    package var period: Double { max(1 / max(settings.rateHz, 0.1), idlePeriod ?? 0) }

    /// While set, reads happen at most every `idlePeriod` seconds: the runtime sets it
    /// when the device has lain still for a while, so a still device costs next to
    /// nothing, and clears it on the first sample that moves.
    package var idlePeriod: Double? {
        didSet {
            if idlePeriod == nil, oldValue != nil { nextRead = 0 }   // full rate from now
            lastData = nil
        }
    }
    package var attachment: Attachment?

    /// - Throws: only when libudev cannot be initialised for a local selector.
    package init(settings: AccelerometerSettings, log: @escaping SensorLog) throws(SensorError) {
        self.settings = settings
        self.log = log
        if case .uri = settings.device {
            udev = nil
            monitor = nil
            sensorProxy = nil
        } else {
            sensorProxy = SensorProxyWatch(noBus: { why in
                log(.debug, "no system bus (\(why)): iio-sensor-proxy cannot be running; buffers of devices it tags are used", [:])
            })
            let u: UdevContext
            do { u = try UdevContext() } catch { throw SensorError(device: "udev", "\(error)") }
            udev = u
            // Without a monitor, hotplug still works through the once-a-second
            // rediscovery while waiting; a vanished device shows as read errors.
            do {
                monitor = try UdevMonitor(context: u, subsystem: "iio")
            } catch {
                monitor = nil
                log(.warning, "no udev monitor (\(error)); hotplug falls back to rediscovery every second", [:])
            }
            for sw in TabletModeSwitch.find(udev: u) {
                do {
                    tabletSwitches.append(try TabletModeSwitch(devnode: sw.devnode, name: sw.name))
                    log(.info, "tablet-mode switch \(sw.devnode) (\(sw.name)): a change captures a new baseline",
                        ["input.device": sw.devnode])
                } catch {
                    log(.notice, "tablet-mode switch \(sw.devnode) (\(sw.name)) not readable: \(error)", ["input.device": sw.devnode])
                }
            }
        }
    }

    deinit { detach() }

    /// Appends the descriptors to poll for readability: the udev monitor, and in buffer
    /// mode the device node while the device moves (and a sibling gyroscope's, read from
    /// its own buffer).
    package func appendFileDescriptors(to fds: inout [Int32]) {
        if let m = monitor { fds.append(m.fileDescriptor) }
        if let fd = sensorProxy?.fileDescriptor { fds.append(fd) }
        if let fd = bufferDescriptor { fds.append(fd) }
        if let fd = gyroDescriptor { fds.append(fd) }
        for sw in tabletSwitches { fds.append(sw.fileDescriptor) }
    }

    /// A sibling gyroscope's buffer descriptor while the accelerometer's is waited on.
    /// Its watermark is twice a batch, so the accelerometer's wakeups drain it and it
    /// wakes the caller itself only when the accelerometer's scans stop coming.
    private var gyroDescriptor: Int32? {
        guard bufferDescriptor != nil, gyro.isBuffered, gyro.bufferWakesUs else { return nil }
        return gyro.sibling?.pollDescriptor
    }

    /// The buffer's descriptor while reads wait on it: buffer mode, moving (a still
    /// device is read on the idle timer and the kernel buffer keeps its scans meanwhile).
    private var bufferDescriptor: Int32? {
        guard idlePeriod == nil, bufferWakesUs else { return nil }
        return driver?.pollDescriptor
    }

    /// How long the caller may sleep before the next `handle`. Waiting on the buffer,
    /// this is when the next batch is expected (plus a tenth): the caller can line a
    /// frame up with it, and a batch that does not come is looked for then.
    package func nextTimeout(now: Double) -> Double {
        max(0, (driver == nil ? nextAttachAttempt : nextRead) - now)
    }

    /// When the next sample should be there: waiting on the buffer, one batch interval
    /// after the last one; otherwise the next timed read.
    package func nextSampleExpected(now: Double) -> Double {
        if bufferDescriptor != nil, let last = lastData, let gap = batchInterval {
            return max(0, last + gap - now)
        }
        return nextTimeout(now: now)
    }

    /// Does what is due: hotplug events, (re)attaching, reading a sample; appends what
    /// happened to `events`. A wakeup that only reads a sample allocates nothing when the
    /// caller keeps `events` between calls (removing its elements, keeping its capacity).
    package func handle(now: Double, readable: [Int32] = [], into events: inout [Event]) {
        if let m = monitor, readable.contains(m.fileDescriptor) {
            while let d = m.receive() { events += hotplug(d, now: now) }
        }
        if let w = sensorProxy, let fd = w.fileDescriptor, readable.contains(fd), w.process() {
            events += sensorProxyChanged(now: now)
        }
        if gyroLookupDue {
            gyroLookupDue = false
            events += takeUpGyroscope()
        }
        if !tabletSwitches.isEmpty { readTabletSwitches(readable, into: &events) }
        if driver == nil, now >= nextAttachAttempt {
            events += attach(now: now)
        }
        if driver != nil, now >= nextBufferCheck {
            nextBufferCheck = now + 1
            events += attachAgainForBuffer(now: now)
        }
        guard driver != nil else { return }
        let waited = bufferDescriptor
        let woke = waited.map { readable.contains($0) } ?? false
        guard woke || now >= nextRead else {
            // The accelerometer's batch is late, its gyroscope's is there: take it now.
            if let g = gyroDescriptor, readable.contains(g) { readGyroscopeAlone(now: now, into: &events) }
            return
        }
        readOnce(now: now, into: &events)
        if silence != nil { noteSilence(now: now) }
        schedule(now: now, waited: waited != nil, woke: woke, gotData: lastReadHadData)
        if rawReadsRefused { nextRead = max(nextRead, now + Self.refusedRetry) }
        events += dropUnreachableRemote(now: now)
    }

    /// A device polled because `Sensor.mode = auto` found its buffer attributes not
    /// writable is attached again once they are: the daemon started before udev ran
    /// 60-shimmerd.rules on it (the unit does not wait for udev-settle), and udev has now
    /// handed them over. Looked at once a second; a few access(2) calls.
    private func attachAgainForBuffer(now: Double) -> [Event] {
        guard settings.mode == .auto, let a = attachment, a.mode == "poll", a.device.bufferCapable,
              BufferPermission.isPermission(a.modeReason), BufferPermission.problem(a.device, local: a.device.syspath != nil) == nil else { return [] }
        detach()
        log(.notice, "\(a.device.displayName): its buffer attributes are writable now (udev handed them over); attaching it again for buffer mode",
            ["sensor.device": a.device.id])
        nextAttachAttempt = now
        return [.detached(a.device.displayName, reason: "its buffer attributes became writable")]
    }

    /// A remote sensor (`uri:`) whose reads have failed for `remoteGiveUp` seconds is
    /// released, as a local one is on a udev `remove`: the card eases back to center and
    /// the context is opened again every second until iiod answers, with a new baseline.
    /// (A libiio network context does not reconnect by itself; local devices leave
    /// through udev and keep reporting read errors otherwise.)
    private func dropUnreachableRemote(now: Double) -> [Event] {
        guard case .uri(let uri) = settings.device, let a = attachment else { return [] }
        if lastReadHadData || lastReadError == nil {
            failingSince = nil
            return []
        }
        let since = failingSince ?? now
        failingSince = since
        guard now - since >= Self.remoteGiveUp else { return [] }
        let reason = "every read from \(uri) failed for \(Int(Self.remoteGiveUp)) s (last: \(lastReadError ?? "?"))"
        detach(deviceGone: true)
        failingSince = nil
        nextAttachAttempt = now
        log(.warning, "accelerometer \(a.device.displayName) unreachable: \(reason); released it, reconnecting every second",
            ["sensor.device": a.device.id])
        return [.detached(a.device.displayName, reason: reason)]
    }

    /// Seconds of failing reads after which a remote sensor is released.
    static let remoteGiveUp = 2.0

    /// The next timed read. Waiting on the buffer it is a fallback (the descriptor wakes
    /// the caller first); otherwise reads are paced at `period`.
    private func schedule(now: Double, waited: Bool, woke: Bool, gotData: Bool) {
        if waited {
            let expected = batchInterval ?? period
            if gotData {
                // The kernel's pace, learnt: consecutive batches only (a gap of two or
                // more intervals is a batch the timed read took, or a pause).
                if let last = lastData, now - last > 0.5 * expected, now - last < 1.5 * expected {
                    batchInterval = 0.8 * expected + 0.2 * (now - last)
                }
                lastData = now
                nextRead = now + 1.1 * (batchInterval ?? period)
            } else if woke {
                // Readable without data: not a real watermark; timed reads from here on.
                bufferWakesUs = false
                lastData = nil
                nextRead = now + period
            } else {
                nextRead = now + expected    // a late batch: the descriptor wakes us when it comes
            }
        } else {
            nextRead = max(nextRead + period, now - period)
            if gotData, !bufferWakesUs { bufferWakesUs = true }
            lastData = nil
        }
    }

    /// A change of a tablet-mode switch asks for a new baseline; a switch whose node
    /// fails is dropped with one line.
    private func readTabletSwitches(_ readable: [Int32], into events: inout [Event]) {
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
                    log(.notice, "\(why); capturing a new baseline", ["input.device": sw.devnode])
                    events.append(.recapture(why))
                }
                i += 1
            } catch {
                log(.warning, "tablet-mode switch \(sw.devnode) (\(sw.name)) stopped: \(error)", ["input.device": sw.devnode])
                tabletSwitches.remove(at: i)
            }
        }
    }

    // MARK: hotplug

    private func hotplug(_ d: UdevDevice, now: Double) -> [Event] {
        let action = d.action ?? ""
        log(.debug, "udev \(action) \(d.sysname)", ["udev.action": action, "udev.syspath": d.syspath])
        if action == "remove" { removed.insert(d.syspath) }
        if action == "add" { removed.remove(d.syspath) }
        if action == "remove", let a = attachment, a.device.syspath == d.syspath {
            detach(deviceGone: true)
            let reason = "udev remove event for \(d.syspath)"
            log(.warning, "accelerometer \(a.device.displayName) disappeared (\(reason)); released it, waiting for it to come back",
                ["sensor.device": a.device.id])
            nextAttachAttempt = now
            return [.detached(a.device.displayName, reason: reason)]
        }
        if action == "remove", let g = gyro.sibling, g.device.syspath == d.syspath {
            return dropGyroscope(g.device.displayName, why: "udev remove event for \(d.syspath)", deviceGone: true)
        }
        if action == "add" || action == "change", driver == nil {
            nextAttachAttempt = now
        }
        if action == "change", let a = attachment, a.device.syspath == d.syspath, a.mode == "buffer",
           let s = Discovery.snapshot(of: d, triggerNames: []),
           let why = BufferSharing.reason(sensorProxyType: s.sensorProxyType, sensorProxy: sensorProxyState) {
            return giveBackBuffer(why: "udev change event: \(why)", now: now)
        }
        if action == "add" || action == "change", driver != nil, !gyro.isUsed, settings.gyro != .none {
            gyroLookupDue = true    // once the burst of events is taken
        }
        return []
    }

    /// What is known of iio-sensor-proxy; `.noBus` for a remote device.
    private var sensorProxyState: BufferSharing.SensorProxy { sensorProxy?.state ?? .noBus }

    /// iio-sensor-proxy came or went on the system bus: said in one line; a buffer it may
    /// read is given back at once.
    private func sensorProxyChanged(now: Double) -> [Event] {
        let state = sensorProxyState
        let text = switch state {
        case .noBus: "the system bus connection was lost"
        case .bus(running: true): "\(BufferSharing.sensorProxyBusName) appeared on the system bus"
        case .bus: "\(BufferSharing.sensorProxyBusName) is not on the system bus"
        }
        log(.info, "iio-sensor-proxy: \(text)", [:])
        guard let a = attachment, a.mode == "buffer",
              let why = BufferSharing.reason(sensorProxyType: a.device.sensorProxyType, sensorProxy: state) else { return [] }
        return giveBackBuffer(why: why, now: now)
    }

    /// Releases a buffer another reader may want (disabled, its attributes put back) and
    /// attaches again at once, polling.
    private func giveBackBuffer(why: String, now: Double) -> [Event] {
        guard let a = attachment else { return [] }
        detach()
        nextAttachAttempt = now
        log(.notice, "\(a.device.displayName): \(why); giving its buffer back, polling from now on",
            ["sensor.device": a.device.id])
        return [.detached(a.device.displayName, reason: why)]
    }

    /// Looks for a gyroscope to pair with the attached accelerometer (one appeared, or
    /// the one in use came back) and takes it up with one line; says once why one that
    /// was found is not used (the self-check's verdict stands until the accelerometer
    /// attaches anew).
    private func takeUpGyroscope() -> [Event] {
        guard let drv = driver, var a = attachment, !gyro.isUsed, let udev else { return [] }
        let snapshots: [AttributeSnapshot]
        do { snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed.contains($0.syspath ?? "") } } catch {
            log(.debug, "no gyroscope looked for: \(error)", [:])
            return []
        }
        let pairing = GyroPairing.pair(accelerometer: a.device, gyroscopes: Discovery.gyroscopes(snapshots),
                                       selector: settings.gyro, configuredMatrix: settings.gyroMountMatrix)
        guard pairing.gyro != nil else {
            log(.debug, "no gyroscope to take up: \(pairing.reason)", [:])
            return []
        }
        // The accelerometer's libiio context was built before this device existed.
        let context: Context?
        do { context = try Context() } catch {
            context = nil
        }
        let how = gyro.start(pairing, accelerometer: a.device, driver: drv, context: context, local: true,
                             settings: settings, sensorProxy: sensorProxyState)
        guard gyro.isUsed else {
            refuseGyroscope("gyroscope found but not used: \(how)", device: a.device)
            return []
        }
        lastGyroRefusal = nil
        reserveGyroscopeReadings()
        a.gyro = pairing
        attachment = a
        log(.notice, "now using gyroscope \(how) (it appeared after the accelerometer attached)",
            ["sensor.device": a.device.id, "sensor.gyro": pairing.gyro?.id ?? ""])
        return [.gyroAttached(pairing, how: how)]
    }

    /// Why a gyroscope that appeared is not used: one line per distinct reason.
    private func refuseGyroscope(_ line: String, device: AccelerometerDescription) {
        guard line != lastGyroRefusal else { return }
        lastGyroRefusal = line
        log(.notice, line, ["sensor.device": device.id])
    }

    /// Room for the most readings a sibling's read gives, so that reads never grow the
    /// array (a kernel buffer holds a bounded number of scans).
    private func reserveGyroscopeReadings() {
        if let n = gyro.sibling?.maximumReadingsPerRead { gyroReadings.reserveCapacity(n) }
    }

    /// Stops using the gyroscope with one line; the accelerometer goes on alone.
    private func dropGyroscope(_ name: String, why: String, deviceGone: Bool, attribute: String? = nil) -> [Event] {
        for e in gyro.release(deviceGone: deviceGone) {
            log(.warning, "\(e)", ["sensor.device": attachment?.device.id ?? ""])
        }
        attachment?.gyro = GyroPairing(gyro: nil, reason: "\(name) went away: \(why)")
        var metadata = ["sensor.device": attachment?.device.id ?? ""]
        if let attribute { metadata["sensor.attribute"] = attribute }
        log(.warning, "gyroscope \(name) stopped giving readings (\(why)); continuing with the accelerometer alone", metadata)
        return [.gyroDetached(name, reason: why)]
    }

    // MARK: attach

    private func attach(now: Double) -> [Event] {
        nextAttachAttempt = now + 1.0
        let descriptions: [AccelerometerDescription]
        var gyroscopes: [GyroscopeDescription] = []
        var localContext: Context?
        var contextError: IIOError?
        switch settings.device {
        case .uri(let uri):
            do {
                let c = try Context(uri: uri)
                try? c.setTimeout(milliseconds: 5000)
                localContext = c
                let snapshots = Discovery.remoteSnapshots(context: c)
                descriptions = snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) }
                gyroscopes = Discovery.gyroscopes(snapshots)
            } catch {
                return waiting("cannot open libiio context \(uri): \(error)")
            }
        case .trace(let f):
            return waiting("trace:\(f) is replayed by the runtime, not read as a sensor")
        default:
            guard let udev else { return waiting("no udev") }
            do {
                let snapshots = try Discovery.localSnapshots(udev: udev).filter { !removed.contains($0.syspath ?? "") }
                descriptions = snapshots.map { AccelerometerDescription(snapshot: $0, configuredMatrix: settings.mountMatrix) }
                gyroscopes = Discovery.gyroscopes(snapshots)
            } catch {
                return waiting("\(error)")
            }
        }
        let selection = SensorSelection.select(settings.device, from: descriptions)
        guard let chosen = selection.chosen else {
            let skipped = selection.notChosen.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return waiting(selection.reason + (skipped.isEmpty ? "" : " (" + skipped.joined(separator: "; ") + ")"))
        }
        for p in chosen.mountMatrixProblems {
            log(.warning, "\(chosen.displayName): malformed mount matrix \(p); using \(chosen.mountMatrixSource)",
                ["sensor.device": chosen.id, "sensor.attribute": p])
        }
        if localContext == nil {
            do { localContext = try Context() } catch { contextError = error }
        }

        let pairing = GyroPairing.pair(accelerometer: chosen, gyroscopes: gyroscopes, selector: settings.gyro,
                                       configuredMatrix: settings.gyroMountMatrix)
        let ownGyro = pairing.gyro.flatMap { $0.id == chosen.id ? $0 : nil }
        let made: Result<(any AccelerometerDriver, String), SensorError>
        // The rate the device will sample at once `sampling_frequency` is set.
        let deviceHz = chosen.samplingFrequency.flatMap { $0.target(forRate: settings.rateHz) ?? $0.currentHz }
            ?? settings.rateHz
        // Scans per buffer wakeup. Over the network a refill blocks until its scans came
        // (libiio's network backend has no poll descriptor): one scan per read there.
        let local = chosen.syspath != nil
        let shared = BufferSharing.reason(chosen, sensorProxy: sensorProxyState)
        let scansPerWakeup = local ? settings.scansPerWakeup(deviceHz: deviceHz) : 1
        if let c = localContext {
            made = Self.makeIIODriver(chosen, context: c, mode: settings.mode, local: local, scansPerWakeup: scansPerWakeup,
                                      gyro: ownGyro, shared: shared)
        } else {
            made = Self.makeSysfsDriver(chosen, mode: settings.mode, contextError: contextError)
        }
        let (drv, modeReason): (any AccelerometerDriver, String)
        switch made {
        case .success(let d): (drv, modeReason) = d
        case .failure(let e): return waiting("\(e)")
        }
        context = localContext
        driver = drv
        bufferWakesUs = true
        lastData = nil
        batchInterval = Double(scansPerWakeup) / deviceHz   // used only while a buffer wakes us
        silence = drv.modeName == "buffer" ? ScanSilence(attachedAt: now) : nil
        calibration = chosen.calibration(invert: settings.invert)
        let freq = setSamplingFrequency(chosen, driver: drv, shared: shared != nil)
        lastGyroRefusal = nil
        let gyroText = gyro.start(pairing, accelerometer: chosen, driver: drv, context: localContext, local: local,
                                  settings: settings, sensorProxy: sensorProxyState)
        reserveGyroscopeReadings()
        let a = Attachment(device: chosen, mode: drv.modeName, modeReason: modeReason,
                           selectionReason: selection.reason, samplingFrequency: freq,
                           gyro: gyro.isUsed ? pairing : GyroPairing(gyro: nil, reason: gyroText))
        attachment = a
        lastWaitingReason = nil
        nextRead = now
        log(.notice, "using \(chosen.displayName) in \(drv.modeName) mode: \(modeReason); \(selection.reason); "
            + "mount matrix \(chosen.mountMatrix) from \(chosen.mountMatrixSource); sampling frequency: \(freq); "
            + "gyroscope: \(gyroText)",
            ["sensor.device": chosen.id, "sensor.mode": drv.modeName])
        return [.attached(a)]
    }

    private func waiting(_ reason: String) -> [Event] {
        guard reason != lastWaitingReason else { return [] }
        lastWaitingReason = reason
        log(.notice, "waiting for an accelerometer: \(reason)", [:])
        return [.waiting(reason)]
    }

    private func setSamplingFrequency(_ d: AccelerometerDescription, driver: any AccelerometerDriver, shared: Bool) -> String {
        guard let info = d.samplingFrequency else { return "no sampling_frequency attribute" }
        let (text, restore) = Self.setSamplingFrequency(info, rateHz: settings.rateHz, syspath: d.syspath, shared: shared,
                                                        write: driver.writeAttribute)
        restoreFrequency = restore
        return text
    }

    /// Writes the sampling frequency that fits `rateHz` (`SamplingFrequencyInfo.target`)
    /// where the process may; says what was done, and what to write back on release (the
    /// file, the text it had, the text written). Where another reader may be reading
    /// (`shared`) it is only ever raised (`BufferSharing.sharedTarget`).
    static func setSamplingFrequency(_ info: SamplingFrequencyInfo, rateHz: Double, syspath: String?, shared: Bool = false,
                                     write: (String, String) throws(SensorError) -> Void)
        -> (String, restore: FrequencyRestore?)
    {
        if info.availableListIsGarbage {
            let list = info.availableText.abbreviated
            return ("\(info.attribute) = \(info.currentText) kept: its _available list \"\(list)\" holds no frequency "
                    + "(\(info.unusableEntries.count) entries not a number above 0 and at most 100000 Hz)", nil)
        }
        let target: Double
        if shared {
            guard let t = BufferSharing.sharedTarget(info, rateHz: rateHz) else {
                return info.target(forRate: rateHz) == nil
                    ? ("\(info.attribute) = \(info.currentText) already fits \(SamplingFrequencyInfo.text(rateHz)) Hz", nil)
                    : ("\(info.attribute) = \(info.currentText) kept: another reader may use the device, and it is never lowered under one", nil)
            }
            target = t
        } else {
            guard let t = info.target(forRate: rateHz) else {
                return ("\(info.attribute) = \(info.currentText) already fits \(SamplingFrequencyInfo.text(rateHz)) Hz", nil)
            }
            target = t
        }
        if let p = syspath, !SysfsAttributeFile.isWritable("\(p)/\(info.attribute)") {
            return ("\(info.attribute) = \(info.currentText) kept: not writable by this process", nil)
        }
        let text = SamplingFrequencyInfo.text(target)
        do {
            try write(info.attribute, text)
            return ("\(info.attribute) \(info.currentText) -> \(text) (lowest available >= max(rate, 10 Hz)); "
                    + "restored on exit unless changed meanwhile",
                    FrequencyRestore(file: info.attribute, text: info.currentText, written: text, syspath: syspath))
        } catch {
            return ("\(info.attribute) = \(info.currentText) kept: \(error)", nil)
        }
    }

    // MARK: detach

    /// Releases the device: disables the buffer, restores `sampling_frequency` (unless
    /// the device is gone), drops the libiio context.
    package func detach(deviceGone: Bool = false) {
        guard let d = driver else { return }
        do { try d.close() } catch {
            log(.warning, "\(error)", ["sensor.device": d.device.id])
        }
        if let r = restoreFrequency, !deviceGone {
            do {
                if let why = try r.putBack(write: d.writeAttribute) { log(.info, why, ["sensor.device": d.device.id]) }
            } catch {
                log(.warning, "\(error)", ["sensor.device": d.device.id])
            }
        }
        restoreFrequency = nil
        // A sibling gyroscope goes with it (a hub's devices usually leave together).
        for e in gyro.release(deviceGone: deviceGone) {
            log(.warning, "\(e)", ["sensor.device": d.device.id])
        }
        gyroLookupDue = false
        driver = nil
        context = nil
        attachment = nil
        silence = nil
    }

    /// A buffer that stops delivering while its device is still there (no udev event
    /// says anything) is said once, and its return once.
    private func noteSilence(now: Double) {
        guard let drv = driver, let change = silence?.read(gotData: lastReadHadData, at: now,
                                                           interval: idlePeriod ?? batchInterval ?? period) else { return }
        let node = drv.device.devnode ?? drv.device.id
        switch change {
        case .silent(let seconds):
            log(.warning, "accelerometer \(drv.device.displayName): no scan from \(node) for \(Self.number(seconds.rounded())) s "
                + "although the device is still there; the card keeps its last attitude until scans come again",
                ["sensor.device": drv.device.id])
        case .delivering(let seconds):
            log(.info, "accelerometer \(drv.device.displayName): \(node) delivering again after \(Self.number(seconds.rounded())) s without a scan",
                ["sensor.device": drv.device.id])
        }
    }

    // MARK: reading

    /// The kernel refuses raw reads (EBUSY): another program has the device's buffer
    /// enabled (bmc150, kxcjk-1013, st_sensors and mxc4005 answer raw reads so while their
    /// buffer runs). Reads are retried every `refusedRetry` seconds until they are answered.
    private var rawReadsRefused = false
    static let refusedRetry = 1.0
    /// strerror(EBUSY), as the read problems carry it.
    static let busyText = "Device or resource busy"

    /// The first refused raw read: one line.
    private func refused(_ p: ReadProblem, device: AccelerometerDescription) {
        guard !rawReadsRefused else { return }
        rawReadsRefused = true
        log(.warning, "\(device.displayName): the kernel refuses raw reads (\(p.attribute): \(p.reason)): another program "
            + "has its buffer enabled; shimmerd leaves it alone and retries every \(Int(Self.refusedRetry)) s",
            ["sensor.device": device.id, "sensor.attribute": p.attribute])
    }

    /// Whether the last read gave a reading (good or rejected).
    private var lastReadHadData = false
    /// The last read's transport failure (the device or the connection, not a bad value).
    private var lastReadError: String?
    /// Since when every read of a remote sensor has failed.
    private var failingSince: Double?

    /// What the driver gave at the last read; kept so that reads allocate nothing.
    private var driverEvents: [DriverEvent] = []

    private func readOnce(now: Double, into events: inout [Event]) {
        guard let drv = driver else { return }
        if lastReadHadData, rawReadsRefused {
            rawReadsRefused = false
            log(.notice, "\(drv.device.displayName): raw reads answered again", ["sensor.device": drv.device.id])
        }
        lastReadHadData = false
        lastReadError = nil
        driverEvents.removeAll(keepingCapacity: true)
        drv.read(at: now, into: &driverEvents)
        // A sibling read from its own buffer: every scan that came since the last read,
        // placed in time among the accelerometer's readings by the timestamps.
        let buffered = readGyroscopeBuffer(now: now, into: &events)
        var newestNs = buffered ? gyroReadings.last?.timestampNs : nil
        for case .reading(let r) in driverEvents {
            if let ts = r.timestampNs { newestNs = max(newestNs ?? ts, ts) }
        }
        timeline.begin(now: now, newestNs: newestNs)
        var nextGyro = 0
        for e in driverEvents {
            switch e {
            case .problem(let p):
                if p.isReadFailure { lastReadError = p.reason }
                if p.isReadFailure, drv.modeName != "buffer", p.reason.contains(Self.busyText) {
                    refused(p, device: drv.device)
                } else {
                    report(p, device: drv.device, now: now)
                }
            case .note(let n):
                log(.info, "\(drv.device.displayName): \(n)", ["sensor.device": drv.device.id])
            case .gyroProblem(let p):
                gyroFailed(p, now: now, into: &events)
            case .reading(var r):
                lastReadHadData = true
                if buffered {
                    // Its scans up to this reading's come first (all of them when either
                    // has no timestamp).
                    while nextGyro < gyroReadings.count,
                          Self.notAfter(gyroReadings[nextGyro].timestampNs, r.timestampNs) {
                        emitGyroscope(gyroReadings[nextGyro], into: &events)
                        nextGyro += 1
                    }
                } else if gyro.sibling != nil {
                    r.gyroRaw = pollGyroscope(now: now, into: &events)
                }
                let t = timeline.time(ofNs: r.timestampNs)
                if let raw = r.gyroRaw { emitGyroscope(raw, at: t, into: &events) }
                let a = calibration.acceleration(raw: r.raw)
                let why = SampleRejection.check(a).map { "\($0)" }
                    ?? (a.length > Self.implausibleAcceleration ? "implausible acceleration (over 32 g)" : nil)
                if let why {
                    let raw = "\(Self.number(r.raw.x)) \(Self.number(r.raw.y)) \(Self.number(r.raw.z))"
                    report(ReadProblem(attribute: "in_accel_x_raw,in_accel_y_raw,in_accel_z_raw", value: raw,
                                       reason: why), device: drv.device, now: now)
                } else {
                    events.append(.sample(a, r, at: t))
                }
            }
        }
        while nextGyro < gyroReadings.count {    // scans newer than the accelerometer's
            emitGyroscope(gyroReadings[nextGyro], into: &events)
            nextGyro += 1
        }
    }

    /// A wakeup by the sibling gyroscope's own buffer alone: its scans, placed by their
    /// timestamps, the newest at `now`. A node readable without data (an emulated one at
    /// its end) is not waited on again until a read finds data.
    private func readGyroscopeAlone(now: Double, into events: inout [Event]) {
        guard readGyroscopeBuffer(now: now, into: &events) else { return }
        if gyroReadings.isEmpty {
            gyro.bufferWakesUs = false
            return
        }
        timeline.begin(now: now, newestNs: gyroReadings.last?.timestampNs)
        for r in gyroReadings { emitGyroscope(r, into: &events) }
    }

    /// Drains the sibling gyroscope's buffer into `gyroReadings`; false unless the
    /// gyroscope is used and read from its own buffer.
    private func readGyroscopeBuffer(now: Double, into events: inout [Event]) -> Bool {
        gyroReadings.removeAll(keepingCapacity: true)
        guard gyro.isBuffered, let sibling = gyro.sibling else { return false }
        gyroProblems.removeAll(keepingCapacity: true)
        sibling.read(into: &gyroReadings, problems: &gyroProblems)
        if !gyroReadings.isEmpty { gyro.bufferWakesUs = true }
        for p in gyroProblems { gyroFailed(p, now: now, into: &events) }
        guard gyro.isUsed else {
            gyroReadings.removeAll(keepingCapacity: true)
            return false
        }
        return true
    }

    /// The polled sibling's counts for the reading in hand, or nil (a problem reported).
    private func pollGyroscope(now: Double, into events: inout [Event]) -> Vector3? {
        guard let sibling = gyro.sibling else { return nil }
        gyroReadings.removeAll(keepingCapacity: true)
        gyroProblems.removeAll(keepingCapacity: true)
        sibling.read(into: &gyroReadings, problems: &gyroProblems)
        for p in gyroProblems { gyroFailed(p, now: now, into: &events) }
        return gyroReadings.last?.raw
    }

    /// Whether a scan with timestamp `a` comes no later than one with `b`; true when
    /// either has none.
    private static func notAfter(_ a: Int64?, _ b: Int64?) -> Bool {
        guard let a, let b else { return true }
        return a <= b
    }

    private func emitGyroscope(_ r: GyroReading, into events: inout [Event]) {
        emitGyroscope(r.raw, at: timeline.time(ofNs: r.timestampNs), into: &events)
    }

    /// Counts to rad/s in the device frame; a bad value is reported and skipped.
    private func emitGyroscope(_ raw: Vector3, at t: Double, into events: inout [Event]) {
        guard let cal = gyro.calibration, let drv = driver else { return }
        let w = cal.angularVelocity(raw: raw)
        if let why = SampleRejection.checkRate(w) {
            let text = "\(Self.number(raw.x)) \(Self.number(raw.y)) \(Self.number(raw.z))"
            report(ReadProblem(attribute: "in_anglvel_x_raw,in_anglvel_y_raw,in_anglvel_z_raw", value: text,
                               reason: "\(why)"), device: drv.device, now: t, what: "gyroscope reading")
        } else {
            gyro.failures = 0
            events.append(.gyro(w, at: t))
        }
    }

    /// A gyroscope read that failed: a bad value is reported and skipped like a bad
    /// sample; `gyroGiveUp` reads in a row that fail (the device went away) give the
    /// gyroscope up with one line.
    private func gyroFailed(_ p: ReadProblem, now: Double, into events: inout [Event]) {
        guard gyro.isUsed, let drv = driver else { return }
        if p.isReadFailure { gyro.failures += 1 }
        if gyro.failures >= Self.gyroGiveUp {
            let name = gyro.sibling?.device.displayName ?? drv.device.displayName
            events += dropGyroscope(name, why: "\(p.attribute) = \"\(p.value)\": \(p.reason)", deviceGone: true,
                                    attribute: p.attribute)
            return
        }
        report(p, device: drv.device, now: now, what: "gyroscope reading")
    }

    private func report(_ p: ReadProblem, device: AccelerometerDescription, now: Double, what: String = "sample") {
        let (admitted, suppressed) = limiter.admit("\(device.id)|\(p.cause)", at: now)
        guard admitted else { return }
        log(.warning, "\(device.displayName): \(what) skipped: \(p.attribute) = \"\(p.value)\": \(p.reason)"
            + (suppressed > 0 ? " (\(suppressed) more since the last report)" : ""),
            ["sensor.device": device.id, "sensor.attribute": p.attribute, "sensor.value": p.value])
    }

    /// m/s^2: 32 g. Accelerometers in laptops and tablets are set to at most +-16 g per
    /// axis (27.7 g as a vector), so a larger reading did not come from the sensor's range:
    /// it is a corrupt value that still parsed (2147483647 counts on a 12-bit part). The
    /// check is here, at the device, because the attitude math is scale invariant on
    /// purpose (attitude.md) and must stay so for any input it is given.
    static let implausibleAcceleration = 32 * 9.80665

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
