/// When the accelerometer is read next: at `Sensor.rate`, slowly while the device lies
/// still, or, in buffer mode, when the kernel's batch is due (the device node wakes the
/// caller; a timed read is the fallback for a batch that does not come). Pure: time is a
/// parameter, seconds.
struct ReadSchedule: Sendable {
    /// Seconds between reads at full rate: `1 / Sensor.rate`; an input device's, a frame.
    private var fullRate: Double
    /// Reads are paced from the last one rather than on a fixed grid: an input device's
    /// reads then line up with the frames, one wakeup each (a grid drifts against the
    /// frames' actual times, and a read just before a frame is due is a wakeup of its own).
    private var pacedFromLastRead = false
    /// When the next timed read is due.
    private var nextReadAt = 0.0
    /// Buffer mode: the device node is waited on (it has given data when readable);
    /// cleared when it reports readable without data (an emulated node at its end, a
    /// failing device), set again when a timed read finds data.
    private var bufferWakesUs = true
    /// When the last read that found data happened while waiting on the buffer, and the
    /// smoothed time between such reads (the batch interval the kernel delivers).
    private var lastData: Double?
    private var batch: Double?
    /// `idlePeriod`.
    private var idle: Double?
    /// `restBackstop`.
    private var backstop: Double?
    /// At rest, until when the device is read every `idlePeriod` after its descriptor woke
    /// the caller: a reading that the rest gate holds as a spike is confirmed (or not) by
    /// the ones that follow, which a device that reports changes only would never send
    /// (set down in a new pose, it reports once).
    private var confirmUntil = -Double.infinity
    /// Seconds of timed reads after the device's own wakeup at rest.
    static let confirmation = 1.0
    /// At rest, how many reads at full rate are still to come: a backstop read that the
    /// rest gate doubted (near the edge of its band: a creep no event reports, or noise),
    /// or a motion event, is settled by the readings right after it rather than by the
    /// next backstop's or the confirming ones every `idlePeriod`.
    private var closerReadsLeft = 0
    /// Reads at full rate that settle a doubt: over ten readings the smoothed direction's
    /// noise falls to a third of one reading's (the One Euro filter at rest, 100 Hz).
    static let closerReads = 10

    /// Seconds between reads at full rate.
    var fullRatePeriod: Double { fullRate }
    /// When the next timed read is due.
    var nextRead: Double { nextReadAt }
    /// The smoothed seconds between batches while the buffer wakes the caller.
    var batchInterval: Double? { batch }

    init(rateHz: Double) {
        fullRate = 1 / max(rateHz, 0.1)
    }

    /// Reads every `period` seconds at full rate, on a grid or from the last read.
    mutating func pace(period: Double, fromLastRead: Bool) {
        fullRate = max(period, 1e-3)
        pacedFromLastRead = fromLastRead
    }

    /// While set, reads happen at most every `idlePeriod` seconds: the device has lain
    /// still for a while, so a still device costs next to nothing. Cleared on the first
    /// sample that moves: full rate from then on.
    var idlePeriod: Double? {
        get { idle }
        set {
            if newValue == nil, idle != nil { nextReadAt = 0 }
            idle = newValue
            lastData = nil
            closerReadsLeft = 0
        }
    }

    /// At rest, the device's own descriptor wakes the reads (`RestWatch`: its event node, a
    /// hub's buffer that sends only changes), and a timed read comes only every
    /// `restBackstop` seconds (infinity: none). nil: timed reads every `idlePeriod`.
    var restBackstop: Double? {
        get { backstop }
        set {
            if newValue == nil, backstop != nil, idle != nil { nextReadAt = 0 }  // timed reads from now on
            backstop = newValue
            closerReadsLeft = 0
        }
    }

    /// At rest, and the device's own descriptor is waited on instead of the timer.
    var watchesAtRest: Bool { idle != nil && backstop != nil }

    /// At rest with a backstop read, the last reading was doubted: the next
    /// `closerReads` reads come at full rate from `now` (a look under way is not lengthened).
    mutating func lookCloser(now: Double) {
        guard watchesAtRest, backstop?.isFinite == true, closerReadsLeft == 0 else { return }
        closerReadsLeft = Self.closerReads
        nextReadAt = min(nextReadAt, now + fullRate)
    }

    /// Seconds between timed reads.
    var period: Double {
        guard let idle else { return fullRate }
        return max(fullRate, backstop ?? idle)
    }

    /// Whether reads wait on the device node: buffer mode, moving (a still device is read
    /// on the idle timer, and the kernel buffer keeps its scans meanwhile).
    var waitsOnNode: Bool { idle == nil && bufferWakesUs }

    /// A device attached at `now`, delivering `batchInterval` seconds of scans per wakeup
    /// in buffer mode: read at once.
    mutating func attached(now: Double, batchInterval: Double) {
        bufferWakesUs = true
        lastData = nil
        batch = batchInterval
        nextReadAt = now
    }

    func isDue(now: Double) -> Bool { now >= nextReadAt }

    /// No timed read before `t` (reads the kernel refuses are retried slowly).
    mutating func postpone(until t: Double) { nextReadAt = max(nextReadAt, t) }

    /// How long the caller may sleep before the next timed read.
    func timeout(now: Double) -> Double { max(0, nextReadAt - now) }

    /// When the next sample should be there: waiting on the node, one batch interval after
    /// the last one; otherwise the next timed read.
    func nextSampleExpected(now: Double, waitedOnNode: Bool) -> Double {
        if waitedOnNode, let last = lastData, let gap = batch { return max(0, last + gap - now) }
        return timeout(now: now)
    }

    /// After a read at `now`: `waited`, whether the node was waited on; `woke`, whether it
    /// woke the caller; `gotData`, whether the read found a reading.
    mutating func didRead(now: Double, waited: Bool, woke: Bool, gotData: Bool) {
        if watchesAtRest, let idle {
            // The device says when it moves: the next timed read is the backstop's, or,
            // after the device woke the caller, a confirming one.
            if woke, gotData {
                confirmUntil = now + Self.confirmation
                // A device's motion event (a watch with a backstop read): its reading may
                // predate the motion (a buffer's next scan carries it), so the next reads
                // come at full rate, as a doubted reading's do.
                if backstop?.isFinite == true { closerReadsLeft = Self.closerReads }
            }
            if closerReadsLeft > 0 { closerReadsLeft -= 1 }
            nextReadAt = closerReadsLeft > 0 ? now + fullRate : now < confirmUntil ? now + idle : now + period
            lastData = nil
            return
        }
        guard waited else {
            nextReadAt = pacedFromLastRead ? now + period : max(nextReadAt + period, now - period)
            if gotData, !bufferWakesUs { bufferWakesUs = true }
            lastData = nil
            return
        }
        let expected = batch ?? period
        if gotData {
            // The kernel's pace, learnt: consecutive batches only (a gap of two or more
            // intervals is a batch the timed read took, or a pause).
            if let last = lastData, now - last > 0.5 * expected, now - last < 1.5 * expected {
                batch = 0.8 * expected + 0.2 * (now - last)
            }
            lastData = now
            nextReadAt = now + 1.1 * (batch ?? period)
        } else if woke {
            // Readable without data: not a real watermark; timed reads from here on.
            bufferWakesUs = false
            lastData = nil
            nextReadAt = now + period
        } else {
            nextReadAt = now + expected  // a late batch: the node wakes the caller when it comes
        }
    }
}
