import Logging
import Motion
import Sensors

/// The effective configuration: defaults, then the file, then drop-ins in lexical order,
/// then `--set` (config/shimmerd.conf). Values are typed and validated as
/// they are read; `ConfigurationKeys` is the one table of keys, types, defaults and help.
package struct Configuration: Sendable, Equatable {
    package var sensor = SensorSettings()
    package var attitude = AttitudeSettings()
    package var mapper = MapperSettings()
    package var card = CardSettings()
    package var sink = SinkSettings()
    package var trace = TraceSettings()
    package var log = LogSettings()
    /// Where each key that is not at its default was set: `FILE:LINE` or `--set
    /// Section.key=value`, by qualified name (`Sink.path`), so a value that passes the
    /// parser but cannot be used (a directory that cannot be created) is reported where
    /// it was written.
    package var origins: [String: String] = [:]

    package init() {}

    /// Equal values, wherever they were written: `origins` only explains them.
    package static func == (a: Configuration, b: Configuration) -> Bool {
        a.sensor == b.sensor && a.attitude == b.attitude && a.mapper == b.mapper && a.card == b.card
            && a.sink == b.sink && a.trace == b.trace && a.log == b.log
    }

    /// `FILE:LINE` (or `--set ...`) of `key`'s value; nil for a default.
    package func origin(of key: String) -> String? { origins[key] }

    /// "Sink.path = /x (FILE:LINE)": a value and where it came from, for error lines.
    package func describe(_ key: String, _ value: String) -> String {
        "\(key) = \(value.abbreviated)" + (origin(of: key).map { " (\($0.abbreviated))" } ?? " (the default)")
    }

    package static let defaultPath = "/etc/shimmerd/shimmerd.conf"
}

package struct SensorSettings: Sendable, Equatable {
    package init() {}

    /// auto, iio:deviceN, input:eventN, name:NAME, label:LABEL, uri:URI, trace:FILE.
    package var device = DeviceSelector.auto
    package var mode = SensorMode.auto
    /// Samples per second wanted.
    package var rate = 60.0
    /// A matrix "a, b, c; d, e, f; g, h, i"; nil = auto.
    package var mountMatrix: MountMatrix? = nil
    package var invert = false
    /// auto, none, iio:deviceN, name:NAME, label:LABEL.
    package var gyro = GyroSelector.auto
    /// nil = auto.
    package var gyroMountMatrix: MountMatrix? = nil
    /// `trace:FILE` only: 1 = recorded timing, 2 = twice as fast; nil = as fast as possible.
    package var traceSpeed: Double? = 1
}

package struct AttitudeSettings: Sendable, Equatable {
    package init() {}

    package var baselineSamples = 10
    package var filter = AttitudeFilter.oneEuro
    /// One Euro parameters (Casiez et al. 2012): the cutoff in Hz when still, the speed
    /// coefficient, and the derivative's cutoff in Hz.
    package var minCutoff = 4.0
    package var beta = 5.0
    package var dCutoff = 1.0
    /// Seconds of rest in a pose far from the baseline before a new baseline is taken
    /// (a convertible folded into tablet mode, a tablet laid down); 0 = never.
    package var recaptureAfter = 3.0
    /// Radians from the baseline that count as far.
    package var recaptureAngle = 0.35
}

/// `Attitude.filter`: how the up direction is smoothed.
package enum AttitudeFilter: String, Sendable, Equatable, CaseIterable {
    /// The One Euro filter (`Attitude.min_cutoff`, `beta`, `d_cutoff`).
    case oneEuro = "one-euro"
    /// Samples passed through.
    case none
}

package struct MapperSettings: Sendable, Equatable {
    package init() {}

    /// Radians of roll / pitch that give the full offset.
    package var rollRange = FocalMapper.defaultRollRangeRadians
    package var pitchRange = FocalMapper.defaultPitchRangeRadians
    /// Points.
    package var maxOffset = FocalMapper.defaultMaxOffsetPoints
    package var clamp = true
}

package struct CardSettings: Sendable, Equatable {
    package init() {}

    /// Points.
    package var width = FocalPoint.cardWidth
    /// Points; nil = width * 2/3.
    package var height: Double? = nil
    /// Pixels per point.
    package var scale = 2.0
    /// Origin focal point in points; nil = bottom-center (W/2, H).
    package var origin: (x: Double, y: Double)? = nil
    package var leftLabel = "Cash"
    package var rightLabel = "$40"
    /// fontconfig pattern of the label and arrow font.
    package var font = "DejaVu Sans:style=Bold"

    package var effectiveHeight: Double { height ?? FocalPoint.cardHeight(width: width) }
    /// `origin`, or the default bottom-center.
    package var effectiveOrigin: FocalPoint {
        origin.map { FocalPoint(x: $0.x, y: $0.y) } ?? .cardOrigin(width: width, height: effectiveHeight)
    }

    package static func == (a: CardSettings, b: CardSettings) -> Bool {
        a.width == b.width && a.height == b.height && a.scale == b.scale && a.origin?.x == b.origin?.x
            && a.origin?.y == b.origin?.y && a.leftLabel == b.leftLabel && a.rightLabel == b.rightLabel
            && a.font == b.font
    }
}

package struct SinkSettings: Sendable, Equatable {
    package init() {}

    package var type = SinkType.auto
    /// auto: the first /dev/dri/card* with a connected display (drm), /dev/fb0 (framebuffer).
    package var device = "auto"
    /// auto: the first connected connector; else a connector name (eDP-1, HDMI-A-1).
    package var connector = "auto"
    /// nil = center; else screen pixels.
    package var position: (x: Int, y: Int)? = nil
    package var name = "shimmer"
    package var mode: UInt32 = 0o640
    package var path = "-"
    package var fps = 60.0
    /// When frames are painted: auto (while someone looks), always.
    package var demand = SinkDemand.auto

    package static func == (a: SinkSettings, b: SinkSettings) -> Bool {
        a.type == b.type && a.device == b.device && a.connector == b.connector && a.position?.x == b.position?.x
            && a.position?.y == b.position?.y
            && a.name == b.name && a.mode == b.mode && a.path == b.path && a.fps == b.fps && a.demand == b.demand
    }
}

/// `Sink.type`: where frames go (docs/SINKS.md); `auto` picks one of the others at start.
package enum SinkType: String, Sendable, Equatable, CaseIterable {
    case auto, drm, framebuffer, shm, raw, png, null
}

/// `Sink.demand`: whether the daemon reads the sensor and paints only while someone looks.
package enum SinkDemand: String, Sendable, Equatable, CaseIterable {
    /// shm: while a reader holds a claim on the bus; drm and framebuffer: while the display
    /// is on and its console in front; raw, png and null: always (their output is its own
    /// consumer).
    case auto
    /// Every sink paints whenever the device moves, looked at or not.
    case always
}

package struct TraceSettings: Sendable, Equatable {
    package init() {}

    /// Empty: no trace.
    package var path = ""
    /// Bytes; 0 = no rotation.
    package var maxSize = 0
    /// Files kept when rotating, the current one included.
    package var maxFiles = 4
}

package struct LogSettings: Sendable, Equatable {
    package init() {}

    package var level = LogLevel.info
}

/// `Log.level`: the least important lines shown.
package enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case error, warning, notice, info, debug

    /// The logger's level of the same name.
    package var loggerLevel: Logger.Level {
        switch self {
        case .error: .error
        case .warning: .warning
        case .notice: .notice
        case .info: .info
        case .debug: .debug
        }
    }
}
