/// Decides that the device lies still: no sample has moved the focal point by more than
/// `threshold` points from a reference for `after` seconds. Pure; time is a parameter.
package struct StillnessDetector: Sendable {
    package let threshold: Double
    package let after: Double
    private var reference: FocalPoint?
    private var lastMove = -Double.infinity

    package init(threshold: Double = 0.5, after: Double = 2) {
        self.threshold = threshold
        self.after = after
    }

    package mutating func observe(_ focal: FocalPoint, at t: Double) {
        guard let r = reference, abs(focal.x - r.x) <= threshold, abs(focal.y - r.y) <= threshold else {
            reference = focal
            lastMove = t
            return
        }
    }

    /// Still once a sample has been seen and nothing moved for `after` seconds.
    package func isStill(at t: Double) -> Bool {
        reference != nil && t - lastMove >= after
    }
}
