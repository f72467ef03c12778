import IIO
import LinuxSystem
import Logging
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

    package let settings: AccelerometerSettings
    let log: Logger
    let udev: UdevContext?
    let monitor: UdevMonitor?
    /// iio-sensor-proxy on the system bus (local devices only): a device it may read is
    /// polled, its buffer left alone (`BufferSharing`).
    let sensorProxy: SensorProxyWatch?
    var context: Context?
    var driver: (any AccelerometerDriver)?
    var conditioner = SampleConditioner(calibration: AccelCalibration(scale: Vector3(1, 1, 1)))
    /// The paired gyroscope and how it is read.
    let gyro = PairedGyroscope()
    /// Consecutive gyroscope reads that fail (not bad values: the reads themselves) after
    /// which it is given up (one log line; the accelerometer goes on alone).
    static let gyroGiveUp = 3
    /// A udev `add` or `change` came while the accelerometer is attached without a
    /// gyroscope: look for one once the events of this wakeup are taken.
    var gyroLookupDue = false
    /// The last reason a gyroscope found on a udev event was not used (said once).
    var lastGyroRefusal: String?
    /// The sibling's buffered readings and read problems of one wakeup; kept so that
    /// reads allocate nothing.
    var gyroReadings: [GyroReading] = []
    var gyroProblems: [ReadProblem] = []
    /// Places each reading of a wakeup in time.
    var timeline = ReadingTimeline()
    var restoreFrequency: FrequencyRestore?
    var lastWaitingReason: String?
    var nextAttachAttempt = 0.0
    /// When `attachAgainForBuffer` looks next.
    var nextBufferCheck = 0.0
    /// When the next read is due.
    var schedule: ReadSchedule
    var limiter = RateLimiter(interval: 1.0)
    /// Buffer mode: how long the node has gone without a scan (one line when it stops,
    /// one when it delivers again).
    var silence: ScanSilence?
    /// The kernel's tablet-mode switches (a convertible folding into tablet mode): each
    /// change asks for a new baseline.
    var tabletSwitches: [TabletModeSwitch] = []
    /// Devices whose udev `remove` event arrived and no `add` since: never attached,
    /// even if their sysfs directory lingers a moment after the event.
    var removed: Set<String> = []
    /// The kernel refuses raw reads (EBUSY): another program has the device's buffer
    /// enabled (bmc150, kxcjk-1013, st_sensors and mxc4005 answer raw reads so while their
    /// buffer runs). Reads are retried every `refusedRetry` seconds until they are answered.
    var rawReadsRefused = false
    /// Whether the last read gave a reading (good or rejected).
    var lastReadHadData = false
    /// The last read's transport failure (the device or the connection, not a bad value).
    var lastReadError: String?
    /// Since when every read of a remote sensor has failed.
    var failingSince: Double?
    /// What the driver gave at the last read; kept so that reads allocate nothing.
    var driverEvents: [DriverEvent] = []
    /// Nobody looks at the card (`Sink.demand`): the device is released as at exit and
    /// nothing is read or attached until `resume`; udev hotplug, iio-sensor-proxy and the
    /// tablet-mode switches are still followed (they wake the caller only when they happen).
    package private(set) var isSuspended = false

    /// Seconds between reads: `1 / Sensor.rate`, or `idlePeriod` while that is longer.
    package var period: Double { schedule.period }

    /// While set, reads happen at most every `idlePeriod` seconds: the runtime sets it
    /// when the device has lain still for a while, so a still device costs next to
    /// nothing, and clears it on the first sample that moves.
    package var idlePeriod: Double? {
        get { schedule.idlePeriod }
        set { schedule.idlePeriod = idleReadPeriod(newValue) }
    }
    package var attachment: Attachment?

    /// The most events one `handle` appends while reading: a reading and its gyroscope
    /// reading per scan, a sibling's buffered scans, and room for hotplug and problems.
    package var maximumEventsPerWakeup: Int {
        2 * (driver?.maximumReadingsPerRead ?? 1) + (gyro.sibling?.maximumReadingsPerRead ?? 0) + 16
    }

    /// - Throws: only when libudev cannot be initialised for a local selector.
    package init(settings: AccelerometerSettings, log: Logger) throws(SensorError) {
        self.settings = settings
        self.log = log
        schedule = ReadSchedule(rateHz: settings.rateHz)
        if case .uri = settings.device {
            udev = nil
            monitor = nil
            sensorProxy = nil
        } else {
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
                    log.info("tablet-mode switch \(sw.devnode) (\(sw.name)): a change captures a new baseline",
                        ["input.device": sw.devnode])
                } catch {
                    log.notice("tablet-mode switch \(sw.devnode) (\(sw.name)) not readable: \(error)", ["input.device": sw.devnode])
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
    var gyroDescriptor: Int32? {
        guard bufferDescriptor != nil, gyro.isBuffered, gyro.bufferWakesUs else { return nil }
        return gyro.sibling?.pollDescriptor
    }

    /// The buffer's descriptor while reads wait on it: buffer mode, moving (a still
    /// device is read on the idle timer and the kernel buffer keeps its scans meanwhile).
    var bufferDescriptor: Int32? {
        guard schedule.waitsOnNode else { return nil }
        return driver?.pollDescriptor
    }

    /// How long the caller may sleep before the next `handle` (iio-sensor-proxy's bus
    /// watch included: a reply's timeout, a reconnect). Waiting on the buffer,
    /// this is when the next batch is expected (plus a tenth): the caller can line a
    /// frame up with it, and a batch that does not come is looked for then.
    package func nextTimeout(now: Double) -> Double {
        let proxy = sensorProxy?.timeout(now: now) ?? .infinity
        if isSuspended { return proxy }
        let own = driver == nil ? max(0, nextAttachAttempt - now) : schedule.timeout(now: now)
        return min(own, proxy)
    }

    /// When the next sample should be there: waiting on the buffer, one batch interval
    /// after the last one; otherwise the next timed read.
    package func nextSampleExpected(now: Double) -> Double {
        if isSuspended { return .infinity }
        return driver == nil ? nextTimeout(now: now) : schedule.nextSampleExpected(now: now, waitedOnNode: bufferDescriptor != nil)
    }

    /// Does what is due: hotplug events, (re)attaching, reading a sample; appends what
    /// happened to `events`. A wakeup that only reads a sample allocates nothing when the
    /// caller keeps `events` between calls (removing its elements, keeping its capacity).
    package func handle(now: Double, readable: [Int32] = [], into events: inout [SensorEvent]) {
        if let m = monitor, readable.contains(m.fileDescriptor) {
            while let d = m.receive() { events += hotplug(d, now: now) }
        }
        if let w = sensorProxy, w.process(now: now, readable: readable) {
            events += sensorProxyChanged(now: now)
        }
        if !tabletSwitches.isEmpty { readTabletSwitches(readable, now: now, into: &events) }
        guard !isSuspended else { return }
        if gyroLookupDue {
            gyroLookupDue = false
            events += takeUpGyroscope()
        }
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
        guard woke || schedule.isDue(now: now) else {
            // The accelerometer's batch is late, its gyroscope's is there: take it now.
            if let g = gyroDescriptor, readable.contains(g) { readGyroscopeAlone(now: now, into: &events) }
            return
        }
        readOnce(now: now, into: &events)
        if silence != nil { noteSilence(now: now) }
        schedule.didRead(now: now, waited: waited != nil, woke: woke, gotData: lastReadHadData)
        if rawReadsRefused { schedule.postpone(until: now + Self.refusedRetry) }
        events += dropUnreachableRemote(now: now)
    }

    // MARK: suspend, detach

    /// Nobody looks: releases the device as at exit (its buffer disabled, its sampling
    /// frequency restored) and reads nothing until `resume`. Returns the detach event
    /// (`why` as its reason), nil when no device was attached.
    package func suspend(why: String) -> SensorEvent? {
        isSuspended = true
        guard let a = attachment else { return nil }
        detach()
        return .detached(a.device.displayName, reason: why)
    }

    /// Someone looks again: the device is found and attached at the next `handle`, as at
    /// start (a new baseline follows from the attach).
    package func resume(now: Double) {
        guard isSuspended else { return }
        isSuspended = false
        nextAttachAttempt = now
    }

    /// Releases the device: disables the buffer, restores `sampling_frequency` (unless
    /// the device is gone), drops the libiio context.
    package func detach(deviceGone: Bool = false) {
        guard let d = driver else { return }
        do { try d.close() } catch {
            log.warning("\(error)", ["sensor.device": d.device.id])
        }
        if let r = restoreFrequency, !deviceGone {
            do {
                if let why = try r.putBack(write: d.writeAttribute) { log.info(why, ["sensor.device": d.device.id]) }
            } catch {
                log.warning("\(error)", ["sensor.device": d.device.id])
            }
        }
        restoreFrequency = nil
        // A sibling gyroscope goes with it (a hub's devices usually leave together).
        for e in gyro.release(deviceGone: deviceGone) {
            log.warning("\(e)", ["sensor.device": d.device.id])
        }
        gyroLookupDue = false
        driver = nil
        context = nil
        attachment = nil
        silence = nil
    }
}
