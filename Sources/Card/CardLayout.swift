import Color
import Glibc  // libm only: sin, cos

/// One dot of the static layout (points, radians).
package struct Dot: Sendable, Equatable {
    package var row: Int
    /// Index along the row's candidates: angle = k * step.
    package var k: Int
    package var angle: Double
    package var centerX: Double
    package var centerY: Double
    /// Diameter, points.
    package var size: Double
    /// Clockwise on screen; the dot's square, gradient and arrow turn by this.
    package var rotation: Double
}

/// The dot layout of docs/CARD.md, "The dots", computed once per geometry.
package struct CardLayout: Sendable, Equatable {
    package static let rows = 7
    package let geometry: CardGeometry
    package let dots: [Dot]
    /// Candidates per row before the cull: 12 (i + 1).
    package let candidatesPerRow: [Int]

    package init(geometry: CardGeometry) {
        self.geometry = geometry
        var dots = [Dot]()
        var candidates = [Int]()
        for i in 0..<CardLayout.rows {
            let size = CardLayout.size(row: i)
            let radius = CardLayout.radius(row: i)
            let step = Double.pi / Double(6 * (i + 1))
            var count = 0
            var k = 0
            while Double(k) * step < 2 * Double.pi {
                let angle = Double(k) * step
                let dot = Dot(
                    row: i, k: k, angle: angle,
                    centerX: radius * sin(angle) + geometry.originX,
                    centerY: radius * cos(angle) + geometry.originY,
                    size: size, rotation: Double.pi - angle)
                if CardLayout.overlapsCard(dot, geometry) { dots.append(dot) }
                count += 1
                k += 1
            }
            candidates.append(count)
        }
        self.dots = dots
        self.candidatesPerRow = candidates
    }

    /// Diameter of row i's dots: 13 * mapRange(|i - 3|, 0, 6, 1.0, 0.1) points.
    package static func size(row i: Int) -> Double {
        13 * mapRange(Double(abs(i - 3)), 0, 6, 1.0, 0.1)
    }

    /// Radius of row i: 40 + i * mapRange(i, 0, 6, 26, 22) points.
    package static func radius(row i: Int) -> Double {
        40 + Double(i) * mapRange(Double(i), 0, 6, 26, 22)
    }

    /// Half the side of the axis-aligned bounding box of a `size` square turned by `rotation`.
    package static func boundingHalfExtent(size: Double, rotation: Double) -> Double {
        size / 2 * (abs(cos(rotation)) + abs(sin(rotation)))
    }

    /// Keep a dot only if its rotated square's bounding box overlaps the card with positive area.
    static func overlapsCard(_ dot: Dot, _ g: CardGeometry) -> Bool {
        let h = boundingHalfExtent(size: dot.size, rotation: dot.rotation)
        return dot.centerX - h < g.width && dot.centerX + h > 0
            && dot.centerY - h < g.height && dot.centerY + h > 0
    }

    /// The dots' centers, split for the color engine.
    package var centersX: [Double] { dots.map(\.centerX) }
    package var centersY: [Double] { dots.map(\.centerY) }
}
