import Testing

@testable import Motion

@Test(arguments: [
    ("1, 0, 0; 0, 1, 0; 0, 0, 1", [1.0, 0, 0, 0, 1, 0, 0, 0, 1]),
    ("0, 1, 0; -1, 0, 0; 0, 0, 1\n", [0.0, 1, 0, -1, 0, 0, 0, 0, 1]),
    ("  0 ,  -1 ,0;-1,0,   0 ;  0, 0,   1  ", [0.0, -1, 0, -1, 0, 0, 0, 0, 1]),
    ("0.6, -0.8, 0; 0.8, 0.6e0, 0; 0, 0, -1.000", [0.6, -0.8, 0, 0.8, 0.6, 0, 0, 0, -1]),
    // A mirror (det -1, as many hwdb entries), and 45 degrees written with two decimals.
    ("-1, 0, 0; 0, 1, 0; 0, 0, 1", [-1.0, 0, 0, 0, 1, 0, 0, 0, 1]),
    ("0.71, -0.71, 0; 0.71, 0.71, 0; 0, 0, 1", [0.71, -0.71, 0, 0.71, 0.71, 0, 0, 0, 1]),
])
func mountMatrixParsesValidText(_ text: String, _ expected: [Double]) throws {
    let m = try MountMatrix.parse(text).get()
    #expect(m.rows.flatMap(\.components) == expected)
}

@Test(arguments: [
    ("", MountMatrix.ParseError.empty),
    ("1, 0, 0; 0, 0, 0; 0, 0, 1", .zeroRow(1)),
    ("1, 0, 0; 0, 1, 0", .rowCount(2)),
    ("1, 0, 0; 0, 1, 0; 0, 0, 1; 1, 1, 1", .rowCount(4)),
    ("garbage", .rowCount(1)),
    ("a, b, c; d, e, f; g, h, i", .badNumber(row: 0, column: 0, "a")),
    // A process locale with a decimal comma must not leak in: "0,5" is two cells.
    ("0,5, 0, 0; 0, 1, 0; 0, 0, 1", .columnCount(row: 0, count: 4)),
    ("1, 0, nan; 0, 1, 0; 0, 0, 1", .badNumber(row: 0, column: 2, "nan")),
    ("1, 0, inf; 0, 1, 0; 0, 0, 1", .badNumber(row: 0, column: 2, "inf")),
    ("1, 0, ; 0, 1, 0; 0, 0, 1", .badNumber(row: 0, column: 2, "")),
    ("1 0 0; 0 1 0; 0 0 1", .columnCount(row: 0, count: 1)),
    // A number, but no mount matrix entry: out of range, not "not a number".
    ("1e308, 0, 0; 0, 1, 0; 0, 0, 1", .outOfRange(row: 0, column: 0, "1e308")),
    ("1, 0, 0; 0, 1, 0; 0, 0, -2e6", .outOfRange(row: 2, column: 2, "-2e6")),
])
func mountMatrixRejectsBadText(_ text: String, _ error: MountMatrix.ParseError) {
    #expect(MountMatrix.parse(text) == .failure(error))
}

/// Nine numbers that are no rotation: singular (a repeated row, as two entries of
/// systemd's 60-sensor.hwdb; entries of 1e-300), scaled, sheared.
@Test(arguments: [
    ("1, 0, 0; 1, 0, 0; 0, 0, 1", 0.0, 1.0),
    ("1, 0, 0; 0, -1, 0; 1, 0, 0", 0.0, 1.0),
    ("1e-300, 0, 0; 0, 1e-300, 0; 0, 0, 1e-300", 0.0, 1.0),
    ("0.5, 0, 0; 0, 1, 0; 0, 0, -1", -0.5, 0.75),
    ("1, 0.1, 0; 0, 1, 0; 0, 0, 1", 1.0, 0.1),
    ("2, 0, 0; 0, 2, 0; 0, 0, 2", 8.0, 3.0),
])
func mountMatrixRefusesWhatIsNoRotation(_ text: String, _ determinant: Double, _ deviation: Double) {
    guard case .failure(let error) = MountMatrix.parse(text), case .notARotation(let det, let dev) = error else {
        Issue.record("\(text): \(MountMatrix.parse(text))")
        return
    }
    #expect(abs(det - determinant) < 1e-9 && abs(dev - deviation) < 1e-9)
    #expect(!error.isMalformed)
    #expect(error.description.contains("a mount matrix must be a rotation, or a rotation with a mirror"))
    #expect(error.description.hasPrefix(determinant == 0 ? "singular (determinant 0)" : "not a rotation"))
}

@Test func aRotationWithinTheToleranceIsKeptAndOneBeyondIsNot() {
    let t = MountMatrix.rotationTolerance
    // Row 1 scaled so that its squared length is off by just under, then just over, t.
    let under = (1 + 0.99 * t).squareRoot(), over = (1 + 1.01 * t).squareRoot()
    #expect(MountMatrix(rows: [Vector3(under, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]) != nil)
    #expect(MountMatrix(rows: [Vector3(over, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]) == nil)
    #expect(MountMatrix(rows: [Vector3(1, 0, 0), Vector3(1, 0, 0), Vector3(0, 0, 1)]) == nil)
}

@Test func mountMatrixIsAppliedAsMTimesV() throws {
    // The IdeaPad D330 hwdb matrix is not symmetric: M . v and v . M differ.
    let m = try MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1").get()
    #expect(m.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
    #expect(m.determinant == 1)
    #expect(m.description == "0, 1, 0; -1, 0, 0; 0, 0, 1")
    #expect(MountMatrix(rows: [Vector3(1, 0, 0), .zero, Vector3(0, 0, 1)]) == nil)
}

@Test(arguments: [
    ("504\n", 504.0), ("-89", -89), ("  0.019154\n", 0.019154), ("+7", 7), ("1e3", 1000),
    ("0.000009806", 0.000009806), ("-25.6", -25.6), ("2147483648", 2147483648),
])
func sysfsNumberParsesCLocale(_ text: String, _ value: Double) {
    #expect(SysfsNumber.parse(text) == .success(value))
}

@Test(arguments: [
    ("", SysfsNumber.Failure.empty), ("\n", .empty), ("abc", .notANumber("abc")), ("nan", .notFinite("nan")),
    ("NaN\n", .notFinite("NaN")), ("inf", .notFinite("inf")), ("-Infinity", .notFinite("-Infinity")),
    ("0,5", .notANumber("0,5")), ("0x10", .notANumber("0x10")), ("1e", .notANumber("1e")),
    ("99999999999999999999", .tooLarge("99999999999999999999")), ("1e400", .tooLarge("1e400")),
    ("12 34", .notANumber("12 34")), (".", .notANumber(".")),
])
func sysfsNumberRejectsGarbage(_ text: String, _ failure: SysfsNumber.Failure) {
    #expect(SysfsNumber.parse(text) == .failure(failure))
}

@Test func perAxisScaleWinsOverShared() throws {
    let attrs = ["in_accel_scale": "0.5\n", "in_accel_y_scale": "0.25\n"]
    let r = try #require(try AxisValueResolver.resolve(kind: "scale", defaultValue: nil, lookup: { attrs[$0] }).get())
    #expect(r.0 == Vector3(0.5, 0.25, 0.5))
    #expect(r.1[.y] == .perAxis("in_accel_y_scale"))
    #expect(r.1[.x] == .shared("in_accel_scale"))
    let offsets = try #require(
        try AxisValueResolver.resolve(kind: "offset", defaultValue: 0, lookup: { attrs[$0] }).get())
    #expect(offsets.0 == .zero && offsets.1[.z] == .defaulted)
    #expect(try AxisValueResolver.resolve(kind: "scale", defaultValue: nil, lookup: { _ in nil }).get() == nil)
    let bad = AxisValueResolver.resolve(
        kind: "scale", defaultValue: nil, lookup: { $0 == "in_accel_scale" ? "x" : nil })
    #expect(throws: AxisValueResolver.Failure.self) { try bad.get() }
}

@Test func calibrationIsMTimesRawPlusOffsetTimesScale() throws {
    // Fixture bmc150_bosc0200_ideapad_d330: raw (504, 0, -89), scale 0.019154, udev matrix.
    let m = try MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1").get()
    let c = AccelCalibration(scale: Vector3(0.019154, 0.019154, 0.019154), mountMatrix: m)
    let a = c.acceleration(raw: Vector3(504, 0, -89))
    #expect((a - Vector3(0, -9.653616, -1.704706)).length < 1e-6)
    let offset = AccelCalibration(scale: Vector3(2, 2, 2), offset: Vector3(1, -1, 0), invert: true)
    #expect(offset.acceleration(raw: Vector3(1, 1, 1)) == Vector3(-4, 0, -2))
}

@Test(arguments: [-0.3, 0.0, 0.05, 0.15, 0.2, 0.5])
func mapperFollowsTheScene(_ angle: Double) {
    let m = FocalMapper.defaultCard()
    let p = m.focalPoint(for: Tilt(dPitchRadians: angle / 2, dRollRadians: angle))
    let expected = min(max(angle / 0.2 * 100, -100), 100)
    #expect(abs(p.x - (175 + expected)) < 1e-9)
    #expect(abs(p.y - (350 * 2 / 3 + expected)) < 1e-9)
}

@Test func mapperExamplesAndUnclamped() {
    let m = FocalMapper.defaultCard()
    #expect(abs(m.focalPoint(for: Tilt(dPitchRadians: 0, dRollRadians: 0.15)).x - 250) < 1e-9)
    #expect(abs(m.focalPoint(for: Tilt(dPitchRadians: 0.05, dRollRadians: 0)).y - (350 * 2 / 3 + 50)) < 1e-9)
    var free = m
    free.clamp = false
    #expect(abs(free.focalPoint(for: Tilt(dPitchRadians: 0, dRollRadians: 0.4)).x - 375) < 1e-9)
}
