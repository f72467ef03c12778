import IIO
import LinuxSystem
import Logging
import Motion

/// The accelerometer as a long-lived source: chooses the device (`Sensor.device`), the
/// driver (`Sensor.mode`), sets `sampling_frequency` (restored on detach), follows
/// hotplug through a udev monitor, and turns readings into device-frame m/s^2 with bad
/// input filtered out. Single-threaded: the caller polls `appendFileDescriptors` with
/// `nextTimeout(now:)` and calls `handle(now:readable:into:)`.
///
/// It coordinates parts that own their state (docs/ARCHITECTURE.md, "The sensor
/// service's parts"): the `HotplugWatch` (udev, iio-sensor-proxy, tablet-mode switches)
/// says what changed; the `AttachedAccelerometer` (driver, conditioning, rate, read
/// bookkeeping) exists while a device is attached; the `PairedGyroscope` (docs/TILT.md,
/// "With a gyroscope") is taken up, read and dropped beside it. Every reading carries its time
/// (`ReadingTimeline`): a sibling read from its own buffer delivers several scans per
/// wakeup, each placed among the accelerometer's by its timestamp.
package final class AccelerometerService {
    package struct Attachment: Sendable {
        package var device: AccelerometerDescription
        /// How it is read.
        package var mode: DriverMode
        /// Why this mode.
        package var modeReason: String
        /// Why this device.
        package var selectionReason: String
        /// e.g. `in_accel_sampling_frequency 125.000000 -> 62.5`, or why unchanged.
        package var samplingFrequency: String
        /// What tells that the device moved while it lies still (`RestWatch`), and why.
        package var restWatch: String = RestWatch.read.rawValue
        package var restWatchReason: String = ""
        /// The gyroscope read with it, or why none (docs/TILT.md, "With a gyroscope").
        package var gyro: GyroPairing? = nil
    }

    private let configured: AccelerometerSettings
    private let log: Logger
    private let problems: ReadProblemLog
    private let watch: HotplugWatch
    /// The device while attached.
    private var accelerometer: AttachedAccelerometer?
    private let gyro = PairedGyroscope()
    /// Places each reading of a wakeup in time.
    private var timeline = ReadingTimeline()
    /// When the next read is due.
    private var schedule: ReadSchedule
    /// While waiting: when to look again, and the reason said last (said once).
    private var nextAttachAttempt = 0.0
    private var lastWaitingReason: String?
    /// When `attachAgainForBuffer` looks next.
    private var nextBufferCheck = 0.0
    /// What the watch said at this wakeup; kept so that a wakeup allocates nothing.
    private var changes: [HotplugWatch.Change] = []
    private var suspended = false

    /// Seconds of failing reads after which a remote sensor is released.
    static let remoteGiveUp = 2.0

    /// - Throws: only when libudev cannot be initialised for a local selector.
    package init(settings: AccelerometerSettings, log: Logger) throws(SensorError) {
        configured = settings
        self.log = log
        problems = ReadProblemLog(log: log)
        schedule = ReadSchedule(rateHz: settings.rateHz)
        let remote = if case .uri = settings.device { true } else { false }
        watch = try HotplugWatch(local: !remote, log: log)
    }

    deinit { detach() }

    package var settings: AccelerometerSettings { configured }

    /// Nobody looks at the card (`Sink.demand`): the device is released as at exit and
    /// nothing is read or attached until `resume`; udev hotplug, iio-sensor-proxy and the
    /// tablet-mode switches are still followed (they wake the caller only when they happen).
    package var isSuspended: Bool { suspended }

    /// The device attached, how and why, and its gyroscope; nil while none is.
    package var attachment: Attachment? {
        guard var a = accelerometer?.attachment else { return nil }
        a.gyro = gyro.shown
        return a
    }

    /// Seconds between reads: `1 / Sensor.rate`, or `idlePeriod` while that is longer.
    package var period: Double { schedule.period }

    /// While set, reads happen at most every `idlePeriod` seconds: the runtime sets it
    /// when the device has lain still for a while, so a still device costs next to
    /// nothing, and clears it on the first sample that moves. Never longer than half of
    /// what an input device's kernel buffer holds, so that nothing is lost meanwhile.
    ///
    /// At rest the device's `RestWatch` may say when it moves instead: its descriptor is
    /// then waited on and the timed reads stop (`restDescriptor`); what the watch wrote is
    /// put back when the device moves again and on release.
    package var idlePeriod: Double? {
        get { schedule.idlePeriod }
        set {
            let wasIdle = schedule.idlePeriod != nil
            if let newValue, let longest = accelerometer?.driver.longestReadInterval {
                schedule.idlePeriod = max(schedule.fullRatePeriod, min(newValue, longest))
            } else {
                schedule.idlePeriod = newValue
            }
            if newValue != nil, !wasIdle {
                restDescriptor = accelerometer?.beginRest()
                schedule.restBackstop = restDescriptor == nil ? nil : accelerometer?.restWatch.backstop
            } else if newValue == nil {
                endRest()
            }
        }
    }

    /// At rest: the descriptor that says the device moved (`RestWatch`), nil while it is
    /// read on a timer.
    private var restDescriptor: Int32?

    /// At rest with a backstop read, the last reading lay near the edge of the rest band:
    /// its next `ReadSchedule.closerReads` reads come at full rate.
    package func lookCloser(now: Double) { schedule.lookCloser(now: now) }

    /// The device moves again, or is released: timed reads, what the watch wrote put back.
    private func endRest(deviceGone: Bool = false) {
        accelerometer?.endRest(deviceGone: deviceGone)
        restDescriptor = nil
        schedule.restBackstop = nil
    }

    /// The most events one `handle` appends while reading: a reading and its gyroscope
    /// reading per scan, a sibling's buffered scans, and room for hotplug and problems.
    package var maximumEventsPerWakeup: Int {
        2 * (accelerometer?.driver.maximumReadingsPerRead ?? 1) + gyro.maximumReadingsPerRead + 16
    }

    /// Appends the descriptors to poll for readability: the udev monitor, the bus, the
    /// switches, and in buffer mode the device node while the device moves (and a sibling
    /// gyroscope's, read from its own buffer).
    package func appendFileDescriptors(to fds: inout [Int32]) {
        watch.appendFileDescriptors(to: &fds)
        if let fd = bufferDescriptor { fds.append(fd) }
        if let fd = gyroDescriptor { fds.append(fd) }
    }

    /// A sibling gyroscope's buffer descriptor while the accelerometer's is waited on.
    /// Its watermark is twice a batch, so the accelerometer's wakeups drain it and it
    /// wakes the caller itself only when the accelerometer's scans stop coming.
    private var gyroDescriptor: Int32? { bufferDescriptor == nil ? nil : gyro.wakingDescriptor }

    /// The buffer's descriptor while reads wait on it: buffer mode, moving (a still
    /// device is read on the idle timer and the kernel buffer keeps its scans meanwhile).
    private var bufferDescriptor: Int32? {
        if schedule.watchesAtRest { return restDescriptor }
        guard schedule.waitsOnNode else { return nil }
        return accelerometer?.driver.pollDescriptor
    }

    /// How long the caller may sleep before the next `handle` (iio-sensor-proxy's bus
    /// watch included: a reply's timeout, a reconnect). Waiting on the buffer,
    /// this is when the next batch is expected (plus a tenth): the caller can line a
    /// frame up with it, and a batch that does not come is looked for then.
    package func nextTimeout(now: Double) -> Double {
        let proxy = watch.timeout(now: now)
        if suspended { return proxy }
        let own = accelerometer == nil ? max(0, nextAttachAttempt - now) : schedule.timeout(now: now)
        return min(own, proxy)
    }

    /// When the next sample should be there: waiting on the buffer, one batch interval
    /// after the last one; otherwise the next timed read.
    package func nextSampleExpected(now: Double) -> Double {
        if suspended { return .infinity }
        return accelerometer == nil
            ? nextTimeout(now: now)
            : schedule.nextSampleExpected(now: now, waitedOnNode: bufferDescriptor != nil)
    }

    /// Does what is due: hotplug events, (re)attaching, reading a sample; appends what
    /// happened to `events`. A wakeup that only reads a sample allocates nothing when the
    /// caller keeps `events` between calls (removing its elements, keeping its capacity).
    package func handle(now: Double, readable: [Int32] = [], into events: inout [SensorEvent]) {
        changes.removeAll(keepingCapacity: true)
        watch.take(readable: readable, now: now, bufferOf: bufferSyspath, into: &changes)
        for c in changes { act(on: c, now: now, into: &events) }
        guard !suspended else { return }
        if gyro.takeLookupDue() { takeUpGyroscope(into: &events) }
        if accelerometer == nil, now >= nextAttachAttempt { attach(now: now, into: &events) }
        if accelerometer != nil, now >= nextBufferCheck {
            nextBufferCheck = now + 1
            attachAgainForBuffer(now: now, into: &events)
        }
        guard let acc = accelerometer else { return }
        let waited = bufferDescriptor
        let woke = waited.map { readable.contains($0) } ?? false
        if woke, schedule.watchesAtRest, acc.restWatch == .events {
            acc.drainRestEvents()
            if acc.restWatch != .events {  // the stream failed: read on a timer from now on
                restDescriptor = nil
                schedule.restBackstop = nil
            }
        }
        guard woke || schedule.isDue(now: now) else {
            // The accelerometer's batch is late, its gyroscope's is there: take it now.
            if let g = gyroDescriptor, readable.contains(g) { readGyroscopeAlone(acc.device, now: now, into: &events) }
            return
        }
        readOnce(acc, now: now, into: &events)
        let gotData = accelerometer?.gotData ?? false
        if woke, gotData, schedule.watchesAtRest, accelerometer?.restScans(now: now) == false {
            restDescriptor = nil
            schedule.restBackstop = nil  // read on a timer at rest from now on
        }
        accelerometer?.noteSilence(now: now, interval: idlePeriod ?? schedule.batchInterval ?? period)
        schedule.didRead(now: now, waited: waited != nil, woke: woke, gotData: gotData)
        if accelerometer?.refusesRawReads == true { schedule.postpone(until: now + AttachedAccelerometer.refusedRetry) }
        dropUnreachableRemote(now: now, into: &events)
    }

    /// One read of the driver: its readings (with the sibling gyroscope's, placed in
    /// time by their timestamps) conditioned into `events`, its problems reported.
    private func readOnce(_ acc: AttachedAccelerometer, now: Double, into events: inout [SensorEvent]) {
        let d = acc.device
        acc.read(now: now)
        // A sibling read from its own buffer: every scan that came since the last read,
        // placed in time among the accelerometer's readings by the timestamps.
        let buffered = gyro.drainBuffer(now: now, accelerometer: d, report: problems, into: &events)
        let accelerometerNs = acc.newestTimestampNs
        let gyroNs = buffered ? gyro.newestDrainedNs : nil
        let newestNs = gyroNs.map { g in accelerometerNs.map { max(g, $0) } ?? g } ?? accelerometerNs
        timeline.begin(now: now, newestNs: newestNs, accelerometerNs: accelerometerNs)
        for e in acc.readEvents {
            switch e {
            case .problem(let p) where d.isInput && p.isReadFailure:
                return inputNodeFailed(p, device: d, now: now, into: &events)
            case .problem(let p): acc.note(p, now: now)
            case .note(let n): log.info("\(d.displayName): \(n)", ["sensor.device": d.id])
            case .resynchronised(let why):
                // The fusion starts again from the readings that follow (the state now).
                problems.resynchronised(why, device: d, now: now)
                events.append(.motion(.gyroscopeGone(at: now)))
            case .limited(let cause, let text): problems.condition(text, cause: cause, device: d, now: now)
            case .gyroProblem(let p): gyro.failed(p, accelerometer: d, now: now, report: problems, into: &events)
            case .reading(let r):
                // The gyroscope's scans up to this reading's first, or its polled reading.
                var rate = r.angularVelocity
                if buffered {
                    gyro.emitDrained(
                        upTo: r.timestampNs, accelerometer: d, timeline: &timeline, report: problems, into: &events)
                } else if gyro.siblingDevice != nil {
                    rate = gyro.poll(now: now, accelerometer: d, report: problems, into: &events).map { .success($0) }
                }
                let t = timeline.time(ofNs: r.timestampNs)
                if let w = rate { gyro.emit(w, at: t, accelerometer: d, report: problems, into: &events) }
                if let a = acc.acceleration(of: r, now: now) {
                    events.append(
                        .motion(.acceleration(metersPerSecondSquared: a, at: t, scanTimestampNs: r.timestampNs)))
                }
            }
        }
        // Scans newer than the accelerometer's.
        gyro.emitDrained(upTo: .max, accelerometer: d, timeline: &timeline, report: problems, into: &events)
    }

    /// A wakeup by the sibling gyroscope's own buffer alone: its scans, placed by their
    /// timestamps, the newest at `now`. A node readable without data (an emulated one at
    /// its end) is not waited on again until a read finds data.
    private func readGyroscopeAlone(_ d: AccelerometerDescription, now: Double, into events: inout [SensorEvent]) {
        guard gyro.drainBuffer(now: now, accelerometer: d, report: problems, into: &events), !gyro.noteEmptyWakeup()
        else { return }
        timeline.begin(now: now, newestNs: gyro.newestDrainedNs)
        gyro.emitDrained(upTo: .max, accelerometer: d, timeline: &timeline, report: problems, into: &events)
    }

    /// The sysfs directory of the device whose buffer is read, if one is.
    private var bufferSyspath: String? { accelerometer?.driver.mode == .buffer ? accelerometer?.device.syspath : nil }

    // MARK: what the watch says

    private func act(on change: HotplugWatch.Change, now: Double, into events: inout [SensorEvent]) {
        switch change {
        case .removed(let syspath):
            if let d = accelerometer?.device, d.syspath == syspath {
                let reason = "udev remove event for \(syspath)"
                release(
                    reason, deviceGone: true, lookAgainAt: now, into: &events,
                    "accelerometer \(d.displayName) disappeared (\(reason)); released "
                        + "it, waiting for it to come back")
            } else if let acc = accelerometer, let g = gyro.siblingDevice, g.syspath == syspath {
                events.append(
                    gyro.drop(
                        g.displayName, why: "udev remove event for \(syspath)", deviceGone: true,
                        accelerometer: acc.device, log: log))
            }
        case .appeared:
            if accelerometer == nil {
                nextAttachAttempt = now
            } else {
                gyro.noteDeviceAppeared(selector: configured.gyro)
            }
        case .bufferWanted(let syspath, let why):
            if bufferSyspath == syspath { giveBackBuffer(why: why, now: now, into: &events) }
        case .sensorProxy(let state):
            guard bufferSyspath != nil, let d = accelerometer?.device,
                let why = BufferSharing.reason(sensorProxyType: d.sensorProxyType, sensorProxy: state)
            else { return }
            giveBackBuffer(why: why, now: now, into: &events)
        case .tabletMode(let why):
            // The switch fires while the lid still moves: the baseline waits for rest.
            events.append(.motion(.recaptureAtRest(why, at: now)))
        }
    }

    /// Releases the device for `reason` with one line (a warning when it went away, else a
    /// notice) and looks for it again at `lookAgainAt`.
    private func release(
        _ reason: String, deviceGone: Bool, lookAgainAt: Double, into events: inout [SensorEvent],
        _ line: String
    ) {
        guard let d = accelerometer?.device else { return }
        detach(deviceGone: deviceGone)
        nextAttachAttempt = lookAgainAt
        if deviceGone { log.warning(line, ["sensor.device": d.id]) } else { log.notice(line, ["sensor.device": d.id]) }
        events.append(.detached(d.displayName, reason: reason))
    }

    /// Releases a buffer another reader may want (disabled, its attributes put back) and
    /// attaches again at once, polling.
    private func giveBackBuffer(why: String, now: Double, into events: inout [SensorEvent]) {
        guard let d = accelerometer?.device else { return }
        release(
            why, deviceGone: false, lookAgainAt: now, into: &events,
            "\(d.displayName): \(why); giving its buffer back, polling from now on")
    }

    /// A device polled because `Sensor.mode = auto` found its buffer attributes not
    /// writable is attached again once they are: the daemon started before udev ran
    /// 60-shimmerd.rules on it (the unit does not wait for udev-settle), and udev has now
    /// handed them over. Looked at once a second; a few access(2) calls.
    private func attachAgainForBuffer(now: Double, into events: inout [SensorEvent]) {
        guard configured.mode == .auto, let a = accelerometer?.attachment, a.mode == .poll, a.device.bufferCapable,
            BufferPermission.isPermission(a.modeReason),
            BufferPermission.problem(a.device, local: a.device.syspath != nil) == nil
        else { return }
        release(
            "its buffer attributes became writable", deviceGone: false, lookAgainAt: now, into: &events,
            "\(a.device.displayName): its buffer attributes are writable now (udev handed them over); "
                + "attaching it again for buffer mode")
    }

    /// A remote sensor (`uri:`) whose reads have failed for `remoteGiveUp` seconds is
    /// released, as a local one is on a udev `remove`: the card eases back to center and
    /// the context is opened again every second until iiod answers, with a new baseline.
    /// (A libiio network context does not reconnect by itself; local devices leave
    /// through udev and keep reporting read errors otherwise.)
    private func dropUnreachableRemote(now: Double, into events: inout [SensorEvent]) {
        guard case .uri(let uri) = configured.device, let acc = accelerometer,
            let reason = acc.unreachable(now: now, source: uri, giveUpAfter: Self.remoteGiveUp)
        else { return }
        release(
            reason, deviceGone: true, lookAgainAt: now, into: &events,
            "accelerometer \(acc.device.displayName) unreachable: \(reason); "
                + "released it, reconnecting every second")
    }

    /// A read of an input device's event node failed: the device is gone (ENODEV once
    /// unplugged) or cannot be read. One line; released, and looked for again as on a
    /// udev `remove`.
    private func inputNodeFailed(
        _ p: ReadProblem, device: AccelerometerDescription, now: Double,
        into events: inout [SensorEvent]
    ) {
        let reason = "\(p.attribute): \(p.reason)"
        release(
            reason, deviceGone: true, lookAgainAt: now + 1, into: &events,
            "accelerometer \(device.displayName) vanished (\(reason)); released it, waiting for it to come back")
    }

    // MARK: attaching

    /// Finds, selects and attaches the accelerometer (`Sensor.device`), or says why it
    /// waits; tried again every second while it waits.
    private func attach(now: Double, into events: inout [SensorEvent]) {
        nextAttachAttempt = now + 1.0
        let o: Opened
        switch Self.open(configured, watch: watch, log: log) {
        case .success(let opened): o = opened
        case .failure(let why): return waiting(why.reason, into: &events)
        }
        let chosen = o.driver.device
        let acc = AttachedAccelerometer(
            driver: o.driver, context: o.context, settings: configured, shared: o.shared,
            modeReason: o.modeReason, selection: o.selection, now: now, log: log,
            problems: problems)
        accelerometer = acc
        // An input device is drained once a frame, from the last read (one per frame,
        // `Sink.fps`, else `Sensor.rate`: the device's own rate costs no wakeups); IIO
        // devices are read at Sensor.rate (or woken by their buffer).
        let inputPeriod = 1 / max(configured.framesPerSecond ?? configured.rateHz, 0.1)
        schedule.pace(
            period: chosen.isInput ? inputPeriod : 1 / max(configured.rateHz, 0.1), fromLastRead: chosen.isInput)
        // The batch interval counts only while a buffer wakes the caller.
        schedule.attached(now: now, batchInterval: o.batchInterval)
        let how = gyro.start(
            o.pairing, accelerometer: chosen, driver: o.driver, context: o.context,
            local: chosen.syspath != nil, settings: configured, sensorProxy: watch.sensorProxyState)
        lastWaitingReason = nil
        log.notice(
            Self.attachLine(acc.attachment, gyroscope: gyro.isUsed ? how : "none (\(how))"),
            ["sensor.device": chosen.id, "sensor.mode": o.driver.mode.rawValue])
        if let a = attachment { events.append(.attached(a)) }
    }

    private func waiting(_ reason: String, into events: inout [SensorEvent]) {
        guard reason != lastWaitingReason else { return }
        lastWaitingReason = reason
        log.notice("waiting for an accelerometer: \(reason)")
        events.append(.waiting(reason))
    }

    /// Looks for a gyroscope to pair with the attached accelerometer (one appeared, or
    /// the one in use came back) and takes it up with one line; says once why one that
    /// was found is not used (the self-check's verdict stands until the accelerometer
    /// attaches anew).
    private func takeUpGyroscope(into events: inout [SensorEvent]) {
        guard let acc = accelerometer, let udev = watch.udevContext else { return }
        let gyroscopes: [GyroscopeDescription]
        do { gyroscopes = try Self.localGyroscopes(udev: udev, removed: watch.isRemoved) } catch {
            return log.debug("no gyroscope looked for: \(error)")
        }
        switch gyro.takeUp(
            accelerometer: acc.device, driver: acc.driver, gyroscopes: gyroscopes, settings: configured,
            sensorProxy: watch.sensorProxyState)
        {
        case .nothing(let why):
            log.debug("no gyroscope to take up: \(why)")
        case .refused(let line, let saidBefore):
            if !saidBefore { log.notice(line, ["sensor.device": acc.device.id]) }
        case .taken(let pairing, let how):
            log.notice(
                "now using gyroscope \(how) (it appeared after the accelerometer attached)",
                ["sensor.device": acc.device.id, "sensor.gyro": pairing.gyro?.id ?? ""])
            events.append(.gyroAttached(pairing, how: how))
        }
    }

    // MARK: suspend, detach

    /// Nobody looks: releases the device as at exit (its buffer disabled, its sampling
    /// frequency restored) and reads nothing until `resume`. Returns the detach event
    /// (`why` as its reason), nil when no device was attached.
    package func suspend(why: String) -> SensorEvent? {
        suspended = true
        guard let d = accelerometer?.device else { return nil }
        detach()
        return .detached(d.displayName, reason: why)
    }

    /// Someone looks again: the device is found and attached at the next `handle`, as at
    /// start (a new baseline follows from the attach).
    package func resume(now: Double) {
        guard suspended else { return }
        suspended = false
        nextAttachAttempt = now
    }

    /// Releases the device: disables the buffer, restores `sampling_frequency` (unless
    /// the device is gone), drops the libiio context.
    package func detach(deviceGone: Bool = false) {
        guard let acc = accelerometer else { return }
        endRest(deviceGone: deviceGone)
        acc.release(deviceGone: deviceGone)
        // A sibling gyroscope goes with it (a hub's devices usually leave together).
        for e in gyro.release(deviceGone: deviceGone) {
            log.warning("\(e)", ["sensor.device": acc.device.id])
        }
        gyro.cancelLookup()
        accelerometer = nil
    }
}
