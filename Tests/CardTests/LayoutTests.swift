import Foundation
import Testing

@testable import Card

/// An independent cull: the rotated square's four corners, their extremes, and the
/// overlap test written out, instead of the renderer's |cos| + |sin| half extent.
func expectedKeptPerRow(width: Double, height: Double, originX: Double, originY: Double) -> [Int] {
    (0..<7).map { i -> Int in
        let size = 13 * ((Double(abs(i - 3)) / 6) * (0.1 - 1.0) + 1.0)
        let radius = 40 + Double(i) * ((Double(i) / 6) * (22 - 26) + 26)
        let n = 12 * (i + 1)
        var kept = 0
        for k in 0..<n {
            let angle = Double(k) * Double.pi / Double(6 * (i + 1))
            let cx = radius * sin(angle) + originX, cy = radius * cos(angle) + originY
            let rot = Double.pi - angle
            var xs = [Double](), ys = [Double]()
            for (u, v) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                xs.append(cx + size * (u * cos(rot) - v * sin(rot)))
                ys.append(cy + size * (u * sin(rot) + v * cos(rot)))
            }
            let overlapW = min(xs.max()!, width) - max(xs.min()!, 0)
            let overlapH = min(ys.max()!, height) - max(ys.min()!, 0)
            if overlapW > 0 && overlapH > 0 { kept += 1 }
        }
        return kept
    }
}

/// docs/CARD.md's card: 350 x 233.333 pt, O = (175, 233.333).
let sceneCard = CardGeometry(width: 350, height: 350 * 2 / 3, originX: 175, originY: 350 * 2 / 3)!

func keptPerRow(_ layout: CardLayout) -> [Int] {
    (0..<7).map { row in layout.dots.filter { $0.row == row }.count }
}

@Test func candidatesPerRowAre12TimesRowPlusOne() {
    let layout = CardLayout(geometry: sceneCard)
    #expect(layout.candidatesPerRow == [12, 24, 36, 48, 60, 72, 84])
    #expect(layout.candidatesPerRow.reduce(0, +) == 336)
}

@Test func defaultCardKeeps175Dots() {
    let layout = CardLayout(geometry: sceneCard)
    #expect(layout.dots.count == 175)
    #expect(keptPerRow(layout) == [7, 13, 19, 25, 31, 37, 43])
    #expect(
        keptPerRow(layout) == expectedKeptPerRow(width: 350, height: 350 * 2 / 3, originX: 175, originY: 350 * 2 / 3))
}

/// Width, height, origin x, origin y: small cards clip the arcs at the sides, a tall
/// one keeps more of them, a moved origin keeps different dots.
let otherGeometries: [(Double, Double, Double, Double)] = [
    (200, 133.333, 100, 133.333),
    (120, 300, 60, 150),
    (500, 200, 120, 180),
    (350, 233.333, 0, 0),
]

@Test(arguments: otherGeometries)
func otherSizesMatchAnIndependentCull(_ w: Double, _ h: Double, _ ox: Double, _ oy: Double) {
    let layout = CardLayout(geometry: CardGeometry(width: w, height: h, originX: ox, originY: oy)!)
    let expected = expectedKeptPerRow(width: w, height: h, originX: ox, originY: oy)
    #expect(keptPerRow(layout) == expected)
    #expect(layout.dots.count != 175 || (w == 350))
}

@Test func sizesAndRadiiFollowTheScene() {
    #expect(abs(CardLayout.size(row: 0) - 7.15) < 1e-9)
    #expect(abs(CardLayout.size(row: 3) - 13) < 1e-9)
    #expect(abs(CardLayout.size(row: 6) - 7.15) < 1e-9)
    #expect(CardLayout.radius(row: 0) == 40)
    #expect(abs(CardLayout.radius(row: 3) - 112) < 1e-9)
    #expect(abs(CardLayout.radius(row: 6) - 172) < 1e-9)
}

@Test func positionsAndRotationsOfChosenDots() throws {
    let layout = CardLayout(geometry: sceneCard)
    let h = 350.0 * 2 / 3
    // Row 0, angle pi (k = 6): straight above the origin, arrow up, no rotation.
    let top = try #require(layout.dots.first { $0.row == 0 && $0.k == 6 })
    #expect(abs(top.centerX - 175) < 1e-9 && abs(top.centerY - (h - 40)) < 1e-9)
    #expect(abs(top.rotation) < 1e-12)
    // Row 3, angle pi/2 (k = 12): on the bottom edge to the right, turned a quarter clockwise.
    let right = try #require(layout.dots.first { $0.row == 3 && $0.k == 12 })
    #expect(abs(right.centerX - (175 + 112)) < 1e-9 && abs(right.centerY - h) < 1e-9)
    #expect(abs(right.rotation - Double.pi / 2) < 1e-12)
    // Row 6, angle 3 pi / 2 (k = 63): on the bottom edge to the left, turned a quarter back.
    let left = try #require(layout.dots.first { $0.row == 6 && $0.k == 63 })
    #expect(abs(left.centerX - (175 - 172)) < 1e-9 && abs(left.centerY - h) < 1e-9)
    #expect(abs(left.rotation + Double.pi / 2) < 1e-12)
    // Row 1, angle 5 pi / 6 (k = 10): radius 40 + 25.333.
    let r1 = 40 + 1 * (26 - 4.0 / 6)
    let d = try #require(layout.dots.first { $0.row == 1 && $0.k == 10 })
    #expect(abs(d.centerX - (175 + r1 * 0.5)) < 1e-9)
    #expect(abs(d.centerY - (h - r1 * 3.0.squareRoot() / 2)) < 1e-9)
    #expect(abs(d.rotation - Double.pi / 6) < 1e-12)
}

@Test func invalidGeometryIsRejected() {
    #expect(CardGeometry(width: .nan, height: 100, originX: 0, originY: 0) == nil)
    #expect(CardGeometry(width: .infinity, height: 100, originX: 0, originY: 0) == nil)
    #expect(CardGeometry(width: 0, height: 100, originX: 0, originY: 0) == nil)
    #expect(CardGeometry(width: -5, height: 100, originX: 0, originY: 0) == nil)
    #expect(CardGeometry(width: 100, height: -1, originX: 0, originY: 0) == nil)
    #expect(CardGeometry(width: 100, height: 100, originX: .nan, originY: 0) == nil)
    #expect(CardGeometry(width: 100, height: 100, originX: 0, originY: .infinity) == nil)
}
