import Logging
import LoopTestSupport
import Output
import Runtime
import Sensors
import Testing

/// The real sensor service (`AccelerometerService`: udev, discovery, the attach attempts)
/// as the loop's source, on the loop kit's clock, with a selector no machine has: what the
/// daemon does while it waits for its accelerometer.
struct AccelerometerServiceLoopTests {
    static let selector = DeviceSelector.name("shimmerd-test-no-such-accelerometer")

    static func service(_ log: MemoryLogHandler) throws -> AccelerometerService {
        try AccelerometerService(settings: AccelerometerSettings(device: selector, rateHz: 100), log: log.logger())
    }

    @Test func aMissingAccelerometerIsWaitedForWithOneLineAndTheCardAtRest() throws {
        let log = MemoryLogHandler()
        let service = try Self.service(log)
        let loop = try LoopHarness(sensor: service)
        loop.run(until: 5)
        #expect(service.summary == "waiting for an accelerometer (name:shimmerd-test-no-such-accelerometer)")
        #expect(log.messages(containing: "waiting for an accelerometer: ").count == 1)
        #expect(loop.notifier.states.filter { $0.hasPrefix("STATUS=waiting for an accelerometer: ") }.count == 1)
        // The card at rest goes out at once, and nothing else: nothing moves.
        #expect(loop.sink.frameTimes == [0])
        #expect(service.attachment == nil)
    }

    /// While it waits, the service looks for the device once a second: the loop wakes for
    /// that and for nothing else of its own.
    @Test func whileWaitingTheLoopWakesOnceASecondToLookAgain() throws {
        let service = try Self.service(MemoryLogHandler())
        let loop = try LoopHarness(sensor: service)
        loop.run(until: 10)
        let waits = loop.clock.waits(in: 1...10)
        #expect(waits.count >= 8 && waits.count <= 10)
        #expect(waits.allSatisfy { $0.timeout <= 1 + 1e-9 })
        #expect(!service.isSuspended)
    }

    /// Nobody looks: the service is suspended and looks for no device until someone does.
    @Test func aSuspendedServiceLooksForNoDeviceUntilResumed() throws {
        let service = try Self.service(MemoryLogHandler())
        let loop = try LoopHarness(audience: .display(unseenBecause: "the display is off"), sensor: service)
        loop.run(until: 10)
        #expect(service.isSuspended)
        #expect(loop.clock.waits(in: 1...10).isEmpty)
        loop.sink.audience = .display(unseenBecause: nil)
        loop.run(until: 12)
        #expect(!service.isSuspended)
        #expect(loop.sink.frameTimes == [10])
    }
}
