import FoundationEssentials
import Testing
import Tracing

@testable import Commands

/// `sensors --json` and `monitor --json` quote names and reasons with the trace's own
/// escaping: what a device calls itself reads back as it was, and no control character
/// reaches the output raw.
struct SensorJSONTests {
    @Test(arguments: ["bmc150 accel", "a\"b\\c", "line\nbreak\r\tx\u{1b}]0;owned\u{07}", "accéléromètre ✓", ""])
    func stringsAreEscapedAsTheTraceEscapesThem(_ name: String) throws {
        let text = SensorJSON.object([("name", .string(name))]).text
        var quoted: [UInt8] = []
        TraceJSON.appendString(name, to: &quoted)
        #expect(text == "{\"name\":" + String(decoding: quoted, as: UTF8.self) + "}")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        let back = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        #expect(back["name"] == name)
    }
}
