import FoundationEssentials
import Testing
@testable import Tracing

func decode<R: Decodable>(_ type: R.Type, _ line: [UInt8]) throws -> R {
    try JSONDecoder().decode(R.self, from: Data(line))
}

let awkwardNumbers: [Double] = [0, -0.0, 1, -1, 175, 233.33333333333334, 0.1, 1e-7, -3.0e-12, 123456789.123, 1e15, 2.5e300,
                                Double.leastNonzeroMagnitude, -9.80665, 0.019154 * 504]

@Test func handWrittenRecordsDecodeToTheSameValues() throws {
    for v in awkwardNumbers {
        let sample = TraceRecord.Sample(t: v, seq: 42, accel: [v, -v, 9.81], dpitch: v, droll: -v, focal: [175 + v, v])
        let got = try decode(TraceRecord.Sample.self, TraceRecord.line(sample))
        #expect(got == sample)
        #expect(got.dpitch.bitPattern == sample.dpitch.bitPattern && got.droll.bitPattern == sample.droll.bitPattern)
        let frame = TraceRecord.Frame(t: v, frame: 7, focal: [v, 1], dots: 175, pixels: 56594, published: v + 1)
        #expect(try decode(TraceRecord.Frame.self, TraceRecord.line(frame)) == frame)
        let baseline = TraceRecord.Baseline(t: v, up: [0, 0.9659258262890685, v])
        #expect(try decode(TraceRecord.Baseline.self, TraceRecord.line(baseline)) == baseline)
        let reading = TraceRecord.Reading(t: v, accel: [v, 2, 3], use: "rejected", reason: "magnitude \"0\"\n\u{1}")
        #expect(try decode(TraceRecord.Reading.self, TraceRecord.line(reading)) == reading)
        let gyro = TraceRecord.Gyro(t: v, anglvel: [v, -v, 0.0174533])
        #expect(try decode(TraceRecord.Gyro.self, TraceRecord.line(gyro)) == gyro)
    }
}

@Test func handWrittenEqualsCodableForOrdinaryValues() {
    let sample = TraceRecord.Sample(t: 1.25, seq: 3, accel: [0.5, -9.75, 1], dpitch: 0.1, droll: -0.2, focal: [175, 233.5])
    #expect(TraceRecord.line(sample) == TraceRecord.codableLine(sample))
    let frame = TraceRecord.Frame(t: 2, frame: 9, focal: [100.5, 3], dots: 12, pixels: 3000, published: 2.0001)
    #expect(TraceRecord.line(frame) == TraceRecord.codableLine(frame))
    let gyro = TraceRecord.Gyro(t: 0.01, anglvel: [0.5, -0.25, 0])
    #expect(TraceRecord.line(gyro) == TraceRecord.codableLine(gyro))
}
