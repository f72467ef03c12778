import Testing

@testable import Color

struct RGB8HexTests {
    @Test(
        arguments: [("#000000", 0x00_0000), ("#202020", 0x20_2020), ("#ff00AA", 0xFF_00AA), ("#123456", 0x12_3456)]
            as [(String, UInt32)])
    func sixHexadecimalDigits(_ text: String, _ word: UInt32) {
        #expect(RGB8(hex: text)?.xrgb == word)
        #expect(RGB8(hex: text)?.hex == text.lowercased())
    }

    @Test(arguments: ["", "#", "202020", "#20202", "#2020200", "#20202g", "# 20202", "#+20202", "##20202", "#２02020"])
    func anythingElseIsNoColour(_ text: String) {
        #expect(RGB8(hex: text) == nil, "\(text)")
    }
}
