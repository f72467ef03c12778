import Glibc
import LinuxSystem
import Logging
import Motion
import Sensors

/// The loop behind `shimmerd monitor`: the accelerometer service, the attitude and the
/// mapper, printing until interrupted or `duration` passes. Lines, like monitor-sensor's,
/// come when what they show changes: a sample line when its dPitch, dRoll or focal point
/// (as printed) differs from the last one printed, so a device lying still prints nothing
/// (`everySample`: one line per sample); `--json` prints one object per sample. SIGUSR1
/// recaptures the baseline; SIGINT and SIGTERM stop cleanly
/// (the sampling frequency is restored). Output goes through `emit`, one line a call (a
/// name with a newline in it stays in its line), so the command decides where it is
/// written and how a terminal is kept from what names hold. In buffer mode a sample also carries the scan's own
/// timestamp (`scan_timestamp_ns`, a string: it does not fit a JSON double exactly). With
/// a gyroscope, each sample line shows the angular velocity (deg/s) and `--json` prints
/// `gyro` objects (the trace's `gyro` record fields); a gyroscope taken up or dropped while
/// the accelerometer stays attached is a `gyro-attached` or `gyro-detached` object.
package struct MonitorSession {
    package var settings: AccelerometerSettings
    /// The motion stage, as the daemon's (`MotionConfiguration.interpreter`).
    package var motion: MotionInterpreter
    package var json: Bool
    /// Seconds; nil = until a signal.
    package var duration: Double?
    /// A line for every sample, not only for those that change what the last line showed.
    package var everySample = false

    package init(settings: AccelerometerSettings, motion: MotionInterpreter, json: Bool, duration: Double?) {
        self.settings = settings
        self.motion = motion
        self.json = json
        self.duration = duration
    }

    /// Runs until done.
    package func run(log: Logger, emit: (String) -> Void) throws(SensorError) {
        let signals = ProcessSignals.take([.interrupt, .terminate, .user1])
        let service = try AccelerometerService(settings: settings, log: log)
        defer { service.detach() }
        let start = MonotonicClock.seconds()
        var motion = self.motion
        var lastRate: Vector3?
        /// The tilt and focal point of the last sample line; nil: the next one is printed.
        var lastShown: String?
        var readable: [Int32] = []
        var events: [SensorEvent] = []
        var fds: [Int32] = []
        while true {
            let now = MonotonicClock.seconds() - start
            var stop = false
            for s in signals.mayBePending(readable: readable) ? signals.drain() : [] {
                if s == .user1 {
                    _ = motion.take(.recapture("SIGUSR1", at: now))
                    log.notice("SIGUSR1: recapturing the baseline")
                } else {
                    stop = true
                }
            }
            if let d = duration, now >= d { stop = true }
            if stop { break }
            events.removeAll(keepingCapacity: true)
            service.handle(now: now, readable: readable, into: &events)
            for e in events {
                let out = e.motionInput(at: now).map { motion.take($0) } ?? MotionInterpreter.Outcome()
                if let notice = out.notice { log.notice(notice) }
                for line in describe(e, out, now: now, lastRate: &lastRate, lastShown: &lastShown) { emit(line) }
                if case .motion(.angularVelocity) = e, let line = describeGyroscope(e, out) { emit(line) }
            }
            var timeout = min(service.nextTimeout(now: MonotonicClock.seconds() - start), 0.25)
            if let d = duration { timeout = min(timeout, max(0, d - (MonotonicClock.seconds() - start))) }
            fds.removeAll(keepingCapacity: true)
            service.appendFileDescriptors(to: &fds)
            if let s = signals.fileDescriptor { fds.append(s) }
            ReadinessPoll.waitReadable(fds, timeoutSeconds: timeout, into: &readable)
        }
    }

    /// The lines (or JSON objects) of a sensor event and of what the motion stage made of
    /// it; none when it says nothing.
    /// - Parameter lastRate: the newest angular velocity (rad/s), shown with each sample.
    private func describe(
        _ e: SensorEvent, _ out: MotionInterpreter.Outcome, now: Double,
        lastRate: inout Vector3?, lastShown: inout String?
    ) -> [String] {
        if case .motion(.acceleration(_, let t, let scanNs)) = e {
            return describe(out, at: t, scanTimestampNs: scanNs, lastRate: lastRate, lastShown: &lastShown)
        }
        lastShown = nil  // after any other news, the next sample line is printed
        if case .attached(let a) = e { return describe(a, now: now) }
        return describeOther(e, out, now: now, lastRate: &lastRate).map { [$0] } ?? []
    }

    /// The one line of any other event; nil when it says nothing.
    private func describeOther(
        _ e: SensorEvent, _ out: MotionInterpreter.Outcome, now: Double,
        lastRate: inout Vector3?
    ) -> String? {
        switch e {
        case .waiting(let why):
            return event("waiting", at: now, [("reason", .string(why))], "=== Waiting for an accelerometer: \(why)")
        case .detached(let name, let reason):
            return event(
                "detached", at: now, [("device", .string(name)), ("reason", .string(reason))],
                "=== Accelerometer \(name) vanished (\(reason))")
        case .gyroAttached(let p, let how):
            return event(
                "gyro-attached", at: now,
                [
                    ("gyro", .optional(p.gyro?.id)), ("gyro_reason", .string(p.reason)),
                    ("gyro_mount_matrix_source", .optional(p.matrixSource)), ("how", .string(how)),
                ],
                "=== Gyroscope \(how)")
        case .gyroDetached(let name, let reason):
            lastRate = nil
            return event(
                "gyro-detached", at: now, [("device", .string(name)), ("reason", .string(reason))],
                "=== Gyroscope \(name) gone (\(reason)); accelerometer alone")
        case .motion(.recapture(let why, _)), .motion(.recaptureAtRest(let why, _)):
            return event("recapture", at: now, [("reason", .string(why))], "=== Capturing the baseline again (\(why))")
        case .motion(.angularVelocity(let w, let t)):
            lastRate = w
            switch out.gyroscope {
            case .doubted(let why)?:
                return event(
                    "gyro-disagrees", at: t, [("reason", .string(why))],
                    "=== The gyroscope disagrees with the accelerometer (\(why)); "
                        + "accelerometer alone until it fits again")
            case .trustedAgain(let why)?:
                return event(
                    "gyro-agrees", at: t, [("reason", .string(why))],
                    "=== The gyroscope agrees with the accelerometer again (\(why)); fused again")
            default:
                return nil
            }
        case .attached, .motion:
            return nil
        }
    }

    /// One event's line: with `--json` an object of its `type`, its time `t` and `fields`,
    /// else `text`.
    private func event(
        _ type: String, at t: Double, _ fields: [(String, SensorJSON)],
        _ text: @autoclosure () -> String
    ) -> String {
        json ? SensorJSON.object([("type", .string(type)), ("t", .number(t))] + fields).text : text()
    }

    /// `--json`: the `gyro` object of a gyroscope reading (after its verdict, if any).
    private func describeGyroscope(_ e: SensorEvent, _ out: MotionInterpreter.Outcome) -> String? {
        guard json, case .motion(.angularVelocity(let w, let t)) = e else { return nil }
        return SensorJSON.object([("type", .string("gyro")), ("t", .number(t)), ("anglvel", .vector(w))]).text
    }

    private func describe(_ a: AccelerometerService.Attachment, now: Double) -> [String] {
        json
            ? [
                SensorJSON.object([
                    ("type", .string("attached")), ("t", .number(now)), ("device", .string(a.device.id)),
                    ("name", .optional(a.device.name)), ("mode", .string(a.mode.rawValue)),
                    ("mode_reason", .string(a.modeReason)),
                    ("selection", .string(a.selectionReason)), ("mount_matrix", .matrix(a.device.mountMatrix)),
                    ("mount_matrix_source", .string(a.device.mountMatrixSource)),
                    ("sampling_frequency", .string(a.samplingFrequency)),
                    ("gyro", .optional(a.gyro?.gyro?.id)), ("gyro_reason", .optional(a.gyro?.reason)),
                    ("gyro_mount_matrix_source", .optional(a.gyro?.matrixSource)),
                ]).text
            ]
            : [
                "=== Accelerometer \(a.device.displayName) attached, \(a.mode) mode (\(a.modeReason))",
                "    mount matrix \(a.device.mountMatrix) (\(a.device.mountMatrixSource)); sampling "
                    + "frequency: \(a.samplingFrequency)",
            ]
                + (a.gyro.map { p in
                    [
                        "    gyroscope: "
                            + (p.gyro.map { "\($0.displayName) (\(p.reason); frame from \(p.matrixSource ?? "?"))" }
                                ?? "none (\(p.reason))")
                    ]
                } ?? [])
    }

    /// The baseline captured and the sample given by an acceleration, one line each.
    private func describe(
        _ out: MotionInterpreter.Outcome, at t: Double, scanTimestampNs: Int64?,
        lastRate: Vector3?, lastShown: inout String?
    ) -> [String] {
        var lines: [String] = []
        if let b = out.baseline {
            lastShown = nil
            lines.append(
                event(
                    "baseline", at: t, [("up", .vector(b.up))],
                    "=== Baseline captured: up = (\(fixed(b.up.x, 3)), "
                        + "\(fixed(b.up.y, 3)), \(fixed(b.up.z, 3)))"
                        + (b.portrait ? ", portrait" : "")))
        }
        if let s = out.sample {
            if json {
                lines.append(sampleObject(s, scanTimestampNs: scanTimestampNs))
            } else if case let shown = Self.shown(s), everySample || shown != lastShown {
                lastShown = shown
                lines.append(sampleLine(s, lastRate: lastRate))
            }
        }
        return lines
    }

    private func sampleObject(_ s: MotionSample, scanTimestampNs: Int64?) -> String {
        SensorJSON.object(
            [
                ("type", .string("sample")), ("t", .number(s.t)), ("seq", .int(s.seq)), ("accel", .vector(s.accel)),
                ("dpitch", .number(s.tilt.dPitchRadians)), ("droll", .number(s.tilt.dRollRadians)),
                ("focal", .array([.number(s.focal.x), .number(s.focal.y)])),
            ] + (scanTimestampNs.map { [("scan_timestamp_ns", SensorJSON.string(String($0)))] } ?? [])
        ).text
    }

    /// What a sample line shows of the tilt and the focal point, as printed: a sample whose
    /// text here equals the last line's changes nothing a reader sees (the readings'
    /// noise in the third decimal of m/s^2 is not a change).
    static func shown(_ s: MotionSample) -> String {
        let deg = 180 / Double.pi
        return "dPitch=\(fixed(s.tilt.dPitchRadians * deg, 2, sign: true))°"
            + "  dRoll=\(fixed(s.tilt.dRollRadians * deg, 2, sign: true))°"
            + "  focal=(\(fixed(s.focal.x, 1)), \(fixed(s.focal.y, 1)))"
    }

    private func sampleLine(_ s: MotionSample, lastRate: Vector3?) -> String {
        let deg = 180 / Double.pi
        return "    Accelerometer: x=\(fixed(s.accel.x, 3)) y=\(fixed(s.accel.y, 3)) z=\(fixed(s.accel.z, 3)) m/s^2  "
            + Self.shown(s)
            + (lastRate.map { w in
                "  gyro=(\(fixed(w.x * deg, 1, sign: true)), \(fixed(w.y * deg, 1, sign: true)), "
                    + "\(fixed(w.z * deg, 1, sign: true)))°/s"
            } ?? "")
    }
}

/// Fixed-point text with the C locale (never the process locale).
package func fixed(_ v: Double, _ digits: Int, sign: Bool = false) -> String {
    // Beyond 1e15 an Int of it may overflow; such a value is shown as Swift writes it.
    guard v.isFinite, abs(v) < 1e15 else { return "\(v)" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let scaled = (abs(v) * p).rounded()
    let intPart = Int(scaled / p)
    let frac = Int(scaled.truncatingRemainder(dividingBy: p))
    var s = String(intPart)
    if digits > 0 {
        let f = String(frac)
        s += "." + String(repeating: "0", count: digits - f.count) + f
    }
    let negative = v < 0 && scaled != 0
    return (negative ? "-" : (sign ? "+" : "")) + s
}
