import Motion
import TestSupport
import Testing

@testable import Sensors

/// Counts to SI units at the driver boundary, and the one decision whether a reading is
/// one: what the drivers hand over, and the text of the line a bad one gets.
struct ReadingUnitsTests {
    static let kxtf9 = Vector3(0.019163, 0.019163, 0.019163)

    @Test func countsBecomeMetersPerSecondSquaredWithScaleAndOffset() throws {
        let a = try ReadingUnits.acceleration(
            counts: Vector3(10, -20, 512), scale: Self.kxtf9, offset: Vector3(2, 0, -12)
        ).get()
        #expect(
            abs(a.x - 12 * 0.019163) < 1e-12 && abs(a.y - -20 * 0.019163) < 1e-12 && abs(a.z - 500 * 0.019163) < 1e-12)
    }

    @Test(arguments: [
        (Vector3(0, 0, 0), "zero acceleration vector", "0 0 0"),
        (Vector3(0, 0, 2147483647), "implausible acceleration (over 32 g)", "0 0 2147483647"),
        (Vector3(.nan, 0, 1), "non-finite acceleration", "nan 0 1"),
        (Vector3(1e308, 1e308, 0), "acceleration too large to compute (|a| overflows a double)", "1e+308 1e+308 0"),
    ])
    func aValueThatIsNoAccelerationNamesTheAttributesAndTheCounts(_ counts: Vector3, _ reason: String, _ text: String) {
        let scale = counts.x == 1e308 ? Vector3(1, 1, 1) : Self.kxtf9
        guard case .failure(let p) = ReadingUnits.acceleration(counts: counts, scale: scale, offset: .zero) else {
            Issue.record("accepted \(counts)")
            return
        }
        #expect(p.attribute == "in_accel_x_raw,in_accel_y_raw,in_accel_z_raw")
        #expect(p.reason == reason)
        #expect(p.value == text)
        #expect(!p.isReadFailure)
    }

    @Test func thirtyTwoGIsTheLargestAcceleration() {
        let g32 = 32 * standardGravity
        #expect(
            (try? ReadingUnits.acceleration(counts: Vector3(0, 0, g32 - 1e-6), scale: Vector3(1, 1, 1), offset: .zero)
                .get()) != nil)
        #expect(
            (try? ReadingUnits.acceleration(counts: Vector3(0, 0, g32 + 1e-6), scale: Vector3(1, 1, 1), offset: .zero)
                .get()) == nil)
    }

    @Test func countsBecomeRadiansPerSecondAndARateBeyondAnyGyroscopeIsNone() throws {
        let scale = Vector3(1, 1, 1) * (Double.pi / 180 / 16.4)  // 2000 deg/s full scale
        let w = try ReadingUnits.angularVelocity(counts: Vector3(164, 0, -164), scale: scale, offset: .zero).get()
        #expect(abs(w.x - 10 * degree) < 1e-12 && abs(w.z + 10 * degree) < 1e-12)
        // A still gyroscope reads zero: a good reading.
        #expect((try? ReadingUnits.angularVelocity(counts: .zero, scale: scale, offset: .zero).get()) == .zero)
        guard
            case .failure(let p) = ReadingUnits.angularVelocity(counts: Vector3(1e7, 0, 0), scale: scale, offset: .zero)
        else {
            Issue.record("a rate of 1e7 counts was accepted")
            return
        }
        #expect(p.attribute == "in_anglvel_x_raw,in_anglvel_y_raw,in_anglvel_z_raw")
        #expect(p.value == "10000000 0 0" && p.reason == "angular velocity beyond 100 rad/s")
    }

    @Test(arguments: [
        ("abc", "in_accel_x_raw", "abc"), (" 12\n", nil, nil), ("", "in_accel_x_raw", ""),
        ("1e400", "in_accel_x_raw", "1e400"),
    ])
    func theFirstBadTextIsNamed(_ x: String, _ attribute: String?, _ value: String?) {
        switch ReadingUnits.counts(channel: "accel", x, "2", "3") {
        case .success(let c):
            #expect(attribute == nil && c == Vector3(12, 2, 3))
        case .failure(let p):
            #expect(p.attribute == attribute && p.value == value)
        }
    }

    /// The sysfs driver hands over m/s^2, and a bad reading as its problem, through the
    /// same files a device shows.
    @Test func theSysfsDriverHandsOverMetersPerSecondSquared() throws {
        let device = try SysfsAccelerometer(counts: ("0", "-10", "512"))
        let driver = try device.driver()
        var events: [DriverEvent] = []
        driver.read(at: 0, into: &events)
        guard case .reading(let r)? = events.first, case .success(let a) = r.acceleration else {
            Issue.record("\(events)")
            return
        }
        #expect(abs(a.y - -10 * 0.019163) < 1e-9 && abs(a.z - 512 * 0.019163) < 1e-9)
        try device.write("2147483647", to: "in_accel_z_raw")
        events.removeAll()
        driver.read(at: 1, into: &events)
        guard case .reading(let bad)? = events.first, case .failure(let p) = bad.acceleration else {
            Issue.record("\(events)")
            return
        }
        #expect(
            p.description
                == "in_accel_x_raw,in_accel_y_raw,in_accel_z_raw = \"0 -10 2147483647\": implausible acceleration (over 32 g)"
        )
    }
}
