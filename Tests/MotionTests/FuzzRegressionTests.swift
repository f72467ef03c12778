// Regression inputs of the parsers fuzzed under Fuzz/ (scripts/fuzz.sh, docs/RELIABILITY.md
// "Fuzzing"): each must be handled as its target's properties require.
import Testing

@testable import Motion

/// FuzzScanDecoder: a huge BITS or SHIFT must not make `bits + shift` overflow in
/// `ScanType.init` (a trap, that is a crash of the daemon on a bad sysfs attribute).
@Test(arguments: [
    "le:s9223372036854775807/64>>1", "le:u1/64>>9223372036854775807",
    "be:s9223372036854775807/8>>9223372036854775807", "le:s-9223372036854775808/64>>0",
])
func scanTypeWithHugeSizesIsRefused(_ text: String) {
    #expect(throws: ScanType.ParseError.self) { try ScanType.parse(text).get() }
    #expect(ScanType(bigEndian: false, signed: true, bits: Int.max, storageBits: 64, shift: 1) == nil)
}

/// FuzzSysfsNumber: "\r\n" is one `Character`, so trimming by `Character` would keep a
/// CRLF ending, and white space around the text would change the result.
@Test(arguments: [
    ("\t\r\n \r\n", SysfsNumber.Failure.empty), ("\r\n", .empty), ("12 34\r\n", .notANumber("12 34")),
])
func sysfsNumberTrimsCRLF(_ text: String, _ failure: SysfsNumber.Failure) {
    #expect(SysfsNumber.parse(text) == .failure(failure))
}

@Test(arguments: [("504\r\n", 504.0), (" \t-89\r\n", -89), ("\r\n0.019154\r\n", 0.019154)])
func sysfsNumberParsesWithCRLF(_ text: String, _ value: Double) {
    #expect(SysfsNumber.parse(text) == .success(value))
}

@Test func mountMatrixAndScanTypeTrimCRLF() throws {
    let m = try MountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1\r\n").get()
    #expect(m.description == "0, 1, 0; -1, 0, 0; 0, 0, 1")
    #expect(try ScanType.parse("le:s12/16>>4\r\n").get().description == "le:s12/16>>4")
}
