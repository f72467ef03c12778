import Motion
import Sensors
import Tracing

/// A trace as the sensor (`Sensor.device = trace:FILE`): the trace's readings, in file
/// order, at their recorded times on a `TraceClock`.
///
/// The readings are the `accel` of every `sample` and `reading` record: together they
/// are everything the sensor delivered (readings that went into the baseline or were
/// rejected are `reading` records), already scaled and in the device frame, so
/// `Sensor.mount_matrix` and `Sensor.invert` do not apply again. A trace written before
/// `reading` records existed has only the samples; its baseline is then taken from its
/// first samples and the tilts differ from the recording's (a notice says so).
/// A `recapture` record (SIGUSR1, or the sensor attached again) is replayed just before
/// the reading that followed it, so the tilts after it match the recording's too.
/// `gyro` records are the gyroscope, in file order with the readings (docs/TRACES.md,
/// "Records": a record at the same `t` as a reading comes first, as the daemon writes them).
/// When the last reading has been delivered the source is exhausted and the run ends.
///
/// The file is read as it plays (`TraceStream`): at most `batch` items ahead of the
/// reading being delivered, so a trace of any length starts at once and in bounded
/// memory. What needs the file's beginning (its header, whether it has `reading`
/// records, the longest wait) is judged on the first batch, read at start; a damaged
/// line there fails the start (exit 65, file:line) as before, one further on ends the
/// run when it is reached (`failure`), with the same words.
package final class TraceSource: SampleSource {
    /// Items read ahead of the one being delivered, at most.
    package static let batch = 4096

    package let path: String
    /// The gyroscope's readings (rad/s, device frame) read so far.
    package private(set) var gyroCount = 0
    /// The first batch has `reading` records (the baseline's readings are all there).
    package private(set) var isComplete = false
    /// The first batch has a `baseline` record.
    package private(set) var hasBaseline = false
    /// The trace's header, if the first batch has one.
    package private(set) var header: TraceRecord.Header?
    /// The whole file has been read (at start: it fitted in the first batch).
    package private(set) var isFullyRead = false
    /// The whole file fitted in the first batch, read at start.
    package private(set) var readWholeAtStart = false
    /// The file ended in a partial line (a crash mid-write), dropped.
    package var truncatedLastLine: Bool { stream.truncatedLastLine }
    /// The damaged line that ended the reading, if any.
    package private(set) var failure: TraceReadError?
    /// Said once per long wait found after the first batch: (seconds, from t).
    private var onLongWait: ((Double, Double) -> Void)?

    /// Calls `say` once per long wait found after the first batch, with its seconds and
    /// the trace time it starts at.
    package func sayLongWaits(_ say: @escaping (Double, Double) -> Void) { onLongWait = say }

    private struct Item {
        var t: Double
        var value: Vector3
        var isGyro: Bool
        /// Recorded recaptures, replayed just before this item.
        var recaptures: [TraceRecord.Recapture]
    }

    private let stream: TraceStream
    private let gyroscope: Bool
    private let clock: TraceClock
    private var ahead: [Item] = []
    private var index = 0
    private var delivered = 0
    /// Recaptures read whose following reading is not read yet.
    private var recaptures: [TraceRecord.Recapture] = []
    /// The latest reading time read, for the waits between readings.
    private var lastReadingTime = 0.0
    /// Clock time of the trace's t = 0: the daemon's start (0) unless rebuilt by SIGHUP.
    private var base: Double?

    /// Reads the first batch of `stream`.
    /// - Parameter gyroscope: replay the `gyro` records (false: `Sensor.gyro = none`).
    package init(stream: TraceStream, clock: TraceClock, gyroscope: Bool = true) {
        path = stream.path
        self.stream = stream
        self.clock = clock
        self.gyroscope = gyroscope
        refill(first: true)
        readWholeAtStart = isFullyRead
    }

    /// A trace already read.
    package convenience init(path: String, contents: TraceContents, clock: TraceClock, gyroscope: Bool = true) {
        self.init(stream: TraceStream(entries: contents.entries, path: path), clock: clock, gyroscope: gyroscope)
    }

    /// The accelerometer's readings read ahead and not yet delivered, in file order (at
    /// start, while `isFullyRead`: all of them).
    package var readings: [(t: Double, accel: Vector3)] {
        ahead[index...].filter { !$0.isGyro }.map { ($0.t, $0.value) }
    }

    /// Reads up to `batch` items after the delivered ones.
    private func refill(first: Bool = false) {
        ahead.removeAll(keepingCapacity: true)
        index = 0
        do {
            while ahead.count < Self.batch, let entry = try stream.next() {
                take(entry, first: first)
            }
        } catch {
            failure = error
        }
        if stream.isAtEnd || failure != nil { isFullyRead = true }
    }

    private func take(_ entry: TraceEntry, first: Bool) {
        switch entry {
        case .header(let h) where first && header == nil:
            header = h
        case .baseline where first:
            hasBaseline = true
        case .recapture(let r):
            recaptures.append(r)
        case .sample(let s) where s.accel.count == 3:
            append(s.t, Vector3(s.accel[0], s.accel[1], s.accel[2]), isGyro: false, first: first)
        case .reading(let r) where r.accel.count == 3:
            if first { isComplete = true }
            append(r.t, Vector3(r.accel[0], r.accel[1], r.accel[2]), isGyro: false, first: first)
        case .gyro(let g) where gyroscope && g.anglvel.count == 3:
            gyroCount += 1
            append(g.t, Vector3(g.anglvel[0], g.anglvel[1], g.anglvel[2]), isGyro: true, first: first)
        default:
            break
        }
    }

    private func append(_ t: Double, _ value: Vector3, isGyro: Bool, first: Bool) {
        if !isGyro {
            // The first batch's waits are said at start, from `readings`.
            if !first, t - lastReadingTime > Daemon.longWait { onLongWait?(t - lastReadingTime, lastReadingTime) }
            lastReadingTime = max(lastReadingTime, t)
        }
        ahead.append(Item(t: t, value: value, isGyro: isGyro, recaptures: recaptures))
        recaptures.removeAll()
    }

    package var summary: String {
        "trace \(path) (item \(delivered)" + (isFullyRead ? " of \(delivered - index + ahead.count))" : ")")
    }
    package var isExhausted: Bool { index >= ahead.count && isFullyRead }
    package func appendFileDescriptors(to fds: inout [Int32]) {}  // trace time: nothing to poll

    package func nextTimeout(now: Double) -> Double {
        guard let base else { return 0 }
        if index >= ahead.count && !isFullyRead { refill() }
        guard index < ahead.count else {
            clock.expect(nextEvent: nil)
            return .infinity
        }
        let due = base + ahead[index].t
        clock.expect(nextEvent: due)
        return max(0, due - now)
    }

    package func handle(now: Double, readable: [Int32], into events: inout [SensorEvent]) {
        let base = self.base ?? now
        self.base = base
        while true {
            if index >= ahead.count && !isFullyRead { refill() }
            guard index < ahead.count, base + ahead[index].t <= now else { break }
            let item = ahead[index]
            for r in item.recaptures {
                events.append(
                    .motion(r.rest == true ? .recaptureAtRest(r.reason, at: now) : .recapture(r.reason, at: now)))
            }
            events.append(
                .motion(
                    item.isGyro
                        ? .angularVelocity(radiansPerSecond: item.value, at: now)
                        : .acceleration(metersPerSecondSquared: item.value, at: now)))
            index += 1
            delivered += 1
        }
    }

    package func release() {}

    /// A recording plays at its own pace; stillness changes nothing.
    package func setIdle(period: Double?) {}
}
