import CPNG

/// Animated PNG (APNG, the W3C PNG 3rd edition's acTL/fcTL/fdAT chunks) assembled from
/// PNG files libpng wrote: Debian's libpng has no APNG writer, but every frame's IDAT
/// data can be carried over unchanged; only chunk framing and CRCs (zlib's `crc32`)
/// are added here.
package enum APNG {
    /// One animation from same-sized 8-bit RGBA PNGs, each shown `delayNumerator /
    /// delayDenominator` seconds, looping forever.
    package static func assemble(_ frames: [[UInt8]], delayNumerator: UInt16, delayDenominator: UInt16) throws
        -> [UInt8]
    {
        try assemble(
            frames,
            delays: Array(
                repeating: Delay(numerator: delayNumerator, denominator: delayDenominator),
                count: frames.count))
    }

    /// How long one frame is shown: `numerator / denominator` seconds (fcTL delay_num, delay_den).
    package struct Delay: Equatable, Sendable {
        package var numerator: UInt16
        package var denominator: UInt16
    }

    /// Delays for frames shown from `times` (seconds, ascending) on, the last until `end`:
    /// milliseconds, each the difference of the rounded times, so the delays add up to
    /// `end - times[0]` to the millisecond however many frames there are. A gap past 65.535 s
    /// is given in whole seconds.
    package static func delays(showingAt times: [Double], until end: Double) -> [Delay] {
        let ms = (times + [max(end, times.last ?? end)]).map { ($0 * 1000).rounded() }
        return (0..<times.count).map { i in
            let gap = max(0, ms[i + 1] - ms[i])
            return gap <= 65535
                ? Delay(numerator: UInt16(gap), denominator: 1000)
                : Delay(numerator: UInt16(min(65535, (gap / 1000).rounded())), denominator: 1)
        }
    }

    /// One animation from same-sized 8-bit RGBA PNGs, frame i shown for `delays[i]`,
    /// looping forever.
    package static func assemble(_ frames: [[UInt8]], delays: [Delay]) throws -> [UInt8] {
        guard let first = frames.first else { throw PNGError(operation: "APNG", message: "no frames") }
        guard delays.count == frames.count else {
            throw PNGError(operation: "APNG", message: "\(delays.count) delays for \(frames.count) frames")
        }
        let ihdr = try chunks(first).first { $0.type == "IHDR" }
        guard let ihdr, ihdr.data.count == 13 else {
            throw PNGError(operation: "APNG", message: "first frame has no IHDR")
        }
        var out: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        append(&out, "IHDR", ihdr.data)
        append(&out, "acTL", be32(UInt32(frames.count)) + be32(0))
        var sequence: UInt32 = 0
        for (index, png) in frames.enumerated() {
            let parts = try chunks(png)
            guard let header = parts.first(where: { $0.type == "IHDR" }), header.data == ihdr.data else {
                throw PNGError(operation: "APNG", message: "frame \(index) differs in size or format from the first")
            }
            // fcTL: sequence, width, height, x, y, delay num/den, dispose 0 (none), blend 0 (source).
            append(
                &out, "fcTL",
                be32(sequence) + Array(ihdr.data[0..<8]) + be32(0) + be32(0)
                    + be16(delays[index].numerator) + be16(delays[index].denominator) + [0, 0])
            sequence += 1
            for idat in parts where idat.type == "IDAT" {
                if index == 0 {
                    append(&out, "IDAT", idat.data)
                } else {
                    append(&out, "fdAT", be32(sequence) + idat.data)
                    sequence += 1
                }
            }
        }
        append(&out, "IEND", [])
        return out
    }

    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    static func chunks(_ png: [UInt8]) throws -> [Chunk] {
        guard png.count >= 8, Array(png[0..<8]) == [137, 80, 78, 71, 13, 10, 26, 10] else {
            throw PNGError(operation: "APNG", message: "not a PNG")
        }
        var list = [Chunk]()
        var i = 8
        while i + 12 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            guard i + 12 + length <= png.count else { throw PNGError(operation: "APNG", message: "truncated chunk") }
            let type = String(decoding: png[i + 4..<i + 8], as: UTF8.self)
            list.append(Chunk(type: type, data: Array(png[i + 8..<i + 8 + length])))
            i += 12 + length
        }
        return list
    }

    static func append(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(UInt32(data.count))
        let body = typeBytes + data
        out += body
        let crc = body.withUnsafeBufferPointer { shim_crc32($0.baseAddress, UInt32($0.count)) }
        out += be32(UInt32(truncatingIfNeeded: crc))
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
