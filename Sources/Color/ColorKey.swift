/// A color of the scene, identified by its rounded inputs: hue and saturation in
/// hundredths (0...100). Lightness is the scene's constant 0.7.
package struct ColorKey: Hashable, Sendable, CustomStringConvertible {
    package static let lightness = 0.7
    /// Keys per axis: 0.00 ... 1.00.
    package static let steps = 101

    package var hue: UInt8
    package var saturation: UInt8

    package init(hue: Int, saturation: Int) {
        precondition((0...100).contains(hue) && (0...100).contains(saturation), "ColorKey out of range")
        self.hue = UInt8(hue)
        self.saturation = UInt8(saturation)
    }

    /// The dense table index: hue-major.
    @inlinable
    package var index: Int { Int(hue) * ColorKey.steps + Int(saturation) }

    package var hsl: HSL {
        HSL(hue: Double(hue) / 100, saturation: Double(saturation) / 100, lightness: ColorKey.lightness)
    }

    package var description: String { "hsl(\(Double(hue) / 100), \(Double(saturation) / 100), 0.7)" }
}
