/// The weights of resampling one axis from `source` samples to `destination` (pure):
/// for each destination sample, the first source sample it reads and the weights of
/// those it reads, summing to 1. Shrinking averages the source samples each destination
/// sample covers, in proportion to the overlap (an area filter: every source pixel
/// counts, so the card's dots and edges neither alias nor vanish); enlarging interpolates
/// linearly between the two nearest samples (pixel centres aligned).
package struct AxisWeights: Equatable, Sendable {
    package let source: Int
    package let destination: Int
    /// First source sample of destination sample i.
    private(set) var first: [Int] = []
    /// Its weights are weights[offset[i] ..< offset[i + 1]].
    private(set) var offset: [Int] = [0]
    private(set) var weights: [Float] = []

    package init(source: Int, destination: Int) {
        precondition(source > 0 && destination > 0, "AxisWeights: empty axis")
        self.source = source
        self.destination = destination
        let step = Double(source) / Double(destination)
        for d in 0..<destination {
            if step >= 1 {
                // Source interval [lo, hi) of destination sample d.
                let lo = Double(d) * step, hi = min(Double(source), Double(d + 1) * step)
                let i0 = Int(lo.rounded(.down))
                let i1 = min(source, Int(hi.rounded(.up)))
                first.append(i0)
                for i in i0..<i1 {
                    let overlap = min(hi, Double(i + 1)) - max(lo, Double(i))
                    weights.append(Float(overlap / (hi - lo)))
                }
            } else {
                let x = (Double(d) + 0.5) * step - 0.5
                let i0 = min(max(Int(x.rounded(.down)), 0), source - 1)
                let f = min(max(x - Double(i0), 0), 1)
                first.append(i0)
                if i0 + 1 < source && f > 0 {
                    weights.append(Float(1 - f))
                    weights.append(Float(f))
                } else {
                    weights.append(1)
                }
            }
            offset.append(weights.count)
        }
    }

    /// The source samples and weights of destination sample `d`.
    package func taps(_ d: Int) -> (first: Int, weights: ArraySlice<Float>) {
        (first[d], weights[offset[d]..<offset[d + 1]])
    }

    /// The tables as buffers, for a loop over every destination sample (no copies, no
    /// reference counting per sample): first source sample, weight offsets, weights.
    func withTables<R>(_ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> R)
        -> R
    {
        first.withUnsafeBufferPointer { f in
            offset.withUnsafeBufferPointer { o in weights.withUnsafeBufferPointer { w in body(f, o, w) } }
        }
    }
}
