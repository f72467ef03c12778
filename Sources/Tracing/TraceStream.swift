import FoundationEssentials
import Glibc
import LinuxSystem

/// A trace read record by record, for a trace played as the sensor (`Sensor.device =
/// trace:FILE`) and for `check-config`'s look at one.
///
/// Why not `TraceReader.read`: a trace of millions of records read whole costs seconds
/// and hundreds of megabytes before its first record can be used, and a recording of any
/// length is a fair thing to play. Here memory is one chunk of the file plus the line
/// being read (a line longer than `maximumLineLength` is an error naming it), whatever
/// the file's size, and the first record is there after the first chunk.
///
/// Each line is judged by `TraceReader.parseLine`, so the records, the errors (with
/// their line numbers), the skipped unknown types and the dropped partial last line are
/// those `TraceReader.read` gives for the same file; only when they are met differs.
package final class TraceStream {
    /// The longest line read (a header is a few kilobytes, a record a few hundred bytes).
    package static let maximumLineLength = 1 << 20
    /// Bytes read from the file at a time.
    static let chunkSize = 1 << 16

    package let path: String
    private let fd: FileDescriptor?
    /// Entries served from memory instead of a file (tests, traces already read).
    private var memory: [TraceEntry]
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: TraceStream.chunkSize)
    /// The first byte of `buffer` not yet consumed.
    private var start = 0
    /// The file offset just past `buffer`'s last byte.
    private var offset = 0
    private var endOfFile = false
    private let decoder = JSONDecoder()
    /// Lines read so far.
    package private(set) var lineCount = 0
    /// Records of types this version does not know, by type: skipped, counted.
    package private(set) var unknownTypes: [String: Int] = [:]
    /// The file ended in a partial line that did not parse (a crash mid-write): dropped.
    package private(set) var truncatedLastLine = false
    /// Every record has been read.
    package private(set) var isAtEnd = false

    /// Opens `path`: a regular file, opened without blocking (a FIFO is refused at once).
    /// A file that cannot be opened is an error without a line, as in `TraceReader.read`.
    package init(path: String) throws(TraceReadError) {
        self.path = path
        memory = []
        do { fd = try FileSystem.openRegularFile(path).0 } catch {
            throw TraceReadError(path: path, line: nil, message: "cannot read: \(error)")
        }
    }

    /// Serves `entries`, in order, as if read from `path`.
    package init(entries: [TraceEntry], path: String) {
        self.path = path
        fd = nil
        memory = entries.reversed()
    }

    /// The next record this version knows; nil at the end. A damaged line throws the
    /// error `TraceReader.read` gives for it (file:line and why).
    package func next() throws(TraceReadError) -> TraceEntry? {
        guard fd != nil else {
            if memory.isEmpty { isAtEnd = true }
            return memory.popLast()
        }
        while !isAtEnd {
            guard let (line, isLast) = try nextLine() else {
                isAtEnd = true
                break
            }
            lineCount += 1
            switch try TraceReader.parseLine(
                line, number: lineCount, isLast: isLast, path: path, boundingTimes: true,
                decoder: decoder, unknownTypes: &unknownTypes)
            {
            case .entry(let entry): return entry
            case .skipped: continue
            case .partial:
                truncatedLastLine = true
                isAtEnd = true
            }
        }
        return nil
    }

    /// Reads every remaining record, keeping none (`check-config`).
    package func readToEnd() throws(TraceReadError) {
        while try next() != nil {}
    }

    /// The next line without its newline, and whether the file ends in it without one;
    /// nil at the end of the file.
    private func nextLine() throws(TraceReadError) -> (ArraySlice<UInt8>, Bool)? {
        var searched = start
        while true {
            let newline = Self.newline(in: buffer, from: searched)
            let end = newline ?? buffer.count
            guard end - start <= Self.maximumLineLength else {
                throw TraceReadError(
                    path: path, line: lineCount + 1,
                    message: "a line longer than \(Self.maximumLineLength) bytes is not a trace record")
            }
            if let newline {
                defer { start = newline + 1 }
                return (buffer[start..<newline], false)
            }
            if endOfFile {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return (buffer[start...], true)
            }
            // `fill` moves the unconsumed bytes to the front: the search goes on after them.
            searched = buffer.count - start
            try fill()
        }
    }

    /// The index of the first newline at or after `from`: memchr(3), as a generic
    /// search over a slice costs more than decoding the line in a debug build.
    private static func newline(in bytes: [UInt8], from: Int) -> Int? {
        bytes.withUnsafeBufferPointer { p in
            guard from < p.count, let base = p.baseAddress,
                let hit = memchr(base + from, 0x0A, p.count - from)
            else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Drops the consumed bytes and appends the next chunk of the file (read into
    /// `chunk`, allocated once, then copied: appending zeros to read in place costs an
    /// element-by-element loop in a debug build).
    private func fill() throws(TraceReadError) {
        guard let fd else { return }
        buffer.removeSubrange(0..<start)
        start = 0
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { try fd.read(at: offset, into: $0) }
        } catch {
            throw TraceReadError(path: path, line: nil, message: "cannot read: \(error)")
        }
        buffer.append(contentsOf: chunk[0..<n])
        offset += n
        if n == 0 { endOfFile = true }
    }
}
