import Motion

/// One frame of a replay: its number (from 0), its time on the trace's clock and the
/// focal point to draw.
package struct ReplayFrame: Sendable, Equatable {
    package var index: Int
    /// Seconds, on the trace's clock.
    package var t: Double
    /// Points.
    package var focal: FocalPoint
}

/// The frames a trace describes (pure: `shimmerd replay`).
///
/// By default (`Times.fps`) the timeline runs from the first to the last record that has
/// a time, `t0 ... t1`; frame k is at `t0 + k / fps`, so there are
/// `floor((t1 - t0) * fps) + 1` frames (a 5 s trace at 60 fps: 301): a video needs a
/// constant rate. `Times.recorded` draws at the recorded `frame` records' times instead:
/// the daemon's own frames, one for one.
///
/// - `.samples` (the default): the trace's readings and the mapper's targets of its
///   `sample` records go through the daemon's own `FocalDrawing`, in file order, the
///   recorded frames (published or `dropped`: the daemon drew both) moving the spring on as
///   the daemon's did: a replay at the recorded
///   times draws what the daemon drew. It works for any trace that has `sample` records
///   (the spec's), at any `fps`.
/// - `.frames`: the focal points of the recorded `frame` records, each held until the
///   next: what the daemon actually drew, resampled to the constant rate.
/// Before the first sample or frame the card is at rest at `origin`.
package enum ReplayTimeline {
    package enum Source: String, Sendable, CaseIterable {
        case samples, frames
    }

    /// When the frames are: at a constant rate, or at the recorded frames' times.
    package enum Times: Sendable, Equatable {
        case fps(Double)
        case recorded
    }

    /// The most frames a replay renders: an hour at 60 fps (4.5 GB of PNG at the default
    /// size, 282 GB raw). A longer span is refused before anything is allocated.
    package static let maximumFrames = 216_000

    /// `floor((t1 - t0) * fps) + 1`, with a nanosecond of slack so that 5 s at 60 fps is
    /// 301 frames, not 300 after rounding.
    package static func frameCount(span: ClosedRange<Double>, fps: Double) -> Int {
        Int(((span.upperBound - span.lowerBound) * fps + 1e-9).rounded(.down)) + 1
    }

    /// The times frames are drawn at.
    package static func times(_ trace: TraceContents, _ times: Times) -> [Double] {
        switch times {
        case .recorded:
            return trace.frames.map(\.t)
        case .fps(let fps):
            guard let span = trace.timeSpan, fps > 0 else { return [] }
            return (0..<frameCount(span: span, fps: fps)).map { span.lowerBound + Double($0) / fps }
        }
    }

    package static func frames(_ trace: TraceContents, fps: Double, origin: FocalPoint, source: Source) -> [ReplayFrame]
    {
        frames(trace, at: .fps(fps), origin: origin, source: source)
    }

    package static func frames(_ trace: TraceContents, at timing: Times, origin: FocalPoint, source: Source)
        -> [ReplayFrame]
    {
        let times = times(trace, timing)
        var out: [ReplayFrame] = []
        out.reserveCapacity(times.count)
        // The recording's frame rate sets how far ahead of its reading a target takes over.
        var drawing = FocalDrawing(at: origin, frameInterval: 1 / max(trace.header?.sink?.fps ?? 60, 1))
        var held = origin
        var next = 0
        for (k, t) in times.enumerated() {
            // Records in file order up to the first one later than t: a reading the daemon
            // took after a later frame comes after that frame's record.
            while next < trace.entries.count {
                if let rt = trace.entries[next].t {
                    guard rt <= t else { break }
                    take(trace.entries[next], source: source, origin: origin, drawing: &drawing, held: &held)
                }
                next += 1
            }
            out.append(ReplayFrame(index: k, t: t, focal: source == .samples ? drawing.point(at: t) : held))
        }
        return out
    }

    private static func take(
        _ entry: TraceEntry, source: Source, origin: FocalPoint, drawing: inout FocalDrawing,
        held: inout FocalPoint
    ) {
        switch (source, entry) {
        case (.samples, .recapture(let r)):
            drawing.retarget(origin, from: r.t)  // the daemon eases home while the baseline is awaited
        case (.samples, .sample(let s)):
            drawing.reading(at: s.t, target: s.focal.count == 2 ? FocalPoint(x: s.focal[0], y: s.focal[1]) : nil)
        case (.samples, .reading(let r)):
            drawing.reading(at: r.t, target: nil)
        case (.samples, .frame(let f)):
            _ = drawing.draw(at: f.t)
        case (.samples, .dropped(let d)):
            _ = drawing.draw(at: d.t)  // the daemon drew it, the sink did not take it: the spring moved on
        case (.frames, .frame(let f)) where f.focal.count == 2:
            held = FocalPoint(x: f.focal[0], y: f.focal[1])
        default:
            break
        }
    }
}
