/// docs/CARD.md, "From tilt to focal point": `x = O.x + mapRange(dRoll, -rollRange,
/// rollRange, -maxOffset, maxOffset)`, `y = O.y + mapRange(dPitch, -pitchRange,
/// pitchRange, -maxOffset, maxOffset)`, each offset clamped to +-maxOffset when `clamp`.
package struct FocalMapper: Hashable, Sendable {
    /// The origin focal point O, points (default bottom-centre of the card).
    package var origin: FocalPoint
    /// `Mapper.roll_range`, radians giving the full offset.
    package var rollRangeRadians: Double
    /// `Mapper.pitch_range`, radians.
    package var pitchRangeRadians: Double
    /// `Mapper.max_offset`, points.
    package var maxOffsetPoints: Double
    /// `Mapper.clamp`.
    package var clamp: Bool

    /// The defaults of `Mapper.roll_range`, `Mapper.pitch_range` and `Mapper.max_offset`.
    package static let defaultRollRangeRadians = 0.2
    package static let defaultPitchRangeRadians = 0.1
    package static let defaultMaxOffsetPoints = 100.0

    package init(
        origin: FocalPoint, rollRangeRadians: Double = defaultRollRangeRadians,
        pitchRangeRadians: Double = defaultPitchRangeRadians, maxOffsetPoints: Double = defaultMaxOffsetPoints,
        clamp: Bool = true
    ) {
        self.origin = origin
        self.rollRangeRadians = rollRangeRadians
        self.pitchRangeRadians = pitchRangeRadians
        self.maxOffsetPoints = maxOffsetPoints
        self.clamp = clamp
    }

    /// The scene's default card (350 x 233.333 pt): O = (175, 233.333).
    package static func defaultCard(width: Double = FocalPoint.cardWidth) -> FocalMapper {
        FocalMapper(origin: .cardOrigin(width: width, height: FocalPoint.cardHeight(width: width)))
    }

    private func offset(_ v: Double, range: Double) -> Double {
        let o = (v + range) * (2 * maxOffsetPoints) / (2 * range) - maxOffsetPoints
        return clamp ? min(max(o, -maxOffsetPoints), maxOffsetPoints) : o
    }

    package func focalPoint(for tilt: Tilt) -> FocalPoint {
        FocalPoint(
            x: origin.x + offset(tilt.dRollRadians, range: rollRangeRadians),
            y: origin.y + offset(tilt.dPitchRadians, range: pitchRangeRadians))
    }
}
