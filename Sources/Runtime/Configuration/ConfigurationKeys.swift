import Motion
import Sensors

/// One configuration key: where it lives, what it accepts, how it is applied and shown.
package struct ConfigurationKey: Sendable {
    package let section: String
    package let name: String
    /// The accepted values, for error messages ("auto, poll or buffer").
    package let accepted: String
    /// One line for config/shimmerd.conf and `check-config`.
    package let help: String
    /// Parses `value` into the configuration; returns nil or what is wrong.
    let apply: @Sendable (inout Configuration, String) -> String?
    /// The effective value, in the file's syntax.
    package let show: @Sendable (Configuration) -> String
    /// The words the key accepts as they are, or their fixed prefixes ("iio:device"), for
    /// shell completion and shimmerd.conf(5); empty when it takes only numbers or free text.
    package var words: [String] = []
    /// Why the typed value in a configuration is out of this key's range ("\"-5.0\" is
    /// not a number from 1 to 10000"), for values set without text (a trace's header);
    /// nil when it is in range or the key has no range.
    var outOfRange: (@Sendable (Configuration) -> String?)? = nil

    package var qualifiedName: String { "\(section).\(name)" }
}

/// The table of every key (config/shimmerd.conf). The same table drives
/// parsing, `check-config`, error messages and the shipped config/shimmerd.conf.
package enum ConfigurationKeys {
    package static let all: [ConfigurationKey] = sensor + attitude + mapper + card + sink + trace + log

    package static let sections = ["Sensor", "Attitude", "Mapper", "Card", "Sink", "Trace", "Log"]

    /// The first value of `config` outside its key's range, as "Key = \"value\" is not
    /// ...", or nil: the check text gets when it is read, for values set typed.
    package static func firstValueOutOfRange(_ config: Configuration) -> String? {
        for key in all {
            if let problem = key.outOfRange?(config) { return "\(key.qualifiedName) = \(problem)" }
        }
        return nil
    }

    /// Case-insensitive lookup.
    package static func find(section: String, name: String) -> ConfigurationKey? {
        all.first { $0.section.lowercased() == section.lowercased() && $0.name.lowercased() == name.lowercased() }
    }

    static let sensor: [ConfigurationKey] = [
        typed(
            "Sensor", "device",
            "which accelerometer: auto (an IIO one, display over base, then lowest index; else an input device accelerometer that is not part of a game controller, a built-in one before a virtual, USB or Bluetooth one), iio:deviceN, input:eventN (an input device: an input accelerometer, a game controller's motion sensors), name:NAME (an IIO or input device's name), label:LABEL, uri:LIBIIO-URI, trace:FILE",
            accepted: "auto, iio:deviceN, input:eventN, name:NAME, label:LABEL, uri:URI or trace:FILE",
            \.sensor.device, words: ["auto", "iio:device", "input:event", "name:", "label:", "uri:", "trace:"],
            parse: { try? DeviceSelector.parse($0).get() }, show: { $0.description }),
        enumeration(
            "Sensor", "mode",
            "auto picks buffer where the device supports it and the process may enable it, else poll; a device iio-sensor-proxy or another program may be reading is polled in either mode, its buffer left alone",
            accepted: "auto, poll or buffer", \.sensor.mode),
        number(
            "Sensor", "rate",
            "samples per second wanted (sampling_frequency is set to the lowest available value at or above it, never below 10 Hz; on a device another reader may use, only ever raised)",
            \.sensor.rate, range: 0.1...10_000),
        matrix(
            "Sensor", "mount_matrix",
            "auto (udev ACCEL_MOUNT_MATRIX, then sysfs, then identity) or a matrix \"a, b, c; d, e, f; g, h, i\"",
            \.sensor.mountMatrix),
        flag(
            "Sensor", "invert", "flip the reading's sign, for hardware that reports the opposite convention",
            \.sensor.invert),
        typed(
            "Sensor", "gyro",
            "which gyroscope: auto (the accelerometer's own IIO device, else one under the same parent), none, iio:deviceN, name:NAME, label:LABEL",
            accepted: "auto, none, iio:deviceN, name:NAME or label:LABEL", \.sensor.gyro,
            parse: { try? GyroSelector.parse($0).get() }, show: { $0.description }),
        matrix(
            "Sensor", "gyro_mount_matrix",
            "auto (the accelerometer's matrix for its own chip or hub, else the gyroscope's sysfs matrix, else identity) or a matrix \"a, b, c; d, e, f; g, h, i\"",
            \.sensor.gyroMountMatrix),
        ConfigurationKey(
            section: "Sensor", name: "trace_speed", accepted: "max or a number from 0.01 to 1000",
            help:
                "with device = trace:FILE: 1 replays readings at their recorded times, 2 twice as fast, max as fast as possible; the run stops at the trace's end",
            apply: { config, value in
                if value.lowercased() == "max" { config.sensor.traceSpeed = nil; return nil }
                guard let v = parseNumber(value), (0.01...1000).contains(v) else {
                    return "not max or a number from 0.01 to 1000"
                }
                config.sensor.traceSpeed = v
                return nil
            }, show: { $0.sensor.traceSpeed.map(formatNumber) ?? "max" }, words: ["max"]),
    ]

    static let attitude: [ConfigurationKey] = [
        integer(
            "Attitude", "baseline_samples", "samples averaged into the baseline \"up\" direction",
            \.attitude.baselineSamples, range: 1...10_000),
        enumeration(
            "Attitude", "filter", "one-euro smooths the up direction; none passes samples through",
            accepted: "one-euro or none", \.attitude.filter),
        number(
            "Attitude", "min_cutoff", "One Euro cutoff frequency when still, Hz (lower: steadier, more lag)",
            \.attitude.minCutoff, range: 0.001...1000),
        number(
            "Attitude", "beta", "One Euro speed coefficient (higher: less lag when moving)", \.attitude.beta,
            range: 0...1000),
        number(
            "Attitude", "d_cutoff", "One Euro cutoff of the speed estimate, Hz", \.attitude.dCutoff, range: 0.001...1000
        ),
        number(
            "Attitude", "recapture_after",
            "seconds of rest in a pose far from the baseline (recapture_angle) before a new baseline is captured; 0 = never",
            \.attitude.recaptureAfter, range: 0...3600),
        number(
            "Attitude", "recapture_angle", "radians from the baseline that count as far for recapture_after",
            \.attitude.recaptureAngle,
            range: 0.01...3.2),
    ]

    static let mapper: [ConfigurationKey] = [
        number(
            "Mapper", "roll_range", "radians of roll that give the full offset", \.mapper.rollRange,
            range: 0.0001...Double.pi),
        number(
            "Mapper", "pitch_range", "radians of pitch that give the full offset", \.mapper.pitchRange,
            range: 0.0001...Double.pi),
        number(
            "Mapper", "max_offset", "points the focal point moves at the full range", \.mapper.maxOffset,
            range: 0...100_000),
        flag("Mapper", "clamp", "clamp offsets to max_offset", \.mapper.clamp),
    ]

    static let card: [ConfigurationKey] = [
        number("Card", "width", "card width, points", \.card.width, range: 1...10_000),
        ConfigurationKey(
            section: "Card", name: "height", accepted: "auto (width * 2/3) or a number from 1 to 10000",
            help: "card height, points",
            apply: { config, value in
                if value == "auto" { config.card.height = nil; return nil }
                guard let v = parseNumber(value), (1...10_000).contains(v) else {
                    return "not auto or a number from 1 to 10000"
                }
                config.card.height = v
                return nil
            }, show: { $0.card.height.map(formatNumber) ?? "auto" }, words: ["auto"],
            outOfRange: { c in
                c.card.height.flatMap {
                    (1...10_000).contains($0) ? nil : "\"\($0)\" is not auto or a number from 1 to 10000"
                }
            }),
        number(
            "Card", "scale", "pixels per point (2: a 350 x 233.333 pt card is 700 x 467 px)", \.card.scale,
            range: 0.05...16),
        ConfigurationKey(
            section: "Card", name: "origin", accepted: "auto (bottom-center) or X,Y in points",
            help: "origin focal point O, where the arcs are centered",
            apply: { config, value in
                if value == "auto" { config.card.origin = nil; return nil }
                guard let p = parsePair(value) else { return "not auto or X,Y" }
                config.card.origin = p
                return nil
            }, show: { c in c.card.origin.map { "\(formatNumber($0.x)),\(formatNumber($0.y))" } ?? "auto" },
            words: ["auto"]),
        text("Card", "left_label", "label drawn at the top left", \.card.leftLabel),
        text("Card", "right_label", "label drawn at the top right", \.card.rightLabel),
        text("Card", "font", "fontconfig pattern of the label and arrow font", \.card.font),
    ]

    static let sink: [ConfigurationKey] = [
        enumeration(
            "Sink", "type",
            "where frames go: auto picks drm where a connected display can be driven (no compositor holds it), else framebuffer where /dev/fb0 opens, else shm (on a desktop: show it with shimmerd view); the log says which and why",
            accepted: "auto, drm, framebuffer, shm, raw, png or null", \.sink.type),
        text(
            "Sink", "device",
            "drm: a card node (/dev/dri/card0) or auto, the first card with a connected display; framebuffer: a device (/dev/fb0), auto is /dev/fb0",
            \.sink.device),
        choice(
            "Sink", "connector",
            "drm: the display output, auto (the first connected) or its kernel name (eDP-1, HDMI-A-1, DP-2; listed in /sys/class/drm as cardN-NAME)",
            accepted: "auto or a connector name such as eDP-1 or HDMI-A-1", \.sink.connector, words: ["auto"],
            valid: {
                !$0.isEmpty && $0.count < 64
                    && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }),
        ConfigurationKey(
            section: "Sink", name: "position", accepted: "center or X,Y in screen pixels",
            help:
                "where the card's top-left corner goes on the screen (drm: as the user sees it, after the panel orientation)",
            apply: { config, value in
                if value == "center" { config.sink.position = nil; return nil }
                guard let p = parsePair(value), let x = Int(exactly: p.x), let y = Int(exactly: p.y) else {
                    return "not center or X,Y (whole pixels)"
                }
                config.sink.position = (x, y)
                return nil
            }, show: { c in c.sink.position.map { "\($0.x),\($0.y)" } ?? "center" }, words: ["center"]),
        choice(
            "Sink", "name", "shared-memory segment name (/dev/shm/NAME)",
            accepted: "a name of letters, digits, '.', '_' and '-'",
            \.sink.name,
            valid: {
                !$0.isEmpty && $0.count < 200 && $0 != "." && $0 != ".."
                    && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
            }),
        ConfigurationKey(
            section: "Sink", name: "mode",
            accepted: "an octal file mode such as 0640, with no write bit for group or others",
            help: "file mode of the shared-memory segment",
            apply: { config, value in
                guard let m = UInt32(value, radix: 8), m <= 0o777 else { return "not an octal mode from 0000 to 0777" }
                // A reader that may write could truncate it under the daemon (SIGBUS).
                guard m & 0o022 == 0 else {
                    return "lets group or others write the segment (allowed: no 0020 or 0002 bit, e.g. 0640 or 0644)"
                }
                config.sink.mode = m
                return nil
            }, show: { "0" + String($0.sink.mode, radix: 8) }),
        text(
            "Sink", "path",
            "raw sink output (- = stdout, refused when it is a terminal, which $(tty) names explicitly; or a FIFO or file); png sink output directory",
            \.sink.path),
        number("Sink", "fps", "most frames per second written", \.sink.fps, range: 1...1000),
        enumeration(
            "Sink", "demand",
            "auto reads the sensor and paints only while someone looks: shm while a reader holds a claim on the system bus (shimmerd view claims while its window is open; without a system bus nobody can claim, so frames are painted), drm and framebuffer while the display is on and its console in front; raw, png and null always. always paints for every sink whenever the device moves",
            accepted: "auto or always", \.sink.demand),
    ]

    static let trace: [ConfigurationKey] = [
        text("Trace", "path", "JSON Lines trace file; empty: no trace", \.trace.path, allowEmpty: true),
        ConfigurationKey(
            section: "Trace", name: "max_size",
            accepted:
                "0 (no rotation) or a size from 4K to 1T, in bytes or with a K, M, G or T suffix (powers of 1024)",
            help:
                "rotate the trace when it reaches this size: FILE becomes FILE.1 (FILE.1 becomes FILE.2, ...); 0: never",
            apply: { config, value in
                guard let v = parseByteSize(value), v == 0 || (4096...(1 << 40)).contains(v) else {
                    return "not 0 or a size from 4K to 1T (such as 4096, 512K, 64M)"
                }
                config.trace.maxSize = v
                return nil
            }, show: { formatByteSize($0.trace.maxSize) }),
        integer(
            "Trace", "max_files", "trace files kept when rotating, the current one included (FILE, FILE.1, ...)",
            \.trace.maxFiles, range: 1...1000),
    ]

    static let log: [ConfigurationKey] = [
        enumeration(
            "Log", "level", "least important log lines shown", accepted: "error, warning, notice, info or debug",
            \.log.level)
    ]

    // MARK: Key builders

    static func number(
        _ section: String, _ name: String, _ help: String,
        _ path: WritableKeyPath<Configuration, Double> & Sendable, range: ClosedRange<Double>
    ) -> ConfigurationKey {
        let accepted = "a number from \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound))"
        return ConfigurationKey(
            section: section, name: name, accepted: accepted, help: help,
            apply: { config, value in
                guard let v = parseNumber(value), range.contains(v) else { return "not \(accepted)" }
                config[keyPath: path] = v
                return nil
            }, show: { formatNumber($0[keyPath: path]) },
            outOfRange: { c in
                let v = c[keyPath: path]
                return range.contains(v) ? nil : "\"\(v)\" is not \(accepted)"
            })
    }

    static func integer(
        _ section: String, _ name: String, _ help: String,
        _ path: WritableKeyPath<Configuration, Int> & Sendable, range: ClosedRange<Int>
    ) -> ConfigurationKey {
        let accepted = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        return ConfigurationKey(
            section: section, name: name, accepted: accepted, help: help,
            apply: { config, value in
                guard let v = Int(value), range.contains(v) else { return "not \(accepted)" }
                config[keyPath: path] = v
                return nil
            }, show: { String($0[keyPath: path]) })
    }

    static func flag(
        _ section: String, _ name: String, _ help: String,
        _ path: WritableKeyPath<Configuration, Bool> & Sendable
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name, accepted: "true or false (also yes/no, on/off, 1/0)", help: help,
            apply: { config, value in
                switch value.lowercased() {
                case "true", "yes", "on", "1": config[keyPath: path] = true
                case "false", "no", "off", "0": config[keyPath: path] = false
                default: return "not true or false"
                }
                return nil
            }, show: { $0[keyPath: path] ? "true" : "false" }, words: ["true", "false"])
    }

    /// A key whose text is parsed into its typed value where it is read (`parse` gives nil
    /// for text it refuses), and shown back in the file's syntax.
    static func typed<Value: Sendable>(
        _ section: String, _ name: String, _ help: String, accepted: String,
        _ path: WritableKeyPath<Configuration, Value> & Sendable, words: [String] = [],
        parse: @escaping @Sendable (String) -> Value?,
        show: @escaping @Sendable (Value) -> String
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name, accepted: accepted, help: help,
            apply: { config, value in
                guard let v = parse(value) else { return "not \(accepted)" }
                config[keyPath: path] = v
                return nil
            }, show: { show($0[keyPath: path]) }, words: words)
    }

    /// A key that takes one of an enumeration's raw values.
    static func enumeration<Value: RawRepresentable & CaseIterable & Sendable>(
        _ section: String, _ name: String, _ help: String, accepted: String,
        _ path: WritableKeyPath<Configuration, Value> & Sendable
    ) -> ConfigurationKey where Value.RawValue == String {
        typed(
            section, name, help, accepted: accepted, path, words: Value.allCases.map(\.rawValue),
            parse: { Value(rawValue: $0) }, show: { $0.rawValue })
    }

    /// A key that takes one of `words`, or, when `valid` is given, whatever it accepts
    /// (then `words` are only what completion offers).
    static func choice(
        _ section: String, _ name: String, _ help: String, accepted: String,
        _ path: WritableKeyPath<Configuration, String> & Sendable, words: [String] = [],
        valid: (@Sendable (String) -> Bool)? = nil
    ) -> ConfigurationKey {
        let valid = valid ?? { words.contains($0) }
        return typed(
            section, name, help, accepted: accepted, path, words: words,
            parse: { valid($0) ? $0 : nil }, show: { $0 })
    }

    /// `auto` (nil) or a mount matrix (`MountMatrix.parse`): a rotation, or a rotation
    /// with a mirror, parsed here once. A refusal names why, in the words the sensors' own
    /// matrices get.
    static func matrix(
        _ section: String, _ name: String, _ help: String,
        _ path: WritableKeyPath<Configuration, MountMatrix?> & Sendable
    ) -> ConfigurationKey {
        let accepted =
            "auto or nine numbers \"a, b, c; d, e, f; g, h, i\" making a rotation (or a rotation with a mirror)"
        return ConfigurationKey(
            section: section, name: name, accepted: accepted, help: help,
            apply: { config, value in
                if value == "auto" { config[keyPath: path] = nil; return nil }
                switch MountMatrix.parse(value) {
                case .success(let m): config[keyPath: path] = m
                case .failure(let e):
                    return e.isMalformed ? "not auto or nine numbers \"a, b, c; d, e, f; g, h, i\": \(e)" : "\(e)"
                }
                return nil
            }, show: { $0[keyPath: path]?.description ?? "auto" }, words: ["auto"])
    }

    static func text(
        _ section: String, _ name: String, _ help: String,
        _ path: WritableKeyPath<Configuration, String> & Sendable, allowEmpty: Bool = false
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name, accepted: allowEmpty ? "any text" : "any non-empty text", help: help,
            apply: { config, value in
                if value.isEmpty && !allowEmpty { return "empty" }
                config[keyPath: path] = value
                return nil
            }, show: { $0[keyPath: path] })
    }
}

/// A finite decimal number in the C locale's syntax (Swift's parser ignores the process
/// locale): digits, a sign, a point and an exponent; no hexadecimal ("0x10"), no inf or nan.
func parseNumber(_ s: String) -> Double? {
    guard s.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }),
        let v = Double(s), v.isFinite
    else { return nil }
    return v
}

/// "4096", "512K", "64M", "1G", "1T" (powers of 1024) as bytes.
func parseByteSize(_ s: String) -> Int? {
    let t = s.trimmingSpaces().uppercased()
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
    if let last = t.last, let unit = units[last] {
        guard let n = Int(t.dropLast()), n >= 0, n <= (1 << 40) / unit else { return nil }
        return n * unit
    }
    guard let n = Int(t), n >= 0 else { return nil }
    return n
}

/// The largest exact unit: 65536 -> "64K".
func formatByteSize(_ v: Int) -> String {
    for (unit, size) in [("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where v > 0 && v % size == 0 {
        return "\(v / size)\(unit)"
    }
    return String(v)
}

/// "X,Y" with finite numbers.
func parsePair(_ s: String) -> (x: Double, y: Double)? {
    let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
    guard parts.count == 2, let x = parseNumber(parts[0]), let y = parseNumber(parts[1]) else { return nil }
    return (x, y)
}

/// Shortest form that reads back to the same value ("60", "0.2", "233.333").
func formatNumber(_ v: Double) -> String {
    v.plainText
}

extension StringProtocol {
    /// Drops spaces, tabs and CRs at both ends, by Unicode scalar: as `Character`s, a
    /// space followed by a combining mark is one cluster and would not be dropped, and the
    /// same value would read differently after `check-config` wrote it back as `key = value`.
    package func trimmingSpaces() -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
