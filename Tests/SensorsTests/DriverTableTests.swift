import Glibc
import IIO
import Testing

@testable import Sensors

/// The accelerometer drivers' probes: which driver reads a device under `Sensor.mode`,
/// and the words the attach line says it with.
struct DriverTableTests {
    /// A kxtf9 with scan elements and a trigger, as a remote device (no sysfs to check).
    static func device(scans: Bool = true, raws: Bool = true, bufferEnabled: Bool = false) -> AccelerometerDescription {
        var attrs = ["name": "kxtf9\n", "in_accel_scale": "0.019163\n"]
        for (i, a) in ["x", "y", "z"].enumerated() {
            if raws { attrs["in_accel_\(a)_raw"] = "2\n" }
            if scans {
                attrs["scan_elements/in_accel_\(a)_en"] = "0\n"
                attrs["scan_elements/in_accel_\(a)_index"] = "\(i)\n"
                attrs["scan_elements/in_accel_\(a)_type"] = "le:s12/16>>4\n"
            }
        }
        if bufferEnabled { attrs["buffer/enable"] = "1\n" }
        let s = AttributeSnapshot(
            id: "iio:device0", index: 0, syspath: nil, devnode: nil, attributes: attrs,
            udevProperties: [:], triggerNames: ["kxtf9-dev0"])
        return AccelerometerDescription(snapshot: s, configuredMatrix: nil)
    }

    /// An empty libiio context from an XML description: the probes only ask whether there is one.
    static func context() throws -> Context {
        let path = "/tmp/shimmerd-driver-table-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).xml"
        let xml =
            #"<?xml version="1.0" encoding="utf-8"?><!DOCTYPE context [<!ELEMENT context (device|context-attribute)*><!ELEMENT context-attribute EMPTY><!ELEMENT device (channel|attribute|debug-attribute|buffer-attribute)*><!ATTLIST context name CDATA #REQUIRED description CDATA #IMPLIED><!ATTLIST context-attribute name CDATA #REQUIRED value CDATA #REQUIRED><!ATTLIST device id CDATA #REQUIRED name CDATA #IMPLIED>]><context name="xml" description="empty"></context>"#
        let f = fopen(path, "w")
        fputs(xml, f)
        fclose(f)
        defer { unlink(path) }
        return try Context(uri: "xml:" + path)
    }

    func candidate(
        _ d: AccelerometerDescription, mode: SensorMode, context: Context?,
        shared: String? = nil
    ) -> AccelerometerDriverTable.Candidate {
        .init(
            device: d, context: context, contextError: nil, mode: mode, local: false, scansPerWakeup: 1, gyro: nil,
            shared: shared)
    }

    /// The first driver whose probe takes the device, and why; or the refusal.
    func chosen(_ c: AccelerometerDriverTable.Candidate) -> String {
        var passed: AccelerometerDriverTable.PassedOn?
        for d in AccelerometerDriverTable.drivers {
            switch d.probe(c, passed) {
            case .use(let why): return "\(d.name): \(why)"
            case .next(let p): passed = p ?? passed
            case .refuse(let e): return "refused: \(e.message)"
            }
        }
        return "none"
    }

    @Test func autoTakesTheBufferWhereItCanAndPollsOtherwise() throws {
        let ctx = try Self.context()
        #expect(
            chosen(candidate(Self.device(), mode: .auto, context: ctx))
                == "buffer: auto: the device has scan elements and a trigger, and its buffer attributes are writable")
        #expect(
            chosen(candidate(Self.device(scans: false), mode: .auto, context: ctx))
                == "poll: auto: no scan_elements for accel x, y and z (poll only)")
        #expect(chosen(candidate(Self.device(), mode: .poll, context: ctx)) == "poll: Sensor.mode = poll")
        #expect(chosen(candidate(Self.device(), mode: .buffer, context: ctx)) == "buffer: Sensor.mode = buffer")
        #expect(
            chosen(candidate(Self.device(scans: false), mode: .buffer, context: ctx))
                == "refused: Sensor.mode = buffer, but no scan_elements for accel x, y and z (poll only)")
    }

    @Test func anotherReadersBufferIsLeftAloneEvenInBufferMode() throws {
        let ctx = try Self.context()
        let why = "its buffer is already enabled by another program (buffer/enable = 1)"
        #expect(
            chosen(candidate(Self.device(), mode: .auto, context: ctx, shared: why))
                == "poll: auto: \(why): polling, the buffer left alone")
        #expect(
            chosen(candidate(Self.device(), mode: .buffer, context: ctx, shared: why))
                == "poll: Sensor.mode = buffer, but \(why): polling, the buffer left alone")
        #expect(
            chosen(candidate(Self.device(raws: false), mode: .auto, context: ctx, shared: why))
                == "refused: auto: \(why), and it has no raw attributes to poll")
        // Sensor.mode = poll never touches a buffer: nothing to leave alone.
        #expect(chosen(candidate(Self.device(), mode: .poll, context: ctx, shared: why)) == "poll: Sensor.mode = poll")
    }

    @Test func aBufferThatFailsToOpenPassesOnOrRefuses() throws {
        let ctx = try Self.context()
        let c = candidate(Self.device(), mode: .auto, context: ctx)
        guard
            case .next(.leaveAlone(let held)?) = AccelerometerDriverTable.buffer.openFailed(
                c, SensorError(device: "d", "busy", errno: EBUSY))
        else {
            Issue.record("EBUSY on open should leave the buffer alone")
            return
        }
        #expect(held.hasPrefix("auto: its device node /dev/iio:device0 is open in another program"))
        guard
            case .next(.auto(let why, _)?) = AccelerometerDriverTable.buffer.openFailed(
                c, SensorError(device: "d", "EIO"))
        else {
            Issue.record("a failed setup in auto mode should poll")
            return
        }
        #expect(why.hasPrefix("buffer setup failed ("))
        let strict = candidate(Self.device(), mode: .buffer, context: ctx)
        guard case .refuse = AccelerometerDriverTable.buffer.openFailed(strict, SensorError(device: "d", "EIO")) else {
            Issue.record("Sensor.mode = buffer refuses a buffer that fails")
            return
        }
    }

    @Test func withoutALibiioContextSysfsIsReadDirectly() {
        #expect(
            chosen(candidate(Self.device(), mode: .auto, context: nil))
                == "sysfs-poll: libiio cannot build a local context (unknown error); reading sysfs directly")
        #expect(
            chosen(candidate(Self.device(), mode: .buffer, context: nil)).hasPrefix(
                "refused: Sensor.mode = buffer, but libiio cannot"))
    }
}
