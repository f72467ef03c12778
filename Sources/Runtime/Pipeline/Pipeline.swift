import Card
import Glibc
import LinuxSystem
import Logging
import Motion
import Output
import Sensors
import Systemd
import Tracing

/// The daemon's loop: samples -> attitude -> mapper -> smoothed focal point -> colors ->
/// pixels -> sink, with the trace beside it. One thread; it sleeps in poll(2) until the
/// sensor, the sink, the next frame or a signal is due.
///
/// Each concern lives in its own type, and this loop only sequences them:
/// - `SignalRequest`: what the pending signals ask for;
/// - `MotionStage`: readings -> the drawn focal point, and their trace records;
/// - `FramePacer`: when a frame is due (at most `Sink.fps`, only while the point moves);
/// - `FramePublisher`: painting into the sink, what became of each frame;
/// - the watchdog heartbeat and the trace's flush, below.
///
/// - Frames are paced to `Sink.fps`; a frame is published only when some dot's color
///   changes; the newest sample wins (the smoother's target is just replaced); nothing
///   queues. Once the smoother has settled no frames are rendered at all.
/// - SIGTERM/SIGINT: finish, flush the trace, return; no write of the loop blocks, and a
///   signal wakes the loop at once (its signalfd is polled), so a stop is acted on at once.
///   SIGHUP: return `.reload` (the caller rebuilds, or keeps this pipeline running).
///   SIGUSR1: recapture the baseline.
/// - WATCHDOG=1 comes from this loop's heartbeat: if the loop hangs, systemd sees it.
package final class Pipeline {
    package enum Outcome: Equatable {
        case finished
        case reload
    }

    package struct Parts {
        package var source: any SampleSource
        package var sink: any FrameSink
        package var renderer: CardRenderer
        package var motion: MotionConfiguration
        package var fps: Double
        /// `Sink.demand`: paint only while someone looks (`Demand`), or always.
        package var demand: SinkDemand

        package init(
            source: any SampleSource, sink: any FrameSink, renderer: CardRenderer,
            motion: MotionConfiguration, fps: Double, demand: SinkDemand = .auto
        ) {
            self.source = source
            self.sink = sink
            self.renderer = renderer
            self.motion = motion
            self.fps = fps
            self.demand = demand
        }
    }

    let parts: Parts
    let trace: TraceWriter?
    let log: Logger
    let notifier: any ServiceNotifying
    let clock: () -> Double
    /// Sleeps until one of the descriptors is readable or the timeout (seconds) passes,
    /// and puts the readable ones into the array: `ReadinessPoll.waitReadable`, or a
    /// `TraceClock`'s, which advances its own time instead.
    package typealias Wait = (_ fds: [Int32], _ timeout: Double, _ readable: inout [Int32]) -> Void
    let wait: Wait
    /// The daemon on the system bus, nil without one (`StatusBus`).
    let bus: (any StatusChannel)?
    let motion: MotionStage
    private let publisher: FramePublisher
    package let counters: RunCounters
    /// Becomes true once the first frame is out (READY=1).
    private var ready = false
    /// Whether the source was last told to read slowly.
    private var sourceIdle = false
    /// Nobody looks (`followDemand`): the source is suspended, no frames are painted.
    private var isIdle = false
    /// Whether anyone looks, with the second's grace before idling.
    private var demandHold = DemandHold()
    /// When the demand last changed, so the bus's rate-limited signal still goes out.
    private var busStateChangedAt: Double?
    /// Kept between calls of `run`: a reload that fails resumes this pipeline exactly
    /// where it was (no extra frame, no early heartbeat).
    private var pacer: FramePacer?
    private var heartbeat: Heartbeat?
    /// Wakes the loop when the sink's pending write can go on (`Pipeline+SinkWrites.swift`);
    /// nil without epoll, when the write goes on at the loop's other wakeups only.
    let writability = try? WritabilityWatch()

    /// Seconds between reads while the device lies still (10 Hz: a tilt is noticed within
    /// 0.1 s), where the device cannot say itself that it moved (`RestWatch`).
    static let idlePeriod = 0.1
    /// Seconds by which the sink's maintenance and the trace's flush may come late, so that
    /// another wakeup serves them.
    static let timerSlack = 0.25
    /// Frames published and samples used over the daemon's run.
    package var frames: UInt64 { counters.published }
    package var samples: Int { counters.samples }

    /// - Parameter clock: seconds since the daemon started (monotonic); shared with the trace.
    /// - Parameter counters: carried from the pipeline this one replaces on a reload.
    /// - Parameter wait: `ReadinessPoll.waitReadable`, or a `TraceClock`'s.
    /// - Parameter frameTime: CLOCK_MONOTONIC nanoseconds, stamped on each frame (`FrameInfo`).
    /// - Parameter onFrame: called after each published frame with its number and time.
    package init(
        parts: Parts, trace: TraceWriter?, log: Logger, notifier: any ServiceNotifying, clock: @escaping () -> Double,
        counters: RunCounters = RunCounters(),
        wait: @escaping Wait = { ReadinessPoll.waitReadable($0, timeoutSeconds: $1, into: &$2) },
        bus: (any StatusChannel)? = nil, frameTime: @escaping () -> UInt64 = MonotonicClock.nanoseconds,
        onFrame: ((UInt64, Double) -> Void)? = nil
    ) {
        self.bus = bus
        self.parts = parts
        self.trace = trace
        self.log = log
        self.notifier = notifier
        self.clock = clock
        self.counters = counters
        self.wait = wait
        motion = MotionStage(parts.motion)
        publisher = FramePublisher(
            sink: parts.sink, renderer: parts.renderer, counters: counters, log: log,
            frameTime: frameTime, onFrame: onFrame)
        // A source carried over from the pipeline this one replaces may be reading slowly,
        // or not at all (nobody looked): this pipeline decides again at its first wakeup.
        parts.source.setIdle(period: nil)
        parts.source.resume(now: clock())
    }

    /// Runs until a stop signal, `until` (seconds on `clock`), or a reload request.
    package func run(signals: any SignalSource, until deadline: Double?) -> Outcome {
        var pacer = self.pacer ?? FramePacer(fps: parts.fps, now: clock())
        var heartbeat = self.heartbeat ?? Heartbeat(notifier.watchdogMicroseconds)
        defer {
            self.pacer = pacer
            self.heartbeat = heartbeat
        }
        // Kept across wakeups, emptied and refilled: a wakeup that reads a sample and
        // publishes a frame allocates nothing (Tests/IntegrationTests/lifecycle/test_allocations.py).
        var readable: [Int32] = []
        var events: [SensorEvent] = []
        var fds: [Int32] = []
        var outcome = Outcome.finished

        loop: while true {
            let now = clock()
            let pending = signals.mayBePending(readable: readable) ? signals.drain() : []
            if pending.contains(.user2) { parts.sink.consoleSwitched() }
            if let request = SignalRequest(pending) {
                switch request {
                case .stop(let signal):
                    log.notice("signal \(signal): stopping")
                case .reload:
                    outcome = .reload
                case .recapture:
                    log.notice("SIGUSR1: recapturing the baseline")
                    motion.recapture("SIGUSR1", at: now, trace: trace)
                }
                if request != .recapture { break loop }
            }
            if let deadline, now >= deadline { break loop }
            if publisher.ended { break loop }

            continueSinkWrite(readable: readable)
            parts.sink.handle(readable: readable)
            // The bus's calls first: a claim made or ended counts at this very wakeup.
            if let bus { takeRequests(of: bus, readable: readable, at: now) }
            followDemand(&pacer, at: now)
            if !isIdle {
                if publisher.maintain() { pacer.owesFrame = true }
                // The reader caught up: the picture of the frames it missed goes out now.
                if publisher.takeOwedNewest(backlogged: parts.sink.isBacklogged) { pacer.owesFrame = true }
            }
            takeEvents(at: now, readable: readable, into: &events)
            if !isIdle {
                frameIfDue(&pacer, at: now)
                restIfStill(at: now)
            }
            // A trace played to its end: finish once the picture has settled.
            if parts.source.isExhausted && motion.isSettled(at: now) && !pacer.owesFrame { break loop }
            heartbeat.beat(at: now, notifier)
            trace?.flushIfDue(now: now)
            if let bus { publishStatus(on: bus, at: now) }

            var timeout = sleep(pacer, heartbeat, until: deadline, now: now)
            fds.removeAll(keepingCapacity: true)
            parts.source.appendFileDescriptors(to: &fds)
            parts.sink.appendFileDescriptors(to: &fds)
            appendSinkWriteWatch(to: &fds)
            if let s = signals.fileDescriptor { fds.append(s) }  // a signal wakes the loop at once
            if let bus {
                let request = bus.pollRequest()  // after publishStatus: what it queued is polled for
                fds.append(request.fd)
                if let t = request.timeoutSeconds { timeout = min(timeout, t) }
            }
            wait(fds, timeout, &readable)
        }
        trace?.flush()
        return outcome
    }

    /// Readings, attach and detach from the source, into the motion stage.
    private func takeEvents(at now: Double, readable: [Int32], into events: inout [SensorEvent]) {
        events.removeAll(keepingCapacity: true)
        if events.capacity < parts.source.maximumEventsPerWakeup {
            events.reserveCapacity(parts.source.maximumEventsPerWakeup)  // after an attach, not per wakeup
        }
        parts.source.handle(now: now, readable: readable, into: &events)
        let before = motion.samples
        for event in events {
            switch motion.take(event, at: now, trace: trace) {
            case .none: break
            case .sensorState: notifier.status(status)
            case .waiting(let why): notifier.status("waiting for an accelerometer: \(why)")
            case .log(let level, let message): log.log(level, "sensor \(parts.source.summary): \(message)")
            case .gyroscopeDisagreed(let why):
                log.warning(
                    "sensor \(parts.source.summary): the gyroscope disagrees with the accelerometer (\(why)); "
                        + "weighing it by how well it explains the motion until it fits again (check "
                        + "Sensor.gyro_mount_matrix, or set Sensor.gyro = none)")
            case .gyroscopeAgrees(let why):
                log.notice(
                    "sensor \(parts.source.summary): the gyroscope agrees with the accelerometer again (\(why)); "
                        + "fusing it fully again")
            }
        }
        counters.took(samples: motion.samples - before)
    }

    /// A frame when one is due: at most fps, only while the drawn point moves, published
    /// only when some dot changed (or a full frame is owed).
    private func frameIfDue(_ pacer: inout FramePacer, at now: Double) {
        guard pacer.frame(at: now, moving: !motion.isSettled(at: now), sinkReady: parts.sink.isReadyForFrame) else {
            return
        }
        let focal = motion.point(at: now)
        if publisher.update(focal) || pacer.owesFrame {
            publisher.publish(focal, at: now, trace: trace, clock: clock)
            _ = motion.draw(at: now)
        } else {
            motion.unchanged(at: now)
        }
        pacer.owesFrame = false
        if !ready {
            ready = true
            notifier.ready(status: status)
        }
    }

    /// The bus's requests when it has some: `Recalibrate()` captures a new baseline, as
    /// SIGUSR1 does (the bus logs it); a claim made or ended is weighed by `followDemand`.
    private func takeRequests(of bus: any StatusChannel, readable: [Int32], at now: Double) {
        let requests = bus.process(readable: readable)
        if requests.recalibrate {
            motion.recapture("D-Bus Recalibrate() from \(requests.recalibrateCaller)", at: now, trace: trace)
        }
        if requests.claimsChanged { busStateChangedAt = now }  // `Claims` is signalled even while idle
    }

    /// The properties' present values, gathered only when a `PropertiesChanged` may go out
    /// (so the loop allocates nothing in between).
    private func publishStatus(on bus: any StatusChannel, at now: Double) {
        guard bus.isDue(now: now) else { return }
        var s = StatusBus.Status()
        let attachment = parts.source.attachment
        s.state = isIdle ? "idle" : attachment == nil ? "waiting" : (motion.isResting(at: now) ? "still" : "moving")
        s.sensor = attachment?.device.displayName ?? ""
        s.sensorMode = attachment?.mode.rawValue ?? ""
        s.sensorModeReason = attachment?.modeReason ?? ""
        s.gyroscope = attachment?.gyro?.gyro?.displayName ?? ""
        s.baselineAt = motion.baselineAt
        (s.dPitch, s.dRoll) = motion.lastTilt
        s.focal = (motion.drawnFocal.x, motion.drawnFocal.y)
        s.sink = parts.sink.summary
        s.frames = counters.published
        bus.publish(s, now: now)
    }

    /// A device lying still is read slowly; the first sample that moves restores the rate.
    private func restIfStill(at now: Double) {
        let idle = motion.isResting(at: now)
        if idle, sourceIdle, motion.restDoubted { parts.source.lookCloser(now: now) }
        guard idle != sourceIdle else { return }
        sourceIdle = idle
        parts.source.setIdle(period: idle ? Pipeline.idlePeriod : nil)
        log.debug(
            idle
                ? "device still: reading every \(Pipeline.idlePeriod) s or waiting for it to say it moved"
                : "device moving: full rate")
    }

    /// Seconds until the sensor, the next frame, the sink's maintenance, the trace's flush,
    /// the heartbeat or the deadline is due: each deadline on its own timer, no wakeup of
    /// the loop's own beyond them (a device at rest that says itself when it moves sleeps
    /// the loop until it does). Idle, only the heartbeat, the deadline and the bus's last
    /// word on the state wake the loop (infinity: poll(2) waits for a descriptor).
    private func sleep(_ pacer: FramePacer, _ heartbeat: Heartbeat, until deadline: Double?, now: Double) -> Double {
        var timeout = parts.source.nextTimeout(now: now)
        if !isIdle {
            // Neither needs its exact time: a wakeup that comes anyway within `timerSlack`
            // serves them (no wakeup of their own while the device is read 10 times a second).
            if let maintenanceIn = parts.sink.maintenanceIn {
                timeout = min(timeout, maintenanceIn + Pipeline.timerSlack)
            }
            if let flushIn = trace?.flushIn(now: now) { timeout = min(timeout, flushIn + Pipeline.timerSlack) }
            if let frameIn = pacer.frameIn(
                now: now, moving: !motion.isSettled(at: now), sinkReady: parts.sink.isReadyForFrame,
                sampleIn: parts.source.nextSampleExpected(now: now))
            {
                timeout = min(timeout, frameIn)
            }
        }
        if let busIn = busWakeup(now: now) { timeout = min(timeout, busIn) }
        if let idleIn = demandHold.idleDue(now: now) { timeout = min(timeout, idleIn) }
        if let beatIn = heartbeat.dueIn(now: now) { timeout = min(timeout, beatIn) }
        if let deadline { timeout = min(timeout, max(0, deadline - now)) }
        return timeout
    }

    var status: String {
        "sensor: \(parts.source.summary); sink: \(parts.sink.summary); \(counters.published) frames"
    }
}

/// Idling while nobody looks (`Demand`, through `DemandHold`: only after nobody has looked
/// for a second): the sensor released as at exit (its buffer disabled, its sampling
/// frequency restored), no reads, no frames, no timers of the loop's own; hotplug,
/// signals, the bus and the tablet-mode switches still wake it. Someone looking again
/// resumes at once: the sensor attaches as at start, with a new baseline, and a frame of
/// the card at rest goes out right away.
extension Pipeline {
    /// Decides, at every wakeup, whether anyone looks; on a change suspends or resumes
    /// the source, says why (log, trace, STATUS=) and owes a frame on resuming.
    private func followDemand(_ pacer: inout FramePacer, at now: Double) {
        // No bus at start: nobody can claim, so the frames are painted. A bus that went away
        // holds no claims: the daemon idles until it is back and a reader claims again. A
        // claim taken and released within this wakeup counts as one.
        let claims = bus.map { max($0.claims, $0.claimedSinceProcess ? 1 : 0) }
        let demand = Demand.of(parts.demand, audience: parts.sink.audience, claims: claims)
        guard demandHold.update(demand, at: now) != nil else { return }
        isIdle = demandHold.isIdle
        trace?.append(TraceRecord.Demand(t: now, idle: isIdle, reason: demand.reason))
        busStateChangedAt = now
        if isIdle {
            log.notice("idle: \(demand.reason); the sensor is released and nothing is painted until someone looks")
            if let event = parts.source.suspend(why: "nobody looks: \(demand.reason)") {
                _ = motion.take(event, at: now, trace: trace)
            }
            sourceIdle = false
            notifier.status("idle: \(demand.reason)")
            trace?.flush()
        } else {
            log.notice("resumed: \(demand.reason); reading the sensor again, with a new baseline")
            parts.source.resume(now: now)
            pacer.owesFrame = true
            notifier.status(status)
        }
    }

    /// While the bus still has to say that the state changed (its `PropertiesChanged` is
    /// rate-limited), the loop wakes for it even when idle.
    private func busWakeup(now: Double) -> Double? {
        guard bus != nil, let at = busStateChangedAt, now - at < 2 * StatusBus.minimumInterval else { return nil }
        return StatusBus.minimumInterval / 2
    }
}

/// What the pending signals ask the loop to do, strongest first: a stop outranks a
/// reload, which outranks a recapture (a reload captures a new baseline anyway), so a
/// SIGTERM that arrives with a burst of SIGHUPs is never dropped. SIGUSR2, the console's
/// switch signal, goes to the sink beside these.
enum SignalRequest: Equatable {
    case stop(Signal)
    case reload
    case recapture

    /// nil when nothing is pending.
    init?(_ pending: [Signal]) {
        if let stop = pending.first(where: { $0 != .hangup && $0 != .user1 && $0 != .user2 }) {
            self = .stop(stop)
        } else if pending.contains(.hangup) {
            self = .reload
        } else if pending.contains(.user1) {
            self = .recapture
        } else {
            return nil
        }
    }
}

/// WATCHDOG=1 from the loop itself, every half of `WatchdogSec`: a loop that hangs stops
/// the heartbeat, and systemd restarts the service.
struct Heartbeat {
    private let period: Double?
    private var last = -Double.infinity

    init(_ watchdogMicroseconds: UInt64?) {
        period = watchdogMicroseconds.map { Double($0) / 2e6 }
    }

    mutating func beat(at now: Double, _ notifier: any ServiceNotifying) {
        guard let period, now - last >= period else { return }
        notifier.watchdog()
        last = now
    }

    func dueIn(now: Double) -> Double? {
        period.map { max(0, last + $0 - now) }
    }
}
