import Foundation
import Glibc
import Logging
import Motion
import TestSupport
import Testing

@testable import Sensors

/// A kxtf9 as sysfs shows it, in a scratch directory: `in_accel_{x,y,z}_raw`, its scale,
/// and (when given) a sampling frequency with the list the driver offers. The attached
/// accelerometer reads it through the sysfs driver, as it reads a real one.
final class SysfsAccelerometer {
    let directory = ScratchDirectory("shimmerd-attached")
    private(set) var snapshot: AttributeSnapshot

    init(
        counts: (String, String, String) = ("0", "0", "512"), frequency: (String, String)? = nil,
        gyroscope: Bool = false
    ) throws {
        var a = ["name": "kxtf9\n", "in_accel_scale": "0.019163\n"]
        for (axis, v) in zip(["x", "y", "z"], [counts.0, counts.1, counts.2]) { a["in_accel_\(axis)_raw"] = v + "\n" }
        if let (current, available) = frequency {
            a["sampling_frequency"] = current + "\n"
            a["sampling_frequency_available"] = available + "\n"
        }
        if gyroscope {
            a["in_anglvel_scale"] = "0.001064724\n"
            for axis in ["x", "y", "z"] { a["in_anglvel_\(axis)_raw"] = "0\n" }
        }
        for (name, text) in a { _ = try directory.write(text, to: name) }
        snapshot = AttributeSnapshot(
            id: "iio:device0", index: 0, syspath: directory.path, devnode: nil, attributes: a,
            udevProperties: [:], triggerNames: [])
    }

    var description: AccelerometerDescription { AccelerometerDescription(snapshot: snapshot, configuredMatrix: nil) }

    func driver() throws -> SysfsPolledAccelerometer { try SysfsPolledAccelerometer(device: description) }

    /// The attribute's text now (what was written to it).
    func text(_ name: String) -> String? {
        try? String(contentsOfFile: directory.file(name), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    func write(_ text: String, to name: String) throws { _ = try directory.write(text + "\n", to: name) }
    func remove(_ name: String) { unlink(directory.file(name)) }
}

/// Lines no test looks at.
let quietLog = Logger(
    label: "test",
    handler: DescriptorLogHandler(
        minimumLevel: .error, fd: open("/dev/null", O_WRONLY | O_CLOEXEC),
        priorityPrefixes: false))

func attach(_ device: SysfsAccelerometer, rateHz: Double = 60, now: Double = 0) throws -> AttachedAccelerometer {
    AttachedAccelerometer(
        driver: try device.driver(), context: nil, settings: AccelerometerSettings(rateHz: rateHz),
        shared: false, modeReason: "sysfs", selection: "the only one", now: now, log: quietLog,
        problems: ReadProblemLog(log: quietLog))
}

struct AttachedAccelerometerTests {
    @Test func aReadGivesTheReadingInMetersPerSecondSquared() throws {
        let device = try SysfsAccelerometer(counts: ("0", "-10", "512"))
        let acc = try attach(device)
        acc.read(now: 0.5)
        #expect(acc.gotData)
        guard case .reading(let r)? = acc.readEvents.first else {
            Issue.record("no reading: \(acc.readEvents)")
            return
        }
        let a = try #require(acc.acceleration(of: r, now: 0.5))
        #expect(abs(a.y - -10 * 0.019163) < 1e-9 && abs(a.z - 512 * 0.019163) < 1e-9)
    }

    @Test func aReadingOver32gIsRejected() throws {
        // 2147483647 counts: a corrupt value that still parsed.
        let device = try SysfsAccelerometer(counts: ("0", "0", "2147483647"))
        let acc = try attach(device)
        acc.read(now: 0)
        guard case .reading(let r)? = acc.readEvents.first else {
            Issue.record("no reading: \(acc.readEvents)")
            return
        }
        #expect(acc.gotData)
        #expect(acc.acceleration(of: r, now: 0) == nil)
    }

    @Test func readsThatFailForTwoSecondsMakeTheDeviceUnreachable() throws {
        let device = try SysfsAccelerometer()
        let acc = try attach(device)
        device.remove("in_accel_y_raw")
        for t in [0.0, 1.0, 1.9] {
            acc.read(now: t)
            #expect(!acc.gotData)
            #expect(acc.unreachable(now: t, source: "ip:hub", giveUpAfter: 2) == nil)
        }
        acc.read(now: 2.0)
        let why = try #require(acc.unreachable(now: 2.0, source: "ip:hub", giveUpAfter: 2))
        #expect(why.hasPrefix("every read from ip:hub failed for 2 s (last: "))
    }

    @Test func aReadThatAnswersStartsTheFailingTimeAgain() throws {
        let device = try SysfsAccelerometer()
        let acc = try attach(device)
        device.remove("in_accel_x_raw")
        acc.read(now: 0)
        #expect(acc.unreachable(now: 0, source: "ip:hub", giveUpAfter: 2) == nil)
        try device.write("1", to: "in_accel_x_raw")
        acc.read(now: 1.5)
        #expect(acc.unreachable(now: 1.5, source: "ip:hub", giveUpAfter: 2) == nil)
        device.remove("in_accel_x_raw")
        acc.read(now: 2.5)
        // Failing since 2.5, not since 0.
        #expect(acc.unreachable(now: 2.5, source: "ip:hub", giveUpAfter: 2) == nil)
        acc.read(now: 4.4)
        #expect(acc.unreachable(now: 4.4, source: "ip:hub", giveUpAfter: 2) == nil)
        acc.read(now: 4.5)
        #expect(acc.unreachable(now: 4.5, source: "ip:hub", giveUpAfter: 2) != nil)
    }

    @Test func rawReadsTheKernelRefusesAreRetriedUntilAnswered() throws {
        let device = try SysfsAccelerometer()
        let acc = try attach(device)
        let busy = ReadProblem(
            attribute: "in_accel_x_raw", value: ReadProblem.readFailed,
            reason: AttachedAccelerometer.busyText + " (errno 16)")
        acc.note(busy, now: 0)
        #expect(acc.refusesRawReads)
        acc.read(now: 1)  // answered: the flag goes at the next read
        #expect(acc.refusesRawReads)
        acc.read(now: 2)
        #expect(!acc.refusesRawReads)
        // Any other failure is a skipped sample, not a refusal.
        acc.note(
            ReadProblem(attribute: "in_accel_x_raw", value: ReadProblem.readFailed, reason: "No such device"), now: 3)
        #expect(!acc.refusesRawReads)
    }

    @Test func aPolledDeviceHasNoScanSilenceToReport() throws {
        let device = try SysfsAccelerometer()
        let acc = try attach(device)
        device.remove("in_accel_z_raw")
        for t in stride(from: 0.0, through: 60, by: 5) {
            acc.read(now: t)
            #expect(acc.noteSilence(now: t, interval: 0.1) == nil)
        }
    }

    @Test func theSamplingFrequencyWrittenIsPutBackOnRelease() throws {
        let device = try SysfsAccelerometer(frequency: ("12.5", "12.5 25 50 100 200"))
        let acc = try attach(device, rateHz: 60)
        #expect(device.text("sampling_frequency") == "100")
        #expect(acc.attachment.samplingFrequency == "sampling_frequency 12.5 -> 100 (restored on exit)")
        acc.release(deviceGone: false)
        #expect(device.text("sampling_frequency") == "12.5")
    }

    @Test func aSamplingFrequencySetBySomeoneElseIsLeftAlone() throws {
        let device = try SysfsAccelerometer(frequency: ("12.5", "12.5 25 50 100 200"))
        let acc = try attach(device, rateHz: 60)
        try device.write("200", to: "sampling_frequency")  // iio-sensor-proxy, a user
        acc.release(deviceGone: false)
        #expect(device.text("sampling_frequency") == "200")
    }

    @Test func aDeviceGoneIsNotWrittenTo() throws {
        let device = try SysfsAccelerometer(frequency: ("12.5", "12.5 25 50 100 200"))
        let acc = try attach(device, rateHz: 60)
        acc.release(deviceGone: true)
        #expect(device.text("sampling_frequency") == "100")
    }

    @Test func aFrequencyThatAlreadyFitsIsNotWritten() throws {
        let device = try SysfsAccelerometer(frequency: ("100", "12.5 25 50 100 200"))
        let acc = try attach(device, rateHz: 60)
        #expect(acc.attachment.samplingFrequency == "sampling_frequency = 100 already fits 60 Hz")
        try device.write("50", to: "sampling_frequency")
        acc.release(deviceGone: false)
        #expect(device.text("sampling_frequency") == "50")
    }
}
