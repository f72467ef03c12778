import Glibc
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
    #expect(
        frames.enumerated().allSatisfy { $0.element.index == $0.offset && $0.element.t == 2 + Double($0.offset) / 60 })
}

@Test func samplesGoThroughTheDaemonsSpring() {
    // A step from the origin to +50 pt with the reading at t = 1: the target takes over
    // one frame of the recording (1/30 s, the header-less default 1/60 s here) before it,
    // and the frames follow the daemon's critically damped spring from there.
    let trace = TraceContents(entries: [sample(0, 175, 233), sample(1, 225, 233), sample(3, 225, 233)])
    let frames = ReplayTimeline.frames(trace, fps: 50, origin: origin, source: .samples)
    let from = 1 - 1.0 / 60
    for f in frames {
        var smoother = FocalSmoother(at: origin)
        if f.t >= 1 {
            smoother.target = FocalPoint(x: 225, y: 233)
            smoother.step(f.t - from)
        }
        #expect(abs(f.focal.x - smoother.position.x) < 1e-9 && f.focal.y == 233)
    }
    // It moves toward the target without overshoot and arrives.
    let xs = frames.map(\.focal.x)
    #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 <= $1 } && xs.allSatisfy { $0 <= 225 })
    #expect(frames[49].focal.x == 175 && frames[50].focal.x > 175 && frames.last?.focal.x == 225)
}

/// A reading's record: a `sample` with its target, or a `reading` taken for the baseline.
private func readingEntry(_ t: Double, _ seq: Int, _ target: FocalPoint?) -> TraceEntry {
    guard let target else { return .reading(TraceRecord.Reading(t: t, accel: [0, 0, -9.8], use: "baseline")) }
    return .sample(
        TraceRecord.Sample(t: t, seq: seq, accel: [0, 0, -9.8], dpitch: 0, droll: 0, focal: [target.x, target.y]))
}

/// The daemon's frames, drawn again from the trace's readings and targets at the
/// recorded times, are the recorded frames: the recorded frames move the spring on as
/// the daemon's did, readings taken after a later frame come after it in the file.
@Test func atTheRecordedTimesTheSamplesGiveTheRecordedFrames() {
    var drawing = FocalDrawing(at: origin)
    var entries: [TraceEntry] = []
    var frame = 0
    for i in 0..<300 {
        let t = Double(i) * 0.01
        // A 1 Hz sway of 40 pt, read at 100 Hz, with a reading refused for the baseline
        // now and then; frames at 60 fps on their own timer between the readings.
        let target = i % 37 == 0 ? nil : FocalPoint(x: 175 + 40 * sin(2 * Double.pi * t), y: 233)
        drawing.reading(at: t, target: target)
        entries.append(readingEntry(t, i, target))
        let frameAt = Double(frame) / 60
        if frameAt <= t + 0.005 && frameAt > t - 0.005 {
            let p = drawing.draw(at: t + 0.004)
            entries.append(
                .frame(TraceRecord.Frame(t: t + 0.004, frame: UInt64(frame), focal: [p.x, p.y], dots: 1, pixels: 1)))
        } else {
            drawing.unchanged(at: t)  // a frame that changed no dot: not published, not recorded
        }
        while Double(frame) / 60 <= t + 0.005 { frame += 1 }
    }
    let trace = TraceContents(entries: entries)
    let replayed = ReplayTimeline.frames(trace, at: .recorded, origin: origin, source: .samples)
    #expect(replayed.count == trace.frames.count && replayed.count > 100)
    for (r, f) in zip(replayed, trace.frames) {
        #expect(r.t == f.t && r.focal.x == f.focal[0] && r.focal.y == f.focal[1])
    }
}

/// A recapture in the trace (the tablet-mode switch mid-fold): the daemon eases the card
/// home from it while the new baseline is awaited, and the replay does the same.
@Test func aRecaptureEasesHomeInTheReplayAsInTheDaemon() {
    var drawing = FocalDrawing(at: origin)
    var entries: [TraceEntry] = []
    for i in 0..<200 {
        let t = Double(i) * 0.01
        if i == 100 {
            drawing.retarget(origin, from: t)  // as MotionInterpreter does on a recapture
            entries.append(.recapture(TraceRecord.Recapture(t: t, reason: "tablet-mode switch")))
        }
        // Pinned far off until the switch, then readings for the baseline only.
        let target = i < 100 ? FocalPoint(x: 275, y: 133) : nil
        drawing.reading(at: t, target: target)
        entries.append(readingEntry(t, i, target))
        if i % 2 == 0 {
            let p = drawing.draw(at: t + 0.004)
            entries.append(
                .frame(TraceRecord.Frame(t: t + 0.004, frame: UInt64(i / 2), focal: [p.x, p.y], dots: 1, pixels: 1)))
        }
    }
    let trace = TraceContents(entries: entries)
    let replayed = ReplayTimeline.frames(trace, at: .recorded, origin: origin, source: .samples)
    #expect(replayed.count == trace.frames.count && replayed.last?.focal == origin)
    for (r, f) in zip(replayed, trace.frames) {
        #expect(r.t == f.t && r.focal.x == f.focal[0] && r.focal.y == f.focal[1])
    }
}

/// A frame the sink did not take (`dropped`) was still drawn: it moves the spring on
/// as a published frame does, so the replay's later frames match the daemon's.
@Test func aDroppedFrameMovesTheSpringOnAsAPublishedOneDoes() {
    var published: [TraceEntry] = [], withDrops: [TraceEntry] = []
    for i in 0..<60 {
        let t = Double(i) * 0.01
        // The target moves at the reading after the dropped frame at 0.174 s: it takes
        // over from that frame's time, not one lead (0.02 s) before its reading.
        let reading = readingEntry(t, i, FocalPoint(x: i < 18 ? 175 : 255, y: 233))
        published.append(reading)
        withDrops.append(reading)
        guard i % 2 == 1 else { continue }
        published.append(.frame(TraceRecord.Frame(t: t + 0.004, frame: UInt64(i), focal: [0, 0], dots: 1, pixels: 1)))
        withDrops.append(
            i % 4 == 1
                ? .dropped(TraceRecord.Dropped(t: t + 0.004, focal: [0, 0], reason: "no reader"))
                : .frame(TraceRecord.Frame(t: t + 0.004, frame: UInt64(i), focal: [0, 0], dots: 1, pixels: 1)))
    }
    let a = ReplayTimeline.frames(TraceContents(entries: published), fps: 60, origin: origin, source: .samples)
    let b = ReplayTimeline.frames(TraceContents(entries: withDrops), fps: 60, origin: origin, source: .samples)
    #expect(a.count > 30 && a == b && a.last!.focal.x > 175)
    // Read as no frame at all, the target would take over earlier.
    let ignored = withDrops.filter { if case .dropped = $0 { false } else { true } }
    #expect(ReplayTimeline.frames(TraceContents(entries: ignored), fps: 60, origin: origin, source: .samples) != a)
}

@Test func framesSourceHoldsTheRecordedFocalPoints() {
    let trace = TraceContents(entries: [
        .frame(TraceRecord.Frame(t: 0.5, frame: 1, focal: [100, 200], dots: 1, pixels: 1)),
        .frame(TraceRecord.Frame(t: 1.0, frame: 2, focal: [120, 210], dots: 1, pixels: 1)),
        sample(0, 1, 1),
    ])
    let frames = ReplayTimeline.frames(trace, fps: 4, origin: origin, source: .frames)
    #expect(
        frames.map(\.focal) == [
            origin, origin, FocalPoint(x: 100, y: 200), FocalPoint(x: 100, y: 200), FocalPoint(x: 120, y: 210),
        ])
}

@Test func aTraceWithoutTimesHasNoFrames() {
    #expect(ReplayTimeline.frames(TraceContents(), fps: 60, origin: origin, source: .samples).isEmpty)
}
