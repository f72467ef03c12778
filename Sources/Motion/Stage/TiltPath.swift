/// A scripted tilt path: keyframes of (time, dRoll, dPitch) offsets from a base pose,
/// interpolated linearly and looped. Used by `shimmerd demo`, which needs no hardware, and by the benchmarks.
package struct TiltPath: Sendable {
    package struct Keyframe: Sendable {
        package var t: Double
        package var rollRadians: Double
        package var pitchRadians: Double
        package init(t: Double, rollRadians: Double, pitchRadians: Double) {
            self.t = t
            self.rollRadians = rollRadians
            self.pitchRadians = pitchRadians
        }
    }

    /// Screen pitch of the base pose, radians from vertical (0 upright, pi/2 flat).
    package var basePitchRadians: Double
    package var keyframes: [Keyframe]

    /// A laptop screen leaned back 15 degrees, rolled and pitched through the mapper's
    /// whole range and back in 8 seconds.
    package static let demo = TiltPath(
        basePitchRadians: 15 * Double.pi / 180,
        keyframes: [
            Keyframe(t: 0, rollRadians: 0, pitchRadians: 0),
            Keyframe(t: 1, rollRadians: 0, pitchRadians: 0),
            Keyframe(t: 2.5, rollRadians: 0.2, pitchRadians: 0),
            Keyframe(t: 4, rollRadians: -0.2, pitchRadians: 0.1),
            Keyframe(t: 5.5, rollRadians: 0, pitchRadians: -0.1),
            Keyframe(t: 7, rollRadians: 0.1, pitchRadians: 0.05),
            Keyframe(t: 8, rollRadians: 0, pitchRadians: 0),
        ])

    package init(basePitchRadians: Double, keyframes: [Keyframe]) {
        self.basePitchRadians = basePitchRadians
        self.keyframes = keyframes.isEmpty ? [Keyframe(t: 0, rollRadians: 0, pitchRadians: 0)] : keyframes
    }

    /// Seconds from the start during which the path holds its first pose (0 when it moves
    /// at once): the demo's device lies still while its baseline is captured.
    package var stillUntil: Double {
        let first = keyframes[0]
        var still = first.t
        for k in keyframes.dropFirst() {
            guard k.rollRadians == first.rollRadians && k.pitchRadians == first.pitchRadians else { break }
            still = k.t
        }
        return still
    }

    /// (roll, pitch) offsets at time t, looping over the path's duration.
    package func offsets(at t: Double) -> (roll: Double, pitch: Double) {
        let duration = keyframes.last!.t
        let tt = duration > 0 ? t.truncatingRemainder(dividingBy: duration) : 0
        var previous = keyframes[0]
        for k in keyframes.dropFirst() {
            if tt <= k.t {
                let f = k.t > previous.t ? (tt - previous.t) / (k.t - previous.t) : 1
                return (
                    previous.rollRadians + f * (k.rollRadians - previous.rollRadians),
                    previous.pitchRadians + f * (k.pitchRadians - previous.pitchRadians)
                )
            }
            previous = k
        }
        return (previous.rollRadians, previous.pitchRadians)
    }

    /// The reading (direction of gravity, m/s^2, device frame; docs/TILT.md, "Axes and
    /// signs") at time t: roll turns the device clockwise in its own plane, pitch brings the top
    /// edge toward the viewer; the base pose is upright leaned back by
    /// `basePitchRadians`.
    package func acceleration(at t: Double) -> Vector3 {
        let g = AttitudeConfiguration.standardGravity
        let (roll, pitch) = offsets(at: t)
        // Upright reading (0, -g, 0); leaning the screen back by p gives
        // (0, -g cos p, -g sin p); the top edge toward the viewer reduces p.
        let p = basePitchRadians - pitch
        let upright = Vector3(0, -g * cos(p), -g * sin(p))
        // Clockwise in-plane turn by roll: x' = x cos r - y sin r, y' = x sin r + y cos r.
        return Vector3(
            upright.x * cos(roll) - upright.y * sin(roll),
            upright.x * sin(roll) + upright.y * cos(roll), upright.z)
    }
}
