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
/// `gyro` records are the gyroscope, in file order with the readings (spec/interfaces.md:
/// a record at the same `t` as a reading comes first, as the daemon writes them).
/// When the last reading has been delivered the source is exhausted and the run ends.
package final class TraceSource: SampleSource {
    package let path: String
    package let readings: [(t: Double, accel: Vector3)]
    /// The gyroscope's readings (rad/s, device frame), if the trace has any.
    package let gyroCount: Int
    /// Recorded recaptures: before item `before` of `timeline` (file order), at `t`, why.
    package let recaptures: [(before: Int, t: Double, reason: String)]
    /// Readings and gyroscope readings in file order.
    private let timeline: [(t: Double, value: Vector3, isGyro: Bool)]
    /// The trace has `reading` records (the baseline's readings are all there).
    package let isComplete: Bool
    private let clock: TraceClock
    private var index = 0
    private var nextRecapture = 0
    /// Clock time of the trace's t = 0: the daemon's start (0) unless rebuilt by SIGHUP.
    private var base: Double?

    /// - Parameter gyroscope: replay the `gyro` records (false: `Sensor.gyro = none`).
    package init(path: String, contents: TraceContents, clock: TraceClock, gyroscope: Bool = true) {
        self.path = path
        self.clock = clock
        var items: [(t: Double, value: Vector3, isGyro: Bool)] = []
        var marks: [(before: Int, t: Double, reason: String)] = []
        var sawReading = false
        for entry in contents.entries {
            switch entry {
            case .recapture(let r):
                marks.append((items.count, r.t, r.reason))
            case .sample(let s) where s.accel.count == 3:
                items.append((s.t, Vector3(s.accel[0], s.accel[1], s.accel[2]), false))
            case .reading(let r) where r.accel.count == 3:
                sawReading = true
                items.append((r.t, Vector3(r.accel[0], r.accel[1], r.accel[2]), false))
            case .gyro(let g) where gyroscope && g.anglvel.count == 3:
                items.append((g.t, Vector3(g.anglvel[0], g.anglvel[1], g.anglvel[2]), true))
            default:
                break
            }
        }
        timeline = items
        readings = items.filter { !$0.isGyro }.map { ($0.t, $0.value) }
        gyroCount = items.count - readings.count
        recaptures = marks
        isComplete = sawReading
    }

    package var summary: String { "trace \(path) (item \(index) of \(timeline.count))" }
    package var isExhausted: Bool { index >= timeline.count }
    package func appendFileDescriptors(to fds: inout [Int32]) {}   // trace time: nothing to poll

    package func nextTimeout(now: Double) -> Double {
        guard let base else { return 0 }
        guard index < timeline.count else {
            clock.nextEvent = nil
            return .infinity
        }
        let due = base + timeline[index].t
        clock.nextEvent = due
        return max(0, due - now)
    }

    package func handle(now: Double, readable: [Int32], into events: inout [AccelerometerService.Event]) {
        let base = self.base ?? now
        self.base = base
        while index < timeline.count, base + timeline[index].t <= now {
            while nextRecapture < recaptures.count, recaptures[nextRecapture].before <= index {
                events.append(.recapture(recaptures[nextRecapture].reason))
                nextRecapture += 1
            }
            let item = timeline[index]
            events.append(item.isGyro ? .gyro(item.value, at: now) : .sample(item.value, RawReading(raw: item.value), at: now))
            index += 1
        }
    }

    package func release() {}

    /// A recording plays at its own pace; stillness changes nothing.
    package func setIdle(period: Double?) {}
}
