/// Keeps knocks out of the gravity low-pass (`GyroFusion`): a knock on the case is a
/// specific force far from gravity for a few readings, then its rebound, together far
/// shorter than any motion of a hand. A part that clips at its full scale (+-2 g is common)
/// reads the knock and the rebound unequally, so what they add to the low-pass does not
/// cancel and the up direction is pushed off for seconds.
///
/// While the specific force (in the low-pass's frame) is more than `threshold` (m/s^2)
/// from the filtered gravity, and more than `spread` times the recent motion's RMS
/// deviation, its readings are held back. An excursion that ends within
/// `longest` seconds was a knock: the filter is given its own output for those readings
/// (it is told time passed, not what the knock read). One that lasts longer is motion:
/// the held readings are given to the filter as they came, late by at most `longest`
/// (nothing is thrown away, so a hand's or a vehicle's acceleration, which averages out,
/// still does). Pure; allocation-free.
package struct KnockWindow: Sendable {
    package static let capacity = 16
    package let threshold: Double
    package let longest: Double
    private var held = InlineArray<16, Vector3>(repeating: .zero)  // capacity
    private var heldDt = InlineArray<16, Double>(repeating: 0)
    private var count = 0
    private var since = 0.0
    /// True from an excursion found to be motion until the specific force is back near
    /// gravity.
    private var passing = false
    /// (m/s^2)^2: the mean square deviation of the readings given to the filter, over
    /// `motionTime`.
    private var motion = 0.0
    package static let motionTime = 1.0
    /// An excursion is one only beyond `spread` times the root of `motion` too: in fast
    /// motion the specific force leaves gravity all the time, and what is held back of it
    /// would no longer average out.
    package static let spread = 5.0

    package init(threshold: Double, longest: Double) {
        self.threshold = threshold
        self.longest = longest
    }

    /// True while an excursion's readings are held back.
    package var isHolding: Bool { count > 0 }

    /// Gives `x`, `dt` seconds after the previous reading at `t`, to `filter`, or holds it
    /// back. Returns false when it was held (the filter did not move).
    package mutating func feed(_ x: Vector3, dt: Double, at t: Double, into filter: inout GravityLowPass) -> Bool {
        let deviation = filter.hasOutput ? (x - filter.output).length : 0
        let away = deviation > max(threshold, Self.spread * motion.squareRoot())
        if away, !passing {
            if count == 0 { since = t }
            if t - since <= longest, count < Self.capacity {
                held[count] = x
                heldDt[count] = dt
                count += 1
                return false
            }
            // Motion, not a knock: everything as it came, and the rest of it.
            for i in 0..<count { _ = filter.update(held[i], dt: heldDt[i]) }
            passing = true
        } else if !away {
            passing = false
            // A knock and its rebound: the time they took, not what they read.
            for i in 0..<count { _ = filter.update(filter.output, dt: heldDt[i]) }
        }
        count = 0
        motion += (deviation * deviation - motion) * min(1, dt / Self.motionTime)
        _ = filter.update(x, dt: dt)
        return true
    }

    /// Forgets a held excursion.
    package mutating func reset() {
        count = 0
        passing = false
    }
}
