import Foundation
import LoopTestSupport
import Runtime
import Sensors
import TestSupport
import Testing
import Tracing

/// Still means no frames, gyroscope or not: the daemon with a trace as its sensor (on
/// trace time), lying flat for 26 s with 0.02 m/s^2 of accelerometer noise (a 12-bit part,
/// quantised) and a noisy gyroscope (0.3 or 0.6 deg/s RMS an axis, quantised, with a
/// 0.6 deg/s zero-rate offset). The gyroscope's rate noise walks the fused direction by
/// about 0.1 degree over seconds; the card must not follow it.
struct DaemonRestTests {
    static let accelLSB = 0.009582  // m/s^2 per count, +-2 g 12-bit
    static let gyroLSB = 0.0010653  // rad/s per count, +-2000 deg/s 16-bit

    /// Normal deviates from a seed (SplitMix64, Box-Muller): the same trace every run.
    struct Noise {
        var state: UInt64

        mutating func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 0.5) / Double(1 << 53)
        }

        mutating func gauss(_ sigma: Double) -> Double {
            sigma * (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        }
    }

    /// 26 s at 100 Hz: a `gyro` record, then a `reading`, every 10 ms.
    static func stillTrace(seed: UInt64, rateNoiseDegrees: Double) -> String {
        var noise = Noise(state: seed)
        let direction = [0.6, -0.5, 0.62]
        let n = direction.map { $0 * $0 }.reduce(0, +).squareRoot()
        let offset = direction.map { 0.6 * degree * $0 / n }
        var text = ""
        for i in 0...2600 {
            let t = Double(i) / 100
            let w = (0..<3).map { k in
                ((offset[k] + noise.gauss(rateNoiseDegrees * degree)) / gyroLSB).rounded() * gyroLSB
            }
            let a = [0.0, 0, -standardGravity].map { g in
                ((g / accelLSB) + noise.gauss(0.02 / accelLSB)).rounded() * accelLSB
            }
            text += "{\"type\": \"gyro\", \"t\": \(t), \"anglvel\": [\(w[0]), \(w[1]), \(w[2])]}\n"
            text +=
                "{\"type\": \"reading\", \"t\": \(t), \"accel\": [\(a[0]), \(a[1]), \(a[2])], \"use\": \"sensor\"}\n"
        }
        return text
    }

    static let cases: [(seed: UInt64, gyro: GyroSelector, rateNoise: Double)] = [1, 2, 3].flatMap { seed in
        [(seed, GyroSelector.auto, 0.3), (seed, .auto, 0.6), (seed, .none, 0.3)]
    }

    @Test(arguments: cases)
    func aStillDeviceDrawsAtMostTwoFramesIn26SecondsAndNeverSteps(
        _ c: (seed: UInt64, gyro: GyroSelector, rateNoise: Double)
    ) throws {
        let scratch = ScratchDirectory("daemon-rest")
        defer { scratch.remove() }
        let source = try scratch.write(Self.stillTrace(seed: c.seed, rateNoiseDegrees: c.rateNoise), to: "still.jsonl")
        let out = scratch.file("out.jsonl")
        var config = Configuration()
        config.sensor.device = .trace(source)
        config.sensor.traceSpeed = nil
        config.sensor.gyro = c.gyro
        config.sink.type = .null
        config.trace.path = out
        let d = DaemonHarness(config, configured: true)
        try d.run(for: nil)
        let entries = try TraceReader.read(path: out).entries
        if c.gyro == .auto {
            #expect(entries.filter { if case .gyro = $0 { true } else { false } }.count > 2000)
        }
        let frames = entries.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        // After the first 4 s (the baseline, the rest gate settling): the frames, and how
        // far the drawn point moved from where it was at 4 s.
        let at4 = try #require(frames.last { $0.t < 4 }).focal
        let late = frames.filter { $0.t >= 4 }
        let moved = late.map { hypot($0.focal[0] - at4[0], $0.focal[1] - at4[1]) }.max() ?? 0
        #expect(late.count <= 2, "\(late.count) frames in 22 s of rest")
        #expect(moved < 0.5, "the drawn point stepped \(moved) pt while at rest")
    }
}
