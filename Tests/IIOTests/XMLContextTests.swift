import Glibc
import TestSupport
import Testing

@testable import IIO

/// An accelerometer as libiio's XML backend describes one (the document libiio 0.24's
/// `iio_context_get_xml()` writes, DTD included so libxml2 validates it quietly): three
/// scan elements in the formats real drivers report, a timestamp, a channel that is not
/// a scan element, and a trigger.
private let accelerometerXML = """
    <?xml version="1.0" encoding="utf-8"?>
    <!DOCTYPE context [<!ELEMENT context (device | context-attribute)*><!ELEMENT context-attribute EMPTY>\
    <!ELEMENT device (channel | attribute | debug-attribute | buffer-attribute)*>\
    <!ELEMENT channel (scan-element?, attribute*)><!ELEMENT attribute EMPTY><!ELEMENT scan-element EMPTY>\
    <!ELEMENT debug-attribute EMPTY><!ELEMENT buffer-attribute EMPTY>\
    <!ATTLIST context name CDATA #REQUIRED version-major CDATA #REQUIRED version-minor CDATA #REQUIRED \
    version-git CDATA #REQUIRED description CDATA #IMPLIED>\
    <!ATTLIST context-attribute name CDATA #REQUIRED value CDATA #REQUIRED>\
    <!ATTLIST device id CDATA #REQUIRED name CDATA #IMPLIED label CDATA #IMPLIED>\
    <!ATTLIST channel id CDATA #REQUIRED type (input|output) #REQUIRED name CDATA #IMPLIED>\
    <!ATTLIST scan-element index CDATA #REQUIRED format CDATA #REQUIRED scale CDATA #IMPLIED>\
    <!ATTLIST attribute name CDATA #REQUIRED filename CDATA #IMPLIED>\
    <!ATTLIST debug-attribute name CDATA #REQUIRED><!ATTLIST buffer-attribute name CDATA #REQUIRED>]>
    <context name="xml" version-major="0" version-minor="24" version-git="v0.24" description="a tablet's accelerometer">
    <context-attribute name="local,kernel" value="6.1.0" />
    <device id="iio:device0" name="bmc150_accel" label="accel-display">
    <channel id="accel_x" type="input">
    <scan-element index="0" format="le:s12/16&gt;&gt;4" scale="0.009576" />
    <attribute name="raw" filename="in_accel_x_raw" /><attribute name="scale" filename="in_accel_scale" />
    </channel>
    <channel id="accel_y" type="input">
    <scan-element index="1" format="le:s12/16&gt;&gt;4" scale="0.009576" />
    <attribute name="raw" filename="in_accel_y_raw" /><attribute name="scale" filename="in_accel_scale" />
    </channel>
    <channel id="accel_z" type="input">
    <scan-element index="2" format="be:u10/32&gt;&gt;6" />
    <attribute name="raw" filename="in_accel_z_raw" />
    </channel>
    <channel id="timestamp" type="input"><scan-element index="3" format="le:S64/64&gt;&gt;0" /></channel>
    <channel id="temp" type="input"><attribute name="raw" filename="in_temp_raw" /></channel>
    <attribute name="sampling_frequency" />
    <buffer-attribute name="length" />
    </device>
    <device id="trigger0" name="bmc150_accel-dev0" />
    </context>
    """

/// A context of libiio's XML backend over `accelerometerXML` (`xml:FILE`).
private func accelerometerContext(_ scratch: ScratchDirectory) throws -> Context {
    try Context(uri: "xml:" + scratch.write(accelerometerXML, to: "accelerometer.xml"))
}

@Test func xmlContextListsItsDevicesAndAttributes() throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let context = try accelerometerContext(scratch)
    #expect(context.backendName == "xml")
    #expect(context.contextDescription == "a tablet's accelerometer")
    #expect(context.attributes["local,kernel"] == "6.1.0")
    #expect(context.devices.map(\.id) == ["iio:device0", "trigger0"])

    let accel = try #require(context.device(named: "iio:device0"))
    #expect(accel.name == "bmc150_accel")
    #expect(accel.label == "accel-display")
    #expect(!accel.isTrigger)
    #expect(accel.attributeNames == ["sampling_frequency"])
    #expect(accel.bufferAttributeNames == ["length"])
    #expect(context.device(named: "bmc150_accel")?.id == "iio:device0", "found by name too")
    #expect(context.device(named: "accel-display")?.id == "iio:device0", "and by label")
    #expect(context.device(named: "trigger0")?.isTrigger == true)
    #expect(context.device(named: "iio:device7") == nil)
}

@Test func channelsAreFoundByIdWithTheirScanIndexAndAttributes() throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let accel = try #require(try accelerometerContext(scratch).device(named: "iio:device0"))
    #expect(accel.channels.map(\.id) == ["accel_x", "accel_y", "accel_z", "timestamp", "temp"])

    let x = try #require(accel.channel("accel_x"))
    #expect(x.isScanElement && !x.isOutput)
    #expect(x.index == 0)
    #expect(x.attributeNames == ["raw", "scale"])
    #expect(x.fileName(ofAttribute: "scale") == "in_accel_scale")
    #expect(x.fileName(ofAttribute: "offset") == nil)
    #expect(accel.channel("timestamp")?.index == 3)

    let temp = try #require(accel.channel("temp"))
    #expect(!temp.isScanElement)
    #expect(temp.index == nil, "a channel without scan_elements files has no scan index")
    #expect(accel.channel("accel_x", output: true) == nil, "accel_x is an input")
    #expect(accel.channel("anglvel_x") == nil)
}

@Test(arguments: [
    // (channel, its scan element's format in the XML, what libiio decodes it to)
    (
        "accel_x", "le:s12/16>>4",
        DataFormat(length: 16, bits: 12, shift: 4, isSigned: true, isBigEndian: false, repeatCount: 1)
    ),
    (
        "accel_z", "be:u10/32>>6",
        DataFormat(length: 32, bits: 10, shift: 6, isSigned: false, isBigEndian: true, repeatCount: 1)
    ),
    (
        "timestamp", "le:S64/64>>0",
        DataFormat(length: 64, bits: 64, shift: 0, isSigned: true, isBigEndian: false, repeatCount: 1)
    ),
])
func dataFormatDecodesTheScanElementType(_ channel: String, _ type: String, _ expected: DataFormat) throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let accel = try #require(try accelerometerContext(scratch).device(named: "iio:device0"))
    #expect(try #require(accel.channel(channel)).dataFormat == expected, "\(type)")
}

@Test func sampleSizeCountsTheEnabledChannelsWithTheirAlignment() throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let accel = try #require(try accelerometerContext(scratch).device(named: "iio:device0"))
    let x = try #require(accel.channel("accel_x")), y = try #require(accel.channel("accel_y"))
    let z = try #require(accel.channel("accel_z")), t = try #require(accel.channel("timestamp"))
    #expect(!x.isEnabled)
    x.enable()
    y.enable()
    #expect(x.isEnabled && y.isEnabled && !z.isEnabled)
    #expect(try accel.sampleSize() == 4, "two 16-bit storage words")
    z.enable()
    #expect(try accel.sampleSize() == 8, "the 32-bit z word starts on a multiple of 4")
    t.enable()
    #expect(try accel.sampleSize() == 16, "the 64-bit timestamp starts on a multiple of 8")
    y.disable()
    #expect(!y.isEnabled)
    // x at 0, z at 4 (aligned to its 4 bytes), timestamp at 8.
    #expect(try accel.sampleSize() == 16)
}

@Test func aFailingCallNamesTheOperationTheAttributeAndTheErrno() throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let accel = try #require(try accelerometerContext(scratch).device(named: "iio:device0"))
    // The XML backend describes attributes but cannot read them: ENOSYS.
    let e = try #require(caught(IIOError.self) { _ = try accel.channel("accel_x")!.readAttribute("raw") })
    #expect(e.operation == "iio_channel_attr_read")
    #expect(e.target == "iio:device0/accel_x/raw")
    #expect(e.code == ENOSYS)
    #expect(e.description == "iio_channel_attr_read(iio:device0/accel_x/raw): \(e.message) (errno \(ENOSYS))")
    #expect(!e.message.isEmpty)

    let d = try #require(caught(IIOError.self) { _ = try accel.readAttribute("sampling_frequency") })
    #expect(d.operation == "iio_device_attr_read" && d.target == "iio:device0/sampling_frequency")
}

/// libxml2 and libiio also say it on standard error (`failed to load external entity`,
/// `Unable to parse XML file`), which would stand among the test run's results as if
/// something had failed: the call runs in a child process (an exit test) whose standard
/// error the test reads instead, and checks that it names the file.
@Test func aMissingXMLFileFailsNamingTheURI() async throws {
    let scratch = ScratchDirectory("iio-xml")
    defer { scratch.remove() }
    let uri = "xml:" + scratch.file("absent.xml")
    let child = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
        [uri = uri as String] in
        guard let e = caught(IIOError.self, { _ = try Context(uri: uri) }) else { exit(1) }
        guard e.operation == "iio_create_context_from_uri", e.target == uri, e.code > 0,
            e.description.hasPrefix("iio_create_context_from_uri(\(uri)): ")
        else { exit(2) }
    }
    #expect(String(decoding: child.standardErrorContent, as: UTF8.self).contains(scratch.file("absent.xml")))
}

@Test func iioStrerrorGivesTheSystemsWordingAndTheNumber() {
    #expect(
        IIOError(operation: "op", target: "t", code: ENOENT).message
            == "\(String(cString: strerror(ENOENT))) (\(ENOENT))")
}
