/// One sample as the trace's `sample` record carries it (docs/TRACES.md, "Records").
package struct MotionSample: Hashable, Sendable {
    /// Seconds since the daemon started (monotonic).
    package var t: Double
    /// Counting from 0.
    package var seq: Int
    /// m/s^2, device frame, after scale and mount matrix.
    package var accel: Vector3
    package var tilt: Tilt
    /// The mapper's target, points.
    package var focal: FocalPoint
}
