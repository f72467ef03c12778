import FoundationEssentials

/// The records of the JSON Lines trace (docs/TRACES.md, "Records"). Writers and readers
/// (replay, plot, trace-as-sensor) share these types. Unknown fields and record types
/// are ignored by readers; new fields are only ever added.
package enum TraceRecord {
    /// Every record type of a trace, by its `type` field: the one list the records'
    /// `type`, the reader (`TraceEntry`) and docs/TRACES.md follow. A type not listed
    /// here is unknown to this version (readers skip it and count it).
    package enum Kind: String, CaseIterable, Sendable {
        case header, baseline, recapture, sample, reading, gyro, frame, dropped, demand
    }

    package struct Header: Codable, Sendable, Equatable {
        package var type = Kind.header.rawValue
        package var version = 1
        package var sensor: Sensor
        package var card: Card
        package var mapper: Mapper
        // The spec's header has sensor, card and mapper; the rest are shimmerd's additions,
        // optional so that a reader accepts a trace another tool wrote to the spec.
        package var attitude: Attitude?
        package var sink: Sink?
        /// shimmerd's version.
        package var shimmerd: String?
        /// Where and when this trace was recorded.
        package var run: Run?

        package init(
            sensor: Sensor, card: Card, mapper: Mapper, attitude: Attitude?, sink: Sink?, shimmerd: String?,
            run: Run? = nil
        ) {
            self.sensor = sensor
            self.card = card
            self.mapper = mapper
            self.attitude = attitude
            self.sink = sink
            self.shimmerd = shimmerd
            self.run = run
        }
    }

    /// The run a header describes, so that a trace explains itself.
    package struct Run: Codable, Sendable, Equatable {
        /// Wall-clock start, UTC, ISO 8601 ("2025-01-31T12:00:00Z"); `t` counts from here.
        package var started: String?
        package var host: String?
        /// `uname -r`.
        package var kernel: String?
        package var pid: Int?
        /// The command line.
        package var argv: [String]?
        /// 0 for the first file; a rotated trace's later files count up (`Trace.max_size`).
        package var part: Int

        package init(
            started: String? = nil, host: String? = nil, kernel: String? = nil, pid: Int? = nil,
            argv: [String]? = nil, part: Int = 0
        ) {
            self.started = started
            self.host = host
            self.kernel = kernel
            self.pid = pid
            self.argv = argv
            self.part = part
        }
    }

    package struct Sensor: Codable, Sendable, Equatable {
        /// Configured selector and the device used ("iio:device0", "simulated"), when known.
        package var selector: String?
        package var device: String?
        package var name: String?
        package var mode: String?
        /// Samples per second wanted.
        package var rate: Double?
        package var scale: [Double]?
        package var mountMatrix: [[Double]]?
        package var mountMatrixSource: String?
        /// The gyroscope in use ("iio:device2", "trace"), if any, and why it was paired.
        package var gyro: String?
        package var gyroPairing: String?
        package var gyroMountMatrix: [[Double]]?
        package var gyroMountMatrixSource: String?

        enum CodingKeys: String, CodingKey {
            case selector, device, name, mode, rate, scale, gyro
            case mountMatrix = "mount_matrix"
            case mountMatrixSource = "mount_matrix_source"
            case gyroPairing = "gyro_pairing"
            case gyroMountMatrix = "gyro_mount_matrix"
            case gyroMountMatrixSource = "gyro_mount_matrix_source"
        }

        package init(
            selector: String?, device: String? = nil, name: String? = nil, mode: String? = nil, rate: Double?,
            scale: [Double]? = nil, mountMatrix: [[Double]]? = nil, mountMatrixSource: String? = nil
        ) {
            self.selector = selector
            self.device = device
            self.name = name
            self.mode = mode
            self.rate = rate
            self.scale = scale
            self.mountMatrix = mountMatrix
            self.mountMatrixSource = mountMatrixSource
        }
    }

    package struct Card: Codable, Sendable, Equatable {
        package var width: Double
        package var height: Double
        package var scale: Double
        package var origin: [Double]

        package init(width: Double, height: Double, scale: Double, origin: [Double]) {
            self.width = width
            self.height = height
            self.scale = scale
            self.origin = origin
        }
    }

    package struct Mapper: Codable, Sendable, Equatable {
        package var rollRange: Double
        package var pitchRange: Double
        package var maxOffset: Double
        package var clamp: Bool

        enum CodingKeys: String, CodingKey {
            case rollRange = "roll_range", pitchRange = "pitch_range", maxOffset = "max_offset", clamp
        }

        package init(rollRange: Double, pitchRange: Double, maxOffset: Double, clamp: Bool) {
            self.rollRange = rollRange
            self.pitchRange = pitchRange
            self.maxOffset = maxOffset
            self.clamp = clamp
        }
    }

    package struct Attitude: Codable, Sendable, Equatable {
        package var baselineSamples: Int
        package var filter: String
        package var minCutoff: Double
        package var beta: Double
        package var dCutoff: Double

        enum CodingKeys: String, CodingKey {
            case baselineSamples = "baseline_samples", filter, minCutoff = "min_cutoff", beta, dCutoff = "d_cutoff"
        }

        package init(baselineSamples: Int, filter: String, minCutoff: Double, beta: Double, dCutoff: Double) {
            self.baselineSamples = baselineSamples
            self.filter = filter
            self.minCutoff = minCutoff
            self.beta = beta
            self.dCutoff = dCutoff
        }
    }

    package struct Sink: Codable, Sendable, Equatable {
        package var type: String
        package var fps: Double

        package init(type: String, fps: Double) {
            self.type = type
            self.fps = fps
        }
    }

    /// A baseline capture: `up` is the unit "up" vector u0 of docs/TILT.md, "Baseline".
    package struct Baseline: Codable, Sendable, Equatable {
        package var type = Kind.baseline.rawValue
        package var t: Double
        package var up: [Double]

        package init(t: Double, up: [Double]) {
            self.t = t
            self.up = up
        }
    }

    /// The baseline was dropped to be captured again from the next readings: SIGUSR1, or
    /// the accelerometer attached again after it went away. A trace replayed as the sensor
    /// recaptures at the same point, so its tilts match the recording's after it too.
    package struct Recapture: Codable, Sendable, Equatable {
        package var type = Kind.recapture.rawValue
        package var t: Double
        package var reason: String
        /// True where the new baseline waits for the device to rest (a tablet-mode
        /// switch); absent where it is taken at once.
        package var rest: Bool?

        package init(t: Double, reason: String, rest: Bool? = nil) {
            self.t = t
            self.reason = reason
            self.rest = rest
        }
    }

    /// One sensor sample used.
    package struct Sample: Codable, Sendable, Equatable {
        package var type = Kind.sample.rawValue
        package var t: Double
        package var seq: Int
        package var accel: [Double]
        package var dpitch: Double
        package var droll: Double
        package var focal: [Double]

        package init(t: Double, seq: Int, accel: [Double], dpitch: Double, droll: Double, focal: [Double]) {
            self.t = t
            self.seq = seq
            self.accel = accel
            self.dpitch = dpitch
            self.droll = droll
            self.focal = focal
        }
    }

    /// A reading the attitude did not turn into a `sample` (an addition to the spec's
    /// records): one collected into the baseline, or one rejected. With the `sample`
    /// records it makes the trace a complete record of the sensor, so that `trace:FILE`
    /// can feed every reading back. `accel` as in `sample`; readings with non-finite
    /// values are not written (JSON has no NaN).
    package struct Reading: Codable, Sendable, Equatable {
        package var type = Kind.reading.rawValue
        package var t: Double
        package var accel: [Double]
        /// "baseline" (collected into the baseline) or "rejected".
        package var use: String
        /// Why a reading was rejected or not used for the baseline.
        package var reason: String?

        package init(t: Double, accel: [Double], use: String, reason: String? = nil) {
            self.t = t
            self.accel = accel
            self.use = use
            self.reason = reason
        }
    }

    /// One gyroscope reading used (docs/TRACES.md, "Records"): `anglvel` in rad/s,
    /// device frame, after scale and the gyroscope's matrix. With `Sensor.device =
    /// trace:FILE` these are replayed as the gyroscope, in file order with the readings.
    package struct Gyro: Codable, Sendable, Equatable {
        package var type = Kind.gyro.rawValue
        package var t: Double
        package var anglvel: [Double]
        /// The gyroscope's weight in the fused attitude where it is below one (its frame is
        /// doubted, or contested by the evidence); absent at the whole weight.
        package var weight: Double?

        package init(t: Double, anglvel: [Double], weight: Double? = nil) {
            self.t = t
            self.anglvel = anglvel
            self.weight = weight
        }
    }

    /// One frame published (an addition to the spec's records): the smoothed focal point
    /// actually drawn, which may trail the samples' target.
    package struct Frame: Codable, Sendable, Equatable {
        package var type = Kind.frame.rawValue
        package var t: Double
        package var frame: UInt64
        package var focal: [Double]
        package var dots: Int
        package var pixels: Int
        /// Seconds since start when the sink had published it (t is when the loop woke):
        /// published - t of a sample record with the same t is that sample's latency.
        package var published: Double?

        package init(t: Double, frame: UInt64, focal: [Double], dots: Int, pixels: Int, published: Double? = nil) {
            self.t = t
            self.frame = frame
            self.focal = focal
            self.dots = dots
            self.pixels = pixels
            self.published = published
        }
    }

    /// A frame the loop rendered but the sink could not deliver (a reader that does not
    /// keep up, a FIFO without a reader, more than `Sink.fps` in a second): it is not a
    /// `frame` record, so frame records stay exactly the frames that were published.
    package struct Dropped: Codable, Sendable, Equatable {
        package var type = Kind.dropped.rawValue
        package var t: Double
        package var focal: [Double]
        package var reason: String

        package init(t: Double, focal: [Double], reason: String) {
            self.t = t
            self.focal = focal
            self.reason = reason
        }
    }

    /// The daemon stopped reading and painting because nobody looks (`Sink.demand = auto`:
    /// no claim on the shared-memory frames, the display off or its console switched
    /// away), or began again because someone does: `state` is `idle` or `resumed`.
    /// Readings stop between the two; the sensor attaches again after `resumed`, with a
    /// new baseline (a `recapture` record).
    package struct Demand: Codable, Sendable, Equatable {
        package var type = Kind.demand.rawValue
        package var t: Double
        package var state: String
        package var reason: String

        package init(t: Double, idle: Bool, reason: String) {
            self.t = t
            state = idle ? "idle" : "resumed"
            self.reason = reason
        }
    }

    /// One JSON line, newline included (`TraceJSON`).
    package static func line<R: Encodable>(_ record: R) -> [UInt8] { TraceJSON.line(record) }
}
