/// How `AttitudeEstimator` smooths the up direction (attitude.md section 8).
package enum AttitudeFilter: Hashable, Sendable {
    /// `Attitude.filter = none`: samples pass through (what the test vectors use).
    case none
    case oneEuro(OneEuroParameters)
}

package struct AttitudeConfiguration: Hashable, Sendable {
    /// `Attitude.baseline_samples`.
    package var baselineSamples: Int
    package var filter: AttitudeFilter

    /// Standard gravity, m/s^2; the baseline accepts [0.5 g, 1.5 g] (section 4).
    package static let standardGravity = 9.80665

    package static let defaults = AttitudeConfiguration(baselineSamples: 10, filter: .oneEuro(.defaults))

    package init(baselineSamples: Int, filter: AttitudeFilter) {
        self.baselineSamples = max(1, baselineSamples)
        self.filter = filter
    }
}

/// The result of one sample.
package enum AttitudeStep: Hashable, Sendable {
    /// Not usable at all (see `SampleRejection`); nothing changed.
    case rejected(SampleRejection)
    /// Still collecting the baseline: `have` of `need` samples. `usedForBaseline` is
    /// false for a sample outside [0.5 g, 1.5 g].
    case collectingBaseline(have: Int, need: Int, usedForBaseline: Bool)
    /// A tilt against the baseline; `newBaseline` is set on the sample that completed it.
    case tilt(Tilt, newBaseline: TiltFrame?)
}

/// Baseline capture, filtering and tilt (attitude.md sections 4 to 8). Pure: feed it
/// accelerations in m/s^2 (device frame) and the time in seconds.
package struct AttitudeEstimator: Sendable {
    package let configuration: AttitudeConfiguration
    package private(set) var frame: TiltFrame?
    private var baselineSum = Vector3.zero
    private var baselineCount = 0
    private var filters: [OneEuroFilter]

    package init(_ configuration: AttitudeConfiguration) {
        self.configuration = configuration
        self.filters = Self.makeFilters(configuration.filter)
    }

    private static func makeFilters(_ f: AttitudeFilter) -> [OneEuroFilter] {
        switch f {
        case .none: []
        case .oneEuro(let p): [OneEuroFilter(p), OneEuroFilter(p), OneEuroFilter(p)]
        }
    }

    /// Starts a new baseline: after start, after the sensor reappears, on SIGUSR1.
    package mutating func recapture() {
        frame = nil
        baselineSum = .zero
        baselineCount = 0
        filters = Self.makeFilters(configuration.filter)
    }

    package var isCapturingBaseline: Bool { frame == nil }

    package mutating func update(acceleration a: Vector3, at t: Double) -> AttitudeStep {
        if let r = SampleRejection.check(a) { return .rejected(r) }
        guard let rawUp = TiltFrame.upDirection(of: a) else { return .rejected(.zeroVector) }
        let up = smooth(rawUp, at: t)

        guard let frame else {
            let g = AttitudeConfiguration.standardGravity
            let m = a.length
            let usable = m >= 0.5 * g && m <= 1.5 * g
            if usable {
                baselineSum = baselineSum + rawUp
                baselineCount += 1
            }
            guard baselineCount >= configuration.baselineSamples,
                  let newFrame = TiltFrame(baselineUp: baselineSum) else {
                return .collectingBaseline(have: baselineCount, need: configuration.baselineSamples,
                                           usedForBaseline: usable)
            }
            self.frame = newFrame
            return .tilt(newFrame.tilt(up: up), newBaseline: newFrame)
        }
        return .tilt(frame.tilt(up: up), newBaseline: nil)
    }

    private mutating func smooth(_ u: Vector3, at t: Double) -> Vector3 {
        guard filters.count == 3 else { return u }
        let f = Vector3(filters[0].filter(u.x, at: t), filters[1].filter(u.y, at: t), filters[2].filter(u.z, at: t))
        return f.normalized ?? u
    }
}
