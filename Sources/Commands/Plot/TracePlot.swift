import Logging
import Motion
import Tracing

/// A trace as one SVG a person can read at a glance (pure: `shimmerd plot` does the I/O).
///
/// Three or four panels, top to bottom:
/// 1. tilt: dPitch and dRoll (radians) over time (seconds);
/// 2. focal point: x and y (points) over time;
/// 3. where the trace has `gyro` records: the angular velocity, x, y and z (rad/s), over
///    time (`series-anglvel-x` ...);
/// 4. the focal point's path (the samples' targets; the drawn frames' path dashed when
///    the trace has `frame` records) over the card's outline, origin marked, in points
///    with y down as on the card.
/// Baseline captures are dashed vertical lines in both time panels. Every axis is
/// labelled with its unit. Elements carry ids (`series-dpitch`, `series-droll`,
/// `series-focal-x`, `series-focal-y`, `series-focal-path`, `series-drawn-path`,
/// `card-outline`, `axis-...`) and baseline lines the class `baseline-marker`, so
/// tests and tools can find them.
///
/// Long traces are thinned per pixel column to the column's first, lowest, highest and
/// last point: the envelope a reader sees is kept, the file stays small.
package struct TracePlot {
    /// The card's geometry, points.
    package struct Card: Sendable, Equatable {
        package var width: Double
        package var height: Double
        package var origin: (x: Double, y: Double)

        package init(width: Double, height: Double, origin: (x: Double, y: Double)) {
            self.width = width
            self.height = height
            self.origin = origin
        }

        package init(_ header: TraceRecord.Header?) {
            let c = header?.card
            width = c?.width ?? FocalPoint.cardWidth
            height = c?.height ?? FocalPoint.cardHeight(width: width)
            let o =
                c.flatMap { $0.origin.count == 2 ? FocalPoint(x: $0.origin[0], y: $0.origin[1]) : nil }
                ?? .cardOrigin(width: width, height: height)
            origin = (o.x, o.y)
        }

        package static func == (a: Card, b: Card) -> Bool {
            a.width == b.width && a.height == b.height && a.origin.x == b.origin.x && a.origin.y == b.origin.y
        }
    }

    static let width = 960.0
    static let left = 90.0, right = 170.0
    static let plotWidth = width - left - right
    static let timeHeight = 190.0
    static let cardBox = (width: 620.0, height: 420.0)
    static let colors = (
        dpitch: "#d62728", droll: "#1f77b4", x: "#2ca02c", y: "#9467bd", path: "#ff7f0e", drawn: "#555555"
    )

    let trace: TraceContents
    let title: String
    let card: Card

    package init(_ trace: TraceContents, title: String, card: Card? = nil) {
        self.trace = trace
        self.title = title
        self.card = card ?? Card(trace.header)
    }

    package func svg() -> String {
        let samples = trace.samples
        let baselines = trace.baselines
        let span = trace.timeSpan ?? 0...1
        let time = PlotAxis(span.lowerBound, span.upperBound, target: 10)
        var out = SVGText()

        let gyros = trace.gyros.filter { $0.anglvel.count == 3 }
        let tiltTop = 100.0
        let focalTop = tiltTop + Self.timeHeight + 90
        let gyroTop = focalTop + Self.timeHeight + 90
        let cardTop = (gyros.isEmpty ? focalTop : gyroTop) + Self.timeHeight + 100

        // Panel 3's size follows the data: the card plus wherever the path went.
        let pathPoints = samples.compactMap { $0.focal.count == 2 ? ($0.focal[0], $0.focal[1]) : nil }
        let drawnPoints = trace.frames.compactMap { $0.focal.count == 2 ? ($0.focal[0], $0.focal[1]) : nil }
        var lo = (x: min(0, card.origin.x), y: min(0, card.origin.y))
        var hi = (x: max(card.width, card.origin.x), y: max(card.height, card.origin.y))
        for p in pathPoints + drawnPoints where p.0.isFinite && p.1.isFinite {
            lo = (min(lo.x, p.0), min(lo.y, p.1))
            hi = (max(hi.x, p.0), max(hi.y, p.1))
        }
        let cx = PlotAxis(lo.x, hi.x, target: 8), cy = PlotAxis(lo.y, hi.y, target: 5)
        let k = min(Self.cardBox.width / (cx.upper - cx.lower), Self.cardBox.height / (cy.upper - cy.lower))
        let cardHeight = (cy.upper - cy.lower) * k
        let height = cardTop + cardHeight + 80

        out.open(width: Self.width, height: height)
        out.line("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        out.text(Self.left, 30, title, size: 18, weight: "bold")
        let duration = span.upperBound - span.lowerBound
        out.text(
            Self.left, 52,
            "\(PlotAxis.fixed(duration, decimals: 2)) s, \(samples.count) samples, "
                + "\(baselines.count) baseline capture\(baselines.count == 1 ? "" : "s"), \(trace.frames.count) frames"
                + (trace.dropped.isEmpty ? "" : ", \(trace.dropped.count) dropped")
                + (gyros.isEmpty ? "" : ", \(gyros.count) gyroscope readings")
                + (trace.header?.sensor.device.map { "; sensor \($0)" } ?? ""), size: 13, fill: "#444")

        // Panel 1: tilt.
        var tiltValues: [Double] = [0]
        for s in samples where s.dpitch.isFinite && s.droll.isFinite { tiltValues += [s.dpitch, s.droll] }
        let tilt = PlotAxis(tiltValues.min() ?? -0.1, tiltValues.max() ?? 0.1)
        timePanel(
            &out, id: "tilt", top: tiltTop, time: time, value: tilt, valueTitle: "tilt (rad)",
            heading: "Tilt against the baseline",
            series: [
                ("dpitch", "dPitch", Self.colors.dpitch, samples.map { ($0.t, $0.dpitch) }),
                ("droll", "dRoll", Self.colors.droll, samples.map { ($0.t, $0.droll) }),
            ],
            baselines: baselines.map(\.t))

        // Panel 2: focal point over time.
        let fx = samples.map { ($0.t, $0.focal.first ?? .nan) },
            fy = samples.map { ($0.t, $0.focal.count > 1 ? $0.focal[1] : .nan) }
        let focalValues = (fx + fy).map(\.1).filter(\.isFinite)
        let focal = PlotAxis(focalValues.min() ?? 0, focalValues.max() ?? card.width)
        timePanel(
            &out, id: "focal", top: focalTop, time: time, value: focal, valueTitle: "focal point (pt)",
            heading: "Focal point (the mapper's target)",
            series: [("focal-x", "x", Self.colors.x, fx), ("focal-y", "y (down)", Self.colors.y, fy)],
            baselines: baselines.map(\.t))

        // Panel 3: angular velocity, where there is a gyroscope.
        if !gyros.isEmpty {
            let values = gyros.flatMap(\.anglvel).filter(\.isFinite) + [0]
            let rate = PlotAxis(values.min() ?? -1, values.max() ?? 1)
            timePanel(
                &out, id: "anglvel", top: gyroTop, time: time, value: rate, valueTitle: "angular velocity (rad/s)",
                heading: "Gyroscope (device frame)",
                series: [
                    ("anglvel-x", "x", Self.colors.droll, gyros.map { ($0.t, $0.anglvel[0]) }),
                    ("anglvel-y", "y", Self.colors.dpitch, gyros.map { ($0.t, $0.anglvel[1]) }),
                    ("anglvel-z", "z", Self.colors.x, gyros.map { ($0.t, $0.anglvel[2]) }),
                ],
                baselines: baselines.map(\.t))
        }

        // Panel 4: the path over the card.
        let x0 = Self.left + (Self.plotWidth - (cx.upper - cx.lower) * k) / 2
        let px = { (v: Double) in x0 + (v - cx.lower) * k }
        let py = { (v: Double) in cardTop + (v - cy.lower) * k }
        out.text(
            x0, cardTop - 14,
            "Focal path over the card (\(PlotAxis.fixed(card.width, decimals: 0)) x "
                + "\(PlotAxis.fixed(card.height, decimals: 1)) pt)", size: 14, weight: "bold")
        out.group("axis-card")
        for t in cx.ticks {
            out.segment(px(t), cardTop, px(t), cardTop + cardHeight, "stroke=\"#eee\"")
            out.text(px(t), cardTop + cardHeight + 16, cx.label(t), size: 11, anchor: "middle")
        }
        for t in cy.ticks {
            out.segment(x0, py(t), px(cx.upper), py(t), "stroke=\"#eee\"")
            out.text(x0 - 6, py(t) + 4, cy.label(t), size: 11, anchor: "end")
        }
        out.line(
            "<rect x=\"\(c(x0))\" y=\"\(c(cardTop))\" width=\"\(c((cx.upper - cx.lower) * k))\" "
                + "height=\"\(c(cardHeight))\" fill=\"none\" stroke=\"#888\"/>")
        out.text(
            px((cx.lower + cx.upper) / 2), cardTop + cardHeight + 36, "x (pt)", size: 13, anchor: "middle",
            id: "axis-title-card-x")
        out.text(
            x0 - 48, cardTop + cardHeight / 2, "y (pt, down)", size: 13, anchor: "middle",
            transform: "rotate(-90 \(c(x0 - 48)) \(c(cardTop + cardHeight / 2)))", id: "axis-title-card-y")
        out.close()
        let r = min(12, card.width / 2, card.height / 2) * k
        out.line(
            "<rect id=\"card-outline\" x=\"\(c(px(0)))\" y=\"\(c(py(0)))\" "
                + "width=\"\(c(card.width * k))\" height=\"\(c(card.height * k))\" rx=\"\(c(r))\" fill=\"#111\" "
                + "fill-opacity=\"0.06\" stroke=\"#111\" stroke-width=\"1.5\"/>")
        // The drawn path on top, thin and dashed: where it lags the target it shows
        // beside it, elsewhere the target shows through its gaps.
        out.polyline("series-focal-path", Self.colors.path, pathPoints.map { (px($0.0), py($0.1)) }, width: 2)
        if !drawnPoints.isEmpty {
            out.polyline(
                "series-drawn-path", Self.colors.drawn, drawnPoints.map { (px($0.0), py($0.1)) }, dashed: true, width: 1
            )
        }
        if let first = pathPoints.first, let last = pathPoints.last {
            out.line(
                "<circle id=\"path-start\" cx=\"\(c(px(first.0)))\" cy=\"\(c(py(first.1)))\" r=\"4\" "
                    + "fill=\"\(Self.colors.path)\"/>")
            out.line(
                "<rect id=\"path-end\" x=\"\(c(px(last.0) - 4))\" y=\"\(c(py(last.1) - 4))\" "
                    + "width=\"8\" height=\"8\" fill=\"\(Self.colors.path)\"/>")
        }
        out.line(
            "<circle id=\"origin\" cx=\"\(c(px(card.origin.x)))\" cy=\"\(c(py(card.origin.y)))\" "
                + "r=\"5\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>")
        out.text(px(card.origin.x) + 8, py(card.origin.y) - 8, "origin O", size: 12)
        let legendX = x0 + (cx.upper - cx.lower) * k + 20
        var legend: [(String, String, Bool)] = [("focal target (samples)", Self.colors.path, false)]
        if !drawnPoints.isEmpty { legend.append(("drawn (frames)", Self.colors.drawn, true)) }
        legend.append(("card outline", "#111", false))
        for (i, item) in legend.enumerated() {
            let y = cardTop + 10 + Double(i) * 20
            out.segment(
                legendX, y, legendX + 24, y,
                "stroke=\"\(item.1)\" stroke-width=\"2\"\(item.2 ? " stroke-dasharray=\"5 3\"" : "")")
            out.text(legendX + 30, y + 4, item.0, size: 12)
        }
        out.text(
            legendX, cardTop + 10 + Double(legend.count) * 20 + 4, "dot: start, square: end", size: 11, fill: "#444")
        out.finish()
        return out.text
    }

    /// A time panel: grid, axes with units, series, legend and baseline markers.
    private func timePanel(
        _ out: inout SVGText, id: String, top: Double, time: PlotAxis, value: PlotAxis,
        valueTitle: String, heading: String,
        series: [(id: String, name: String, color: String, points: [(Double, Double)])],
        baselines: [Double]
    ) {
        let h = Self.timeHeight, x0 = Self.left, w = Self.plotWidth
        let px = { (t: Double) in x0 + (t - time.lower) / (time.upper - time.lower) * w }
        let py = { (v: Double) in top + h - (v - value.lower) / (value.upper - value.lower) * h }
        out.text(x0, top - 12, heading, size: 14, weight: "bold")
        out.group("axis-\(id)")
        for t in time.ticks {
            out.segment(px(t), top, px(t), top + h, "stroke=\"#eee\"")
            out.text(px(t), top + h + 16, time.label(t), size: 11, anchor: "middle")
        }
        for v in value.ticks {
            out.segment(x0, py(v), x0 + w, py(v), "stroke=\"\(v == 0 ? "#bbb" : "#eee")\"")
            out.text(x0 - 6, py(v) + 4, value.label(v), size: 11, anchor: "end")
        }
        out.line(
            "<rect x=\"\(c(x0))\" y=\"\(c(top))\" width=\"\(c(w))\" height=\"\(c(h))\" "
                + "fill=\"none\" stroke=\"#888\"/>")
        out.text(x0 + w / 2, top + h + 36, "time (s)", size: 13, anchor: "middle", id: "axis-title-\(id)-x")
        out.text(
            x0 - 58, top + h / 2, valueTitle, size: 13, anchor: "middle",
            transform: "rotate(-90 \(c(x0 - 58)) \(c(top + h / 2)))", id: "axis-title-\(id)-y")
        out.close()
        for t in baselines {
            out.line(
                "<line class=\"baseline-marker\" data-t=\"\(t)\" x1=\"\(c(px(t)))\" y1=\"\(c(top))\" "
                    + "x2=\"\(c(px(t)))\" y2=\"\(c(top + h))\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>")
        }
        for s in series {
            let pts = Self.thin(s.points.filter { $0.0.isFinite && $0.1.isFinite }, columns: Int(w))
            out.polyline("series-\(s.id)", s.color, pts.map { (px($0.0), py($0.1)) }, width: 1.5)
        }
        var items = series.map { ($0.name, $0.color, false) }
        if !baselines.isEmpty { items.append(("baseline capture", "#333", true)) }
        for (i, item) in items.enumerated() {
            let y = top + 10 + Double(i) * 20
            out.segment(
                x0 + w + 16, y, x0 + w + 40, y,
                "stroke=\"\(item.1)\" stroke-width=\"2\"\(item.2 ? " stroke-dasharray=\"4 3\"" : "")")
            out.text(x0 + w + 46, y + 4, item.0, size: 12)
        }
    }

    /// At most four points per column (first, lowest, highest, last, in time order):
    /// the envelope survives, a long trace's plot stays small.
    package static func thin(_ points: [(Double, Double)], columns: Int) -> [(Double, Double)] {
        guard points.count > 4 * columns, let first = points.first, let last = points.last, last.0 > first.0 else {
            return points
        }
        var out: [(Double, Double)] = []
        var bucket: [(offset: Int, element: (Double, Double))] = []
        var current = -1
        func emit() {
            guard let f = bucket.first, let l = bucket.last else { return }
            let lo = bucket.min { $0.element.1 < $1.element.1 }!, hi = bucket.max { $0.element.1 < $1.element.1 }!
            var keep = [f, lo, hi, l]
            keep.sort { $0.offset < $1.offset }
            var lastOffset = -1
            for p in keep where p.offset != lastOffset {
                out.append(p.element)
                lastOffset = p.offset
            }
        }
        for (i, p) in points.enumerated() {
            let column = min(columns - 1, Int((p.0 - first.0) / (last.0 - first.0) * Double(columns)))
            if column != current {
                emit()
                bucket.removeAll(keepingCapacity: true)
                current = column
            }
            bucket.append((i, p))
        }
        emit()
        return out
    }
}

/// Pixel coordinates to one decimal. A value far off the axis (a reading beyond
/// `PlotAxis.limit`) is drawn at a million pixels, off the picture all the same.
private func c(_ v: Double) -> String { PlotAxis.fixed(v.isNaN ? 0 : min(max(v, -1e6), 1e6), decimals: 1) }

/// The SVG being written: elements, one a line.
struct SVGText {
    var text = ""

    mutating func open(width: Double, height: Double) {
        text += """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(c(width))" height="\(c(height))" viewBox="0 0 \(c(width)) \(c(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">

            """
    }

    mutating func line(_ s: String) { text += s + "\n" }
    mutating func group(_ id: String) { line("<g id=\"\(id)\">") }
    /// A `<line>` from (x1, y1) to (x2, y2), `attributes` after its coordinates.
    mutating func segment(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ attributes: String) {
        line("<line x1=\"\(c(x1))\" y1=\"\(c(y1))\" x2=\"\(c(x2))\" y2=\"\(c(y2))\" \(attributes)/>")
    }
    mutating func close() { line("</g>") }
    mutating func finish() { line("</svg>") }

    mutating func text(
        _ x: Double, _ y: Double, _ s: String, size: Double, anchor: String = "start",
        weight: String = "normal", fill: String = "#000", transform: String? = nil, id: String? = nil
    ) {
        var attributes = "x=\"\(c(x))\" y=\"\(c(y))\" font-size=\"\(c(size))\""
        if anchor != "start" { attributes += " text-anchor=\"\(anchor)\"" }
        if weight != "normal" { attributes += " font-weight=\"\(weight)\"" }
        if fill != "#000" { attributes += " fill=\"\(fill)\"" }
        if let transform { attributes += " transform=\"\(transform)\"" }
        if let id { attributes = "id=\"\(id)\" " + attributes }
        line("<text \(attributes)>\(Self.escape(s))</text>")
    }

    mutating func polyline(
        _ id: String, _ color: String, _ points: [(Double, Double)], dashed: Bool = false, width: Double
    ) {
        let list = points.map { "\(c($0.0)),\(c($0.1))" }.joined(separator: " ")
        line(
            "<polyline id=\"\(id)\" fill=\"none\" stroke=\"\(color)\" "
                + "stroke-width=\"\(c(width))\" stroke-linejoin=\"round\""
                + (dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"\(list)\"/>")
    }

    /// Text as XML 1.0 character data. XML allows no C0 control but TAB, LF and CR, not even
    /// as a character reference, nor U+FFFE and U+FFFF (section 2.2, `Char`): a trace's
    /// file name or its header's sensor device may hold any of them. Control characters are
    /// written as `\xHH` (`escapingControlCharacters`, as in log lines: a picture of the
    /// text, not the text), U+FFFE and U+FFFF as `\ufffe` and `\uffff`; `&`, `<`, `>` and
    /// `"` as entities.
    static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.escapingControlCharacters().unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\u{FFFE}": out += "\\ufffe"
            case "\u{FFFF}": out += "\\uffff"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
