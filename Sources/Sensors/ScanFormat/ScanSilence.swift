/// Buffer mode: a device node that stops delivering scans while the device is still
/// there (no udev `remove`: a wedged bus, a driver that stopped its trigger) would
/// otherwise leave the card frozen with nothing said. This notices the silence once it
/// is clearly beyond the pace reads expect, and notices when scans come back.
///
/// Pure: time and what each read found are parameters. It allocates nothing; the
/// caller logs one line per change (`.silent`, `.delivering`), never one per read.
package struct ScanSilence: Sendable, Equatable {
    /// A silence is reported after this many expected intervals, and never before
    /// `minimumSeconds` (a still device read on the idle timer, a slow watermark).
    package static let intervals = 20.0
    package static let minimumSeconds = 2.0

    package enum Change: Equatable, Sendable {
        /// No scan for `seconds` (since the last one, or since attaching).
        case silent(seconds: Double)
        /// Scans again, after `seconds` without one.
        case delivering(afterSeconds: Double)
    }

    /// When the last scan came (or the node was attached).
    private var since: Double
    private var reported = false

    package init(attachedAt now: Double) {
        since = now
    }

    /// How long a silence must last to be reported, reads being `interval` seconds apart.
    package static func threshold(interval: Double) -> Double {
        max(minimumSeconds, intervals * interval)
    }

    /// One read at `now`: `gotData` if it found a scan; `interval` the seconds between
    /// scans the reads expect (the batch interval, or the idle period while still).
    package mutating func read(gotData: Bool, at now: Double, interval: Double) -> Change? {
        if gotData {
            defer {
                since = now
                reported = false
            }
            return reported ? .delivering(afterSeconds: now - since) : nil
        }
        guard !reported, now - since > Self.threshold(interval: interval) else { return nil }
        reported = true
        return .silent(seconds: now - since)
    }
}
