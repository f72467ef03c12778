/// Axis arithmetic for `TracePlot` (pure): "nice" tick steps (1, 2 or 5 times a power
/// of ten), the range rounded out to them, and fixed-point labels without Foundation's
/// `String(format:)`.
package struct PlotAxis: Sendable, Equatable {
    package var lower: Double
    package var upper: Double
    package var step: Double

    /// An axis covering `lo ... hi` with about `target` ticks. An empty range is widened
    /// so that a constant series still gets a readable axis.
    package init(_ lo: Double, _ hi: Double, target: Int = 6) {
        var lo = lo.isFinite ? min(max(lo, -Self.limit), Self.limit) : 0
        var hi = hi.isFinite ? min(max(hi, -Self.limit), Self.limit) : 1
        if lo > hi { swap(&lo, &hi) }
        if hi - lo < 1e-12 {
            let pad = max(abs(lo) * 0.1, 1e-3)
            lo -= pad
            hi += pad
        }
        step = PlotAxis.niceStep((hi - lo) / Double(max(1, target)))
        lower = (lo / step).rounded(.down) * step
        upper = (hi / step).rounded(.up) * step
    }

    /// The largest magnitude an axis reaches. A trace may hold any finite double (a
    /// `dpitch` of 1e19, an `anglvel` of -1.7e308); an axis from -1.7e308 to 1.7e308 would
    /// be infinitely wide (hi - lo overflows), so values beyond are drawn past its end.
    package static let limit = 1e300

    package static func niceStep(_ raw: Double) -> Double {
        let magnitude = pow10((raw.magnitude).log10Floor)
        let n = raw / magnitude
        let m: Double = n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10
        return m * magnitude
    }

    /// Tick values from `lower` to `upper`, computed from integers so that none drifts.
    package var ticks: [Double] {
        // About `target` ticks; the bound only keeps a degenerate axis from a crash.
        let count = ((upper - lower) / step).rounded()
        let n = count.isFinite && count < 1000 ? Int(count) : 1000
        let first = (lower / step).rounded()
        return (0...max(0, n)).map { (first + Double($0)) * step }
    }

    /// Decimals the labels need for this step: 0.05 -> 2, 0.5 -> 1, 20 -> 0.
    package var decimals: Int { max(0, -step.log10Floor) }

    package func label(_ v: Double) -> String { PlotAxis.fixed(v, decimals: decimals) }

    /// `v` with exactly `decimals` digits after the point ("-0.05", "12", "0.10"). Beyond
    /// 1e15 (digits a Double no longer holds exactly, and on to where an Int overflows) it
    /// is Swift's shortest form ("1e+19"); a value that is not finite is "nan" or "inf".
    package static func fixed(_ v: Double, decimals: Int) -> String {
        let scale = pow10(decimals)
        let scaled = (v * scale).rounded()
        guard abs(scaled) < 1e15 else { return v.isNaN ? "nan" : v.isInfinite ? (v < 0 ? "-inf" : "inf") : "\(v)" }
        let n = Int(scaled)
        if n == 0 { return decimals == 0 ? "0" : "0." + String(repeating: "0", count: decimals) }
        let digits = String(n.magnitude)
        let sign = n < 0 ? "-" : ""
        guard decimals > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        return sign + padded.dropLast(decimals) + "." + padded.suffix(decimals)
    }

    static func pow10(_ e: Int) -> Double {
        var r = 1.0
        for _ in 0..<e.magnitude { r *= 10 }
        return e < 0 ? 1 / r : r
    }
}

extension Double {
    /// floor(log10(self)) for positive values, without libm (this module imports none).
    var log10Floor: Int {
        guard self > 0, isFinite else { return 0 }
        var e = 0
        var v = self
        while v >= 10 { v /= 10; e += 1 }
        while v < 1 { v *= 10; e -= 1 }
        return e
    }
}
