/// A point on the card, in points (x right, y down; spec/scene.md).
package struct FocalPoint: Hashable, Sendable {
    package var x: Double
    package var y: Double
    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
