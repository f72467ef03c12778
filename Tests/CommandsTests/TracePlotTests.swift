import Foundation
import FoundationXML
import Testing
import Tracing

@testable import Commands

@Test(arguments: [(0.0, 1.0, 0.2), (-0.18, 0.17, 0.05), (0.0, 8.96, 1.0), (50.0, 350.0, 50.0), (0.0, 0.0, 0.0005)])
func axesUseNiceStepsAndCoverTheData(_ lo: Double, _ hi: Double, _ step: Double) {
    let a = PlotAxis(lo, hi)
    #expect(abs(a.step - step) < 1e-12)
    #expect(a.lower <= lo && a.upper >= hi)
    #expect(a.ticks.first == a.lower && abs(a.ticks.last! - a.upper) < 1e-9)
}

@Test(arguments: [
    (0.05, 2, "0.05"), (-0.15, 2, "-0.15"), (12.0, 0, "12"), (0.0, 1, "0.0"), (-0.004, 2, "-0.00"),
    (233.333, 1, "233.3"), (-0.04, 1, "-0.0"),
])
func fixedPointLabels(_ v: Double, _ decimals: Int, _ text: String) {
    // Values that round to zero print without a sign, except where the sign survives rounding.
    let got = PlotAxis.fixed(v, decimals: decimals)
    #expect(got == text || (text.hasPrefix("-0") && got == String(text.dropFirst())))
}

@Test func thinningKeepsTheEnvelope() {
    var points: [(Double, Double)] = []
    for i in 0..<10_000 {
        let v: Double = i % 97 == 0 ? 5 : Double(i % 7) / 7
        points.append((Double(i) / 1000, v))
    }
    let thin = TracePlot.thin(points, columns: 100)
    #expect(thin.count <= 400 && thin.count >= 100)
    let values = thin.map { $0.1 }
    #expect(values.max() == 5 && values.min() == 0)
    #expect(zip(thin, thin.dropFirst()).allSatisfy { $0.0 <= $1.0 })
    #expect(TracePlot.thin(Array(points.prefix(50)), columns: 100).count == 50)
}

@Test func theSVGHasTheSeriesAxesAndBaselineMarkers() throws {
    var entries: [TraceEntry] = [.baseline(.init(t: 0.1, up: [0, 1, 0]))]
    for i in 0..<200 {
        let t = 0.1 + Double(i) / 50
        entries.append(
            .sample(
                .init(
                    t: t, seq: i, accel: [0, -9.8, 0], dpitch: 0.05 * sin(t), droll: -0.1 * sin(t),
                    focal: [175 - 50 * sin(t), 233.3 + 50 * sin(t)])))
    }
    entries.append(.baseline(.init(t: 2.5, up: [0, 1, 0])))
    entries.append(.frame(.init(t: 1, frame: 1, focal: [170, 240], dots: 1, pixels: 1)))
    let svg = TracePlot(TraceContents(entries: entries), title: "a <test> & more").svg()
    let doc = try XMLDocument(xmlString: svg)
    let root = try #require(doc.rootElement())
    #expect(root.name == "svg")
    func elements(_ xpath: String) throws -> [XMLNode] { try root.nodes(forXPath: xpath) }
    // (attribute(forName:) misses attributes of namespaced documents in swift-corelibs.)
    func points(_ id: String) throws -> [Substring] {
        let node = try elements("//*[@id='\(id)']").first as? XMLElement
        return node?.attributes?.first { $0.name == "points" }?.stringValue?.split(separator: " ") ?? []
    }
    for id in [
        "series-dpitch", "series-droll", "series-focal-x", "series-focal-y", "series-focal-path", "series-drawn-path",
    ] {
        #expect(try points(id).count >= 1, "\(id)")
    }
    #expect(try points("series-dpitch").count == 200 && points("series-focal-path").count == 200)
    #expect(try elements("//*[@id='card-outline']").count == 1)
    let texts = try elements("//*[local-name()='text']").compactMap(\.stringValue)
    for title in ["time (s)", "tilt (rad)", "focal point (pt)", "x (pt)", "y (pt, down)", "a <test> & more"] {
        #expect(texts.contains(title), "\(title)")
    }
    // Two baselines, marked in both time panels.
    #expect(try elements("//*[@class='baseline-marker']").count == 4)
}

@Test func gyroscopeReadingsGetTheirOwnPanel() throws {
    var entries: [TraceEntry] = [.baseline(.init(t: 0, up: [0, 0, 1]))]
    for i in 0..<100 {
        let t = Double(i) / 100
        entries.append(.gyro(.init(t: t, anglvel: [0.5 * sin(t), -0.25, Double(i) / 1000])))
        entries.append(.sample(.init(t: t, seq: i, accel: [0, 0, -9.8], dpitch: 0, droll: 0, focal: [175, 233.3])))
    }
    let svg = TracePlot(TraceContents(entries: entries), title: "gyro").svg()
    let doc = try XMLDocument(xmlString: svg)
    let root = try #require(doc.rootElement())
    for axis in ["x", "y", "z"] {
        let node = try root.nodes(forXPath: "//*[@id='series-anglvel-\(axis)']").first as? XMLElement
        let points = node?.attributes?.first { $0.name == "points" }?.stringValue?.split(separator: " ") ?? []
        #expect(points.count == 100, "\(axis)")
    }
    let texts = try root.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
    #expect(texts.contains("angular velocity (rad/s)"))
    // Without gyroscope records there is no such panel.
    let plain = TracePlot(
        TraceContents(entries: entries.filter { if case .gyro = $0 { false } else { true } }), title: "x"
    ).svg()
    #expect(!plain.contains("series-anglvel"))
}

/// Labels of numbers no Int holds: Swift's own text, never a trap.
@Test(arguments: [
    (1e19, 0, "1e+19"), (-1.7e308, 2, "-1.7e+308"), (1e300, 1, "1e+300"), (Double.infinity, 1, "inf"),
    (Double.nan, 0, "nan"), (123_456_789_012.5, 1, "123456789012.5"),
])
func fixedPointLabelsOfHugeValues(_ v: Double, _ decimals: Int, _ text: String) {
    #expect(PlotAxis.fixed(v, decimals: decimals) == text)
}

/// An axis over every finite double stays finite: its end is at most `PlotAxis.limit`.
@Test(arguments: [
    (-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude), (0, 1e19),
    (-Double.leastNonzeroMagnitude, 1e300),
])
func axesOverHugeRangesStayFinite(_ lo: Double, _ hi: Double) {
    let a = PlotAxis(lo, hi)
    #expect(a.lower.isFinite && a.upper.isFinite && a.step.isFinite && a.step > 0)
    #expect(a.lower >= -PlotAxis.limit * 1.01 && a.upper <= PlotAxis.limit * 1.01)
    #expect((2...12).contains(a.ticks.count))
    #expect(a.ticks.allSatisfy { $0.isFinite })
}

@Test func theSVGOfHugeValuesAndControlCharactersIsXML() throws {
    var entries: [TraceEntry] = []
    for i in 0..<10 {
        let t = Double(i) / 10
        entries.append(
            .sample(
                .init(
                    t: t, seq: i, accel: [0, -9.8, 0], dpitch: i == 5 ? 1e19 : 0,
                    droll: i == 6 ? -1.7e308 : 0, focal: [i == 7 ? 1e300 : 175, 233.3])))
        entries.append(.gyro(.init(t: t, anglvel: [1.7e308, 0, -1.7e308])))
    }
    let svg = TracePlot(TraceContents(entries: entries), title: "t\u{1B}[2J\u{0}\u{7}\r\n\u{85}\u{FFFE}\u{FFFF}<&>")
        .svg()
    let doc = try XMLDocument(xmlString: svg)
    let root = try #require(doc.rootElement())
    let texts = try root.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
    #expect(texts.contains("t\\x1b[2J\\x00\\x07\\x0d\\x0a\\x85\\ufffe\\uffff<&>"))
}
