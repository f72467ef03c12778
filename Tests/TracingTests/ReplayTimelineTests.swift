import Motion
import Testing
@testable import Tracing

private func sample(_ t: Double, _ x: Double, _ y: Double, seq: Int = 0) -> TraceEntry {
    .sample(TraceRecord.Sample(t: t, seq: seq, accel: [0, -9.8, 0], dpitch: 0, droll: 0, focal: [x, y]))
}

private let origin = FocalPoint(x: 175, y: 233)

@Test(arguments: [(5.0, 60.0, 301), (5.0, 15.0, 76), (0.0, 60.0, 1), (1.0 / 3.0, 30.0, 11), (2.999, 10.0, 30)])
func frameCountIsTheSpanTimesFpsPlusOne(_ span: Double, _ fps: Double, _ count: Int) {
    #expect(ReplayTimeline.frameCount(span: 0...span, fps: fps) == count)
    let trace = TraceContents(entries: [sample(10, 1, 1), sample(10 + span, 2, 2)])
    #expect(ReplayTimeline.frames(trace, fps: fps, origin: origin, source: .samples).count == count)
}

@Test func framesAreEvenlySpacedOnTheTracesClock() {
    let trace = TraceContents(entries: [sample(2, 175, 233), sample(7, 175, 233)])
    let frames = ReplayTimeline.frames(trace, fps: 60, origin: origin, source: .samples)
    #expect(frames.first?.t == 2 && frames.last?.t == 7 && frames.count == 301)
    #expect(frames.enumerated().allSatisfy { $0.element.index == $0.offset && $0.element.t == 2 + Double($0.offset) / 60 })
}

@Test func samplesGoThroughTheDaemonsSmoother() {
    // A step from the origin to +50 pt at t = 1: the frames follow the same critically
    // damped spring the daemon's loop uses, stepped by the frame interval.
    let trace = TraceContents(entries: [sample(0, 175, 233), sample(1, 225, 233), sample(3, 225, 233)])
    let frames = ReplayTimeline.frames(trace, fps: 50, origin: origin, source: .samples)
    var smoother = FocalSmoother(at: origin)
    var previous = 0.0
    for f in frames {
        smoother.target = f.t >= 1 ? FocalPoint(x: 225, y: 233) : FocalPoint(x: 175, y: 233)
        smoother.step(f.t - previous)
        previous = f.t
        #expect(f.focal == smoother.position)
    }
    // It moves toward the target without overshoot and arrives.
    let xs = frames.map(\.focal.x)
    #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 <= $1 } && xs.allSatisfy { $0 <= 225 })
    #expect(frames[49].focal.x == 175 && frames[50].focal.x > 175 && frames.last?.focal.x == 225)
}

@Test func framesSourceHoldsTheRecordedFocalPoints() {
    let trace = TraceContents(entries: [
        .frame(TraceRecord.Frame(t: 0.5, frame: 1, focal: [100, 200], dots: 1, pixels: 1)),
        .frame(TraceRecord.Frame(t: 1.0, frame: 2, focal: [120, 210], dots: 1, pixels: 1)),
        sample(0, 1, 1),
    ])
    let frames = ReplayTimeline.frames(trace, fps: 4, origin: origin, source: .frames)
    #expect(frames.map(\.focal) == [origin, origin, FocalPoint(x: 100, y: 200), FocalPoint(x: 100, y: 200), FocalPoint(x: 120, y: 210)])
}

@Test func aTraceWithoutTimesHasNoFrames() {
    #expect(ReplayTimeline.frames(TraceContents(), fps: 60, origin: origin, source: .samples).isEmpty)
}
