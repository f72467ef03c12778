import Motion

/// One frame of a replay: its number (from 0), its time on the trace's clock and the
/// focal point to draw.
package struct ReplayFrame: Sendable, Equatable {
    package var index: Int
    /// Seconds, on the trace's clock.
    package var t: Double
    /// Points.
    package var focal: FocalPoint

    package init(index: Int, t: Double, focal: FocalPoint) {
        self.index = index
        self.t = t
        self.focal = focal
    }
}

/// The frames a trace describes, at a constant frame rate (pure: `shimmerd replay`).
///
/// The timeline runs from the first to the last record that has a time, `t0 ... t1`;
/// frame k is at `t0 + k / fps`, so there are `floor((t1 - t0) * fps) + 1` frames
/// (a 5 s trace at 60 fps: 301). A video needs a constant rate; the daemon's own frames
/// are paced by the loop and skipped while the picture is still, so they cannot be
/// copied one for one.
///
/// - `.samples` (the default): the samples' focal points (the mapper's targets) go
///   through the daemon's own `FocalSmoother`, exactly as the loop uses it: before each
///   frame the target becomes the newest sample at or before the frame's time, then the
///   smoother steps by the frame interval. It works for any trace that has `sample`
///   records (the spec's), and renders at any `fps`.
/// - `.frames`: the focal points of the recorded `frame` records, each held until the
///   next: what the daemon actually drew, resampled to the constant rate.
/// Before the first sample or frame the card is at rest at `origin`.
package enum ReplayTimeline {
    package enum Source: String, Sendable, CaseIterable {
        case samples, frames
    }

    /// The most frames a replay renders: an hour at 60 fps (4.5 GB of PNG at the default
    /// size, 282 GB raw). A longer span is refused before anything is allocated.
    package static let maximumFrames = 216_000

    /// `floor((t1 - t0) * fps) + 1`, with a nanosecond of slack so that 5 s at 60 fps is
    /// 301 frames, not 300 after rounding.
    package static func frameCount(span: ClosedRange<Double>, fps: Double) -> Int {
        Int(((span.upperBound - span.lowerBound) * fps + 1e-9).rounded(.down)) + 1
    }

    package static func frames(_ trace: TraceContents, fps: Double, origin: FocalPoint, source: Source) -> [ReplayFrame] {
        guard let span = trace.timeSpan, fps > 0 else { return [] }
        let count = frameCount(span: span, fps: fps)
        let points: [(t: Double, focal: FocalPoint)] = switch source {
        case .samples: trace.samples.compactMap { s in s.focal.count == 2 ? (s.t, FocalPoint(x: s.focal[0], y: s.focal[1])) : nil }
        case .frames: trace.frames.compactMap { f in f.focal.count == 2 ? (f.t, FocalPoint(x: f.focal[0], y: f.focal[1])) : nil }
        }
        var smoother = FocalSmoother(at: origin)   // the daemon's, with its defaults
        var held = origin
        var next = 0
        var previousT = span.lowerBound
        var out: [ReplayFrame] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            let t = span.lowerBound + Double(k) / fps
            while next < points.count, points[next].t <= t {
                held = points[next].focal
                next += 1
            }
            let focal: FocalPoint
            switch source {
            case .samples:
                smoother.target = held
                smoother.step(t - previousT)
                focal = smoother.position
            case .frames:
                focal = held
            }
            previousT = t
            out.append(ReplayFrame(index: k, t: t, focal: focal))
        }
        return out
    }
}
