// Fuzzes the shared-memory header as readers meet it: `SharedMemoryHeader(bytes:)` on the
// first 128 bytes, and `SharedMemoryReader` on the whole input written as a segment
// (docs/SHM.md, "The object"; whoever creates the name chooses every byte).
//
// Properties, beyond returning (every overflow or out-of-bounds access traps):
// - a parsed header is within the format's bounds: 1...8192 px a side, stride at least
//   width * 4, 3...8 buffers, the first buffer page-aligned within the first MiB, each
//   buffer page-aligned and holding stride * height bytes; its total size is at most
//   1 MiB + 8 buffers of the largest frame;
// - its 128 bytes (`bytes`) parse back to the same header;
// - the writer's own layout for its size parses and has the same geometry;
// - the reader opens the input only when the header parses and the file holds the whole
//   layout; then `readNewest` either hands the body exactly one buffer inside the file
//   or says why not, and a truncation after the open is `.gone`, never a signal.
import FuzzSupport
import Glibc
import LinuxSystem
import SharedMemory

private let directory: String = {
    var template = Array("/tmp/fuzz-shm-XXXXXX".utf8CString)
    guard let p = mkdtemp(&template) else { fatalError("mkdtemp") }
    return String(cString: p)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShmHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let header = SharedMemoryHeader(bytes: input)
    if let h = header {
        require((1...SharedMemoryHeader.maximumDimension).contains(h.width)
                && (1...SharedMemoryHeader.maximumDimension).contains(h.height), "size \(h.width) x \(h.height)")
        require(UInt64(h.stride) >= UInt64(h.width) * 4, "stride \(h.stride) for width \(h.width)")
        require((3...SharedMemoryHeader.maximumBufferCount).contains(h.bufferCount), "\(h.bufferCount) buffers")
        require(h.bufferOffset % 4096 == 0 && h.bufferOffset <= SharedMemoryHeader.maximumBufferOffset,
                "buffer offset \(h.bufferOffset)")
        require(h.bufferSize % 4096 == 0 && UInt64(h.stride) * UInt64(h.height) <= h.bufferSize, "buffer size \(h.bufferSize)")
        let largest = (Int(SharedMemoryHeader.maximumDimension) * 4 + 4096) * Int(SharedMemoryHeader.maximumDimension)
        require(h.totalSize <= Int(SharedMemoryHeader.maximumBufferOffset) + 8 * largest, "total \(h.totalSize)")
        // Bytes, not ==: a NaN focal point (a writer's bits, kept as they are) is not equal
        // to itself.
        require(SharedMemoryHeader(bytes: h.bytes)?.bytes == h.bytes, "\(h) does not read back from its bytes")
        let own = SharedMemoryHeader(width: Int(h.width), height: Int(h.height))
        require(SharedMemoryHeader(bytes: own.bytes).map { $0.hasSameLayout(as: own) } == true,
                "the writer's layout for \(h.width) x \(h.height) does not parse")
    }
    // The reader, on the input as a file (small inputs only: the file is the input).
    let path = directory + "/seg"
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o640)
    require(fd >= 0, "cannot create \(path)")
    fchmod(fd, 0o640)
    _ = input.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    do {
        let reader = try SharedMemoryReader(name: "seg", directory: directory)
        require(header != nil && size >= reader.header.totalSize, "opened \(size) bytes with header \(String(describing: header))")
        var handed = 0
        let read = reader.readNewest { _ in handed += 1 }
        switch read {
        case .frame: require(handed == 1, "frame without one body call")
        case .noFrame, .torn, .gone: require(handed <= 1, "\(handed) body calls")
        }
        truncate(path, 64)
        let after = reader.readNewest { _ in require(false, "a body call after truncation") }
        require(after == .gone || after == .noFrame, "after truncation: \(after)")
    } catch {
        require(!error.description.isEmpty, "empty refusal")
    }
    return 0
}
