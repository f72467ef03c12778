import Foundation
import Motion
import Sensors
import TestSupport
import Testing

@testable import Runtime

func parse(_ text: String, file: String = "test.conf") throws(Failure) -> Configuration {
    var config = Configuration()
    try ConfigurationLoader.parse(text, file: file, into: &config)
    return config
}

func failure(_ body: () throws -> Void) -> Failure? { caught(Failure.self, body) }

@Test func defaultsMatchTheInterfacesTable() {
    let c = Configuration()
    #expect(c.sensor.device == .auto && c.sensor.mode == .auto && c.sensor.rate == 60)
    #expect(c.sensor.mountMatrix == nil && !c.sensor.invert)
    #expect(c.attitude.baselineSamples == 10 && c.attitude.filter == .oneEuro)
    #expect(c.mapper.rollRange == 0.2 && c.mapper.pitchRange == 0.1 && c.mapper.maxOffset == 100 && c.mapper.clamp)
    #expect(c.card.width == 350 && abs(c.card.effectiveHeight - 233.333) < 0.001 && c.card.scale == 2)
    #expect(c.sink.type == .auto && c.sink.device == "auto" && c.sink.connector == "auto" && c.sink.position == nil)
    #expect(c.sink.name == "shimmer" && c.sink.mode == 0o640 && c.sink.path == "-" && c.sink.fps == 60)
    #expect(c.trace.path == "")
}

@Test func parsesSectionsKeysCommentsAndCase() throws {
    let c = try parse(
        """
        # comment
        ; another
        [sensor]
        Device = iio:device3
        RATE=100

        [Card]
        scale = 1.5
        origin = 10, 20
        [Sink]
        type = shm
        mode = 0600
        position = 5,6
        """)
    #expect(c.sensor.device == .iioDevice(3) && c.sensor.rate == 100)
    #expect(c.card.scale == 1.5 && c.card.origin?.x == 10 && c.card.origin?.y == 20)
    #expect(c.sink.type == .shm && c.sink.mode == 0o600 && c.sink.position?.x == 5)
}

@Test(arguments: [
    ("[Card]\nscale = fast\n", "test.conf:2", "Card.scale"),
    ("[Card]\nscale = -1\n", "test.conf:2", "a number from"),
    ("[Card]\nwidth = nan\n", "test.conf:2", "Card.width"),
    ("[Card]\ncolour = red\n", "test.conf:2", "unknown key \"colour\""),
    ("\n\n[Bogus]\n", "test.conf:3", "unknown section [Bogus]"),
    ("key = value\n", "test.conf:1", "outside any [Section]"),
    ("[Sink]\ntype = window\n", "test.conf:2", "auto, drm, framebuffer, shm, raw, png or null"),
    ("[Sensor]\ndevice = usb:3\n", "test.conf:2", "Sensor.device"),
    // iio:deviceN and input:eventN name kernel devices, whose numbers have no sign and
    // no leading zero: the grammar the sensors match devices by refuses these at load.
    ("[Sensor]\ndevice = iio:device01\n", "test.conf:2", "Sensor.device = \"iio:device01\" is not auto, iio:deviceN"),
    ("[Sensor]\ndevice = iio:device+1\n", "test.conf:2", "Sensor.device = \"iio:device+1\" is not auto"),
    ("[Sensor]\ndevice = input:event007\n", "test.conf:2", "Sensor.device = \"input:event007\" is not auto"),
    ("[Sensor]\ngyro = iio:device02\n", "test.conf:2", "Sensor.gyro = \"iio:device02\" is not auto, none"),
    ("[Sensor]\nmode = Buffer\n", "test.conf:2", "Sensor.mode = \"Buffer\" is not auto, poll or buffer"),
    ("[Sensor]\nmount_matrix = 1, 0, 0; 0, 0, 0; 0, 0, 1\n", "test.conf:2", "Sensor.mount_matrix"),
    ("[Sensor]\ninvert = maybe\n", "test.conf:2", "true or false"),
    ("[Sink]\nmode = 0999\n", "test.conf:2", "octal"),
    ("[Card\n", "test.conf:1", "malformed section"),
    ("[Card]\njust words\n", "test.conf:2", "key = value"),
    ("[Card]\nwidth = 0x10\n", "test.conf:2", "Card.width"),
    ("[Card]\norigin = 0x1,2\n", "test.conf:2", "Card.origin"),
    ("[Sensor]\nrate = infinity\n", "test.conf:2", "Sensor.rate"),
    (
        "[Sensor]\nrate = 30 # thirty\n", "test.conf:2",
        "inline comments are not supported; put the comment on its own line"
    ),
])
func badLinesNameFileAndLine(_ text: String, _ at: String, _ mention: String) {
    let f = failure { _ = try parse(text) }
    #expect(f?.status == .configuration)
    #expect(f?.message.hasPrefix(at + ":") == true, "\(f?.message ?? "no failure")")
    #expect(f?.message.contains(mention) == true, "\(f?.message ?? "no failure")")
}

/// A mount matrix is parsed once, where it is read: the configuration holds the matrix
/// (nil for auto), and check-config shows it in the kernel's text form.
@Test func mountMatricesAreHeldAsMatrices() throws {
    let c = try parse("[Sensor]\nmount_matrix = 0,1,0;-1,0,0;0,0,1\ngyro_mount_matrix = auto\n")
    #expect(c.sensor.mountMatrix == MountMatrix(rows: [Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1)]))
    #expect(c.sensor.gyroMountMatrix == nil)
    #expect(ConfigurationLoader.render(c).contains("\nmount_matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1\n"))
    #expect(MotionConfiguration(c).sensor.mountMatrix == c.sensor.mountMatrix)
}

@Test func setOverridesWinAndAreChecked() throws {
    var c = Configuration()
    try ConfigurationLoader.applyOverride("Card.width=200", to: &c)
    try ConfigurationLoader.applyOverride("sink.TYPE = png", to: &c)
    #expect(c.card.width == 200 && c.sink.type == .png)
    #expect(abs(c.card.effectiveHeight - 133.333) < 0.001)
    #expect(failure { try ConfigurationLoader.applyOverride("Card.width", to: &c) }?.status == .usage)
    let unknown = failure { try ConfigurationLoader.applyOverride("Card.depth=3", to: &c) }
    #expect(unknown?.status == .configuration && unknown?.message.contains("--set Card.depth=3") == true)
}

@Test func fileThenDropInsInLexicalOrderThenSet() throws {
    let scratch = ScratchDirectory("shimmerd-config")
    defer { scratch.remove() }
    try FileManager.default.createDirectory(atPath: scratch.file("main.conf.d"), withIntermediateDirectories: true)
    let main = scratch.file("main.conf")
    try "[Sink]\nfps = 30\ntype = null\n[Card]\nscale = 1\n".write(toFile: main, atomically: true, encoding: .utf8)
    try "[Sink]\nfps = 45\n".write(toFile: main + ".d/20-b.conf", atomically: true, encoding: .utf8)
    try "[Sink]\nfps = 40\nname = early\n".write(toFile: main + ".d/10-a.conf", atomically: true, encoding: .utf8)
    try "[Sink]\nfps = 1\n".write(toFile: main + ".d/99-ignored.txt", atomically: true, encoding: .utf8)
    let c = try ConfigurationLoader.load(path: main, overrides: ["Card.scale=3"])
    #expect(c.sink.fps == 45)  // 20-b after 10-a; .txt ignored
    #expect(c.sink.name == "early")
    #expect(c.sink.type == .null)
    #expect(c.card.scale == 3)  // --set wins
    // A broken drop-in names its own file and line.
    try "[Sink]\n\nfps = many\n".write(toFile: main + ".d/30-bad.conf", atomically: true, encoding: .utf8)
    let f = failure { _ = try ConfigurationLoader.load(path: main, overrides: []) }
    #expect(f?.status == .configuration)
    #expect(f?.message.contains("30-bad.conf:3") == true)
}

@Test func missingExplicitFileIsNoInput() {
    let f = failure { _ = try ConfigurationLoader.load(path: "/nonexistent/shimmerd.conf", overrides: []) }
    #expect(f?.status == .noInput)
}

@Test func checkConfigOutputParsesBackToTheSameConfiguration() throws {
    var c = Configuration()
    try ConfigurationLoader.applyOverride("Card.origin=1.5,2", to: &c)
    try ConfigurationLoader.applyOverride("Trace.path=/tmp/t.jsonl", to: &c)
    let text = ConfigurationLoader.render(c)
    #expect(try parse(text) == c)
}

@Test func shippedConfigFileDocumentsEveryKeyWithItsDefault() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../config/shimmerd.conf").standardized.path
    let shipped = try String(contentsOfFile: path, encoding: .utf8)
    #expect(
        shipped == ConfigurationLoader.documentedDefaults(),
        "config/shimmerd.conf is out of date: regenerate with `shimmerd check-config --documented > config/shimmerd.conf`"
    )
    // Uncommenting every key gives the defaults back.
    let uncommented = shipped.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.hasPrefix("#") && $0.contains(" = ") && !$0.hasPrefix("# ") ? String($0.dropFirst()) : String($0) }
        .joined(separator: "\n")
    #expect(try parse(uncommented) == Configuration())
}

@Test(arguments: [
    ([UInt8]("ok\n".utf8) + [0xFF], 2, 3),
    ([0x61, 0x0A, 0x0A, 0xC3, 0x28], 3, 3),
    ([0xE2, 0x82], 1, 0),
])
func firstInvalidUTF8ByteIsFoundByLineAndOffset(_ bytes: [UInt8], _ line: Int, _ offset: Int) {
    let found = ConfigurationLoader.firstInvalidUTF8(bytes)
    #expect(found.line == line && found.offset == offset)
}

/// A file others may not read is never quoted in an error line: each kind of error names
/// the file and line and says what is wrong, without the text (a root-only file would
/// otherwise be read a line at a time through `check-config`'s errors). Quoted otherwise.
@Test(arguments: [
    "root:$6$secret:19000:0:99999:7:::\n",
    "[root:$6$secret\n",
    "[Secret$6$]\n",
    "root=$6$secret\n",
    "[Sensor]\nsecret$6$ = 1\n",
    "[Sensor]\nrate = secret$6$\n",
    "[Sensor]\nmount_matrix = 1, 0, 0; 0, 1, 0; 0, 0, secret$6$\n",
    "[Secret$6$]\nx = 1\n",
])
func aFileOthersMayNotReadIsNeverQuoted(text: String) {
    var config = Configuration()
    let hidden = caught(Failure.self) {
        try ConfigurationLoader.parse(text, file: "/etc/shadow", into: &config, quoting: false)
    }
    let shown = caught(Failure.self) { try ConfigurationLoader.parse(text, file: "/etc/shadow", into: &config) }
    #expect(hidden != nil && shown != nil)
    #expect(!"\(hidden!)".contains("secret") && !"\(hidden!)".contains("$6$"), "\(hidden!)")
    #expect(
        "\(hidden!)".contains("/etc/shadow:") && "\(hidden!)".contains("(not shown: others may not read /etc/shadow)"))
    #expect("\(shown!)".contains("ecret"), "\(shown!)")
}
