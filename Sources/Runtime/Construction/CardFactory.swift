import Card
import LinuxSystem
import Motion
import Raster

/// Builds the card renderer from configuration.
package enum CardFactory {
    package static func geometry(_ s: CardSettings) throws(Failure) -> CardGeometry {
        guard
            let g = CardGeometry(
                width: s.width, height: s.effectiveHeight, originX: s.effectiveOrigin.x, originY: s.effectiveOrigin.y)
        else {
            throw Failure(
                .configuration,
                "Card.width, Card.height and Card.origin must be finite, sizes above 0 "
                    + "(got \(s.width) x \(s.effectiveHeight))")
        }
        return g
    }

    package static func style(_ s: CardSettings) -> CardStyle {
        var style = CardStyle()
        style.leftLabel = s.leftLabel
        style.rightLabel = s.rightLabel
        return style
    }

    /// The renderer of `c.card`; an error names where the card's keys were set.
    package static func renderer(_ c: Configuration, kernel: CardRenderer.Kernel? = nil) throws(Failure) -> CardRenderer
    {
        do { return try renderer(c.card, kernel: kernel) } catch {
            let set = ["Card.width", "Card.height", "Card.scale", "Card.origin"].compactMap { key in
                c.origin(of: key).map { "\(key) (\($0))" }
            }
            guard !set.isEmpty, !error.message.hasPrefix("Card.font") else { throw error }
            throw Failure(error.status, set.joined(separator: ", ") + ": " + error.message)
        }
    }

    /// The renderer; font problems are configuration errors (exit 78) naming the font.
    /// - Parameter kernel: nil picks the fastest the CPU runs.
    package static func renderer(_ s: CardSettings, kernel: CardRenderer.Kernel? = nil) throws(Failure) -> CardRenderer
    {
        let g = try geometry(s)
        let fonts: FontRasterizer
        do { fonts = try FontRasterizer(pattern: s.font) } catch {
            throw Failure(.configuration, "Card.font = \"\(s.font)\": \(error)")
        }
        do {
            return try CardRenderer(
                layout: CardLayout(geometry: g), scale: s.scale, style: style(s), text: fonts,
                kernel: kernel ?? (CPU.hasAVX2 ? .avx2 : .baseline))
        } catch let e as CardRenderer.Failure {
            throw Failure(.configuration, e.description)
        } catch {
            throw Failure(.configuration, "Card.font = \"\(s.font)\": \(error)")
        }
    }
}
