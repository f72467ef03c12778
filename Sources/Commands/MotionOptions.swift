import Glibc
import Motion
import Sensors

/// The `[Sensor]`, `[Attitude]` and `[Mapper]` keys of spec/interfaces.md turned into
/// the Sensors and Motion settings, from `--config PATH` (INI) and `--set
/// Section.key=value`. Interim: replaced by the runtime's Configuration when it lands;
/// until then it reads only these three sections (other sections are left to their
/// owners) and rejects unknown keys in them with the file:line.
struct MotionOptions {
    var sensor = AccelerometerSettings()
    var attitude = AttitudeConfiguration.defaults
    var oneEuro = OneEuroParameters.defaults
    var filterOn = true
    var rollRange = 0.2
    var pitchRange = 0.1
    var maxOffset = 100.0
    var clamp = true
    var cardWidth = 350.0
    var cardHeight = 350.0 * 2 / 3

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    var mapper: FocalMapper {
        FocalMapper(origin: FocalPoint(x: cardWidth / 2, y: cardHeight), rollRangeRadians: rollRange,
                    pitchRangeRadians: pitchRange, maxOffsetPoints: maxOffset, clamp: clamp)
    }

    var attitudeConfiguration: AttitudeConfiguration {
        AttitudeConfiguration(baselineSamples: attitude.baselineSamples, filter: filterOn ? .oneEuro(oneEuro) : .none)
    }

    mutating func apply(section: String, key: String, value: String, at place: String) throws(Failure) {
        let v = value.trimmingCharacters()
        func number(min lo: Double = -.infinity) throws(Failure) -> Double {
            guard case .success(let d) = SysfsNumber.parse(v, limit: 1e9), d >= lo else {
                throw Failure(description: "\(place): \(section).\(key) = \"\(v)\": expected a number >= \(lo)")
            }
            return d
        }
        func bool() throws(Failure) -> Bool {
            switch v.lowercased() {
            case "true", "yes", "1", "on": return true
            case "false", "no", "0", "off": return false
            default: throw Failure(description: "\(place): \(section).\(key) = \"\(v)\": expected true or false")
            }
        }
        switch (section.lowercased(), key.lowercased()) {
        case ("sensor", "device"):
            switch DeviceSelector.parse(v) {
            case .success(let s): sensor.device = s
            case .failure(let e): throw Failure(description: "\(place): \(e)")
            }
        case ("sensor", "mode"):
            guard let m = SensorMode(rawValue: v) else {
                throw Failure(description: "\(place): Sensor.mode = \"\(v)\": expected auto, poll or buffer")
            }
            sensor.mode = m
        case ("sensor", "rate"): sensor.rateHz = try number(min: 0.1)
        case ("sensor", "mount_matrix"):
            if v == "auto" { sensor.mountMatrix = nil } else {
                switch MountMatrix.parse(v) {
                case .success(let m): sensor.mountMatrix = m
                case .failure(let e): throw Failure(description: "\(place): Sensor.mount_matrix = \"\(v)\": \(e)")
                }
            }
        case ("sensor", "invert"): sensor.invert = try bool()
        case ("attitude", "baseline_samples"): attitude.baselineSamples = Int(try number(min: 1))
        case ("attitude", "filter"):
            switch v {
            case "one-euro": filterOn = true
            case "none": filterOn = false
            default: throw Failure(description: "\(place): Attitude.filter = \"\(v)\": expected one-euro or none")
            }
        case ("attitude", "min_cutoff"): oneEuro.minCutoff = try number(min: 0.0001)
        case ("attitude", "beta"): oneEuro.beta = try number(min: 0)
        case ("attitude", "d_cutoff"): oneEuro.dCutoff = try number(min: 0.0001)
        case ("mapper", "roll_range"): rollRange = try number(min: 0.0001)
        case ("mapper", "pitch_range"): pitchRange = try number(min: 0.0001)
        case ("mapper", "max_offset"): maxOffset = try number(min: 0)
        case ("mapper", "clamp"): clamp = try bool()
        case ("card", "width"): cardWidth = try number(min: 1)
        case ("card", "height"): cardHeight = try number(min: 1)
        case ("sensor", _), ("attitude", _), ("mapper", _):
            throw Failure(description: "\(place): unknown key \(section).\(key)")
        default:
            return   // other sections belong to other subsystems
        }
    }

    /// `--set Section.key=value`.
    mutating func applySet(_ text: String) throws(Failure) {
        guard let eq = text.firstIndex(of: "="), let dot = text[..<eq].firstIndex(of: ".") else {
            throw Failure(description: "--set \(text): expected Section.key=value")
        }
        try apply(section: String(text[..<dot]), key: String(text[text.index(after: dot)..<eq]),
                  value: String(text[text.index(after: eq)...]), at: "--set")
    }

    /// Reads an INI file's Sensor, Attitude and Mapper keys.
    mutating func applyFile(_ path: String) throws(Failure) {
        guard let f = fopen(path, "r") else {
            throw Failure(description: "\(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var section = ""
        var lineNumber = 0
        var buf = [CChar](repeating: 0, count: 4096)
        while fgets(&buf, Int32(buf.count), f) != nil {
            lineNumber += 1
            let line = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingCharacters()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw Failure(description: "\(path):\(lineNumber): expected key = value")
            }
            try apply(section: section, key: String(line[..<eq]).trimmingCharacters(),
                      value: String(line[line.index(after: eq)...]), at: "\(path):\(lineNumber)")
        }
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(self[...].trimmingASCIIWhitespace())
    }
}
