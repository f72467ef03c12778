/// The 128-byte header of the shared-memory frames object (docs/SHM.md,
/// "The object"), little-endian. The offsets are the contract; the unit tests
/// check them against that table.
package struct SharedMemoryHeader: Sendable, Equatable {
    package static let magic: [UInt8] = Array("SHMR".utf8)
    package static let version: UInt32 = 1
    package static let size = 128
    /// DRM_FORMAT_XRGB8888, fourcc "XR24": bytes B, G, R, X in memory.
    package static let xrgb8888: UInt32 = 0x3432_5258
    /// Buffers start on page boundaries so readers can map one buffer on its own.
    package static let alignment = 4096
    package static let minimumBufferCount = 3
    /// Bounds every reader and the writer hold to, so that no header, however crafted,
    /// makes arithmetic on it overflow or a reader allocate without bound: at most
    /// 8192 px a side (a 4K panel's card fits twice over), at most 8 buffers, the first
    /// buffer within the first MiB.
    package static let maximumDimension: UInt32 = 8192
    package static let maximumBufferCount: UInt32 = 8
    package static let maximumBufferOffset: UInt64 = 1 << 20

    /// Byte offsets of the fields.
    package enum Offset {
        package static let magic = 0
        package static let version = 4
        package static let headerSize = 8
        package static let width = 12
        package static let height = 16
        package static let stride = 20
        package static let fourcc = 24
        package static let bufferCount = 28
        package static let bufferOffset = 32
        package static let bufferSize = 40
        /// u64; its low 32 bits (offset 48, little-endian) are the futex word.
        package static let frame = 48
        package static let frameTimeNanoseconds = 56
        package static let focalX = 64
        package static let focalY = 68
        package static let writerPID = 72
        package static let reserved = 76
    }

    package var width: UInt32
    package var height: UInt32
    package var stride: UInt32
    package var fourcc: UInt32 = SharedMemoryHeader.xrgb8888
    package var bufferCount: UInt32
    package var bufferOffset: UInt64
    package var bufferSize: UInt64
    package var frame: UInt64 = 0
    package var frameTimeNanoseconds: UInt64 = 0
    package var focalX: Float = 0
    package var focalY: Float = 0
    package var writerPID: UInt32 = 0

    /// The layout for a `width` x `height` XRGB8888 card and `bufferCount` buffers:
    /// stride width * 4, the first buffer at 4096, each buffer rounded up to 4096 bytes.
    package init(width: Int, height: Int, bufferCount: Int = SharedMemoryHeader.minimumBufferCount) {
        precondition(bufferCount >= Self.minimumBufferCount, "the shm format needs at least 3 buffers")
        self.width = UInt32(width)
        self.height = UInt32(height)
        stride = UInt32(width * 4)
        self.bufferCount = UInt32(bufferCount)
        bufferOffset = UInt64(Self.roundUp(Self.size))
        bufferSize = UInt64(Self.roundUp(width * 4 * height))
    }

    static func roundUp(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    /// Bytes of the whole object.
    package var totalSize: Int { Int(bufferOffset) + Int(bufferCount) * Int(bufferSize) }

    /// Offset of buffer `k` from the start of the object.
    package func offset(ofBuffer k: Int) -> Int { Int(bufferOffset) + k * Int(bufferSize) }

    /// The 128 header bytes.
    package var bytes: [UInt8] {
        var b = [UInt8](repeating: 0, count: Self.size)
        func put<T: FixedWidthInteger>(_ v: T, _ at: Int) {
            withUnsafeBytes(of: v.littleEndian) { for (i, x) in $0.enumerated() { b[at + i] = x } }
        }
        b.replaceSubrange(0..<4, with: Self.magic)
        put(Self.version, Offset.version)
        put(UInt32(Self.size), Offset.headerSize)
        put(width, Offset.width)
        put(height, Offset.height)
        put(stride, Offset.stride)
        put(fourcc, Offset.fourcc)
        put(bufferCount, Offset.bufferCount)
        put(bufferOffset, Offset.bufferOffset)
        put(bufferSize, Offset.bufferSize)
        put(frame, Offset.frame)
        put(frameTimeNanoseconds, Offset.frameTimeNanoseconds)
        put(focalX.bitPattern, Offset.focalX)
        put(focalY.bitPattern, Offset.focalY)
        put(writerPID, Offset.writerPID)
        return b
    }

    /// Parses header bytes; nil when the magic, version or header size differ or the
    /// layout is not self-consistent.
    package init?(bytes b: [UInt8]) {
        guard b.count >= Self.size, Array(b[0..<4]) == Self.magic else { return nil }
        func get<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            var v = T.zero
            withUnsafeMutableBytes(of: &v) { for i in 0..<MemoryLayout<T>.size { $0[i] = b[at + i] } }
            return T(littleEndian: v)
        }
        guard get(Offset.version, UInt32.self) == Self.version, get(Offset.headerSize, UInt32.self) == UInt32(Self.size)
        else {
            return nil
        }
        width = get(Offset.width, UInt32.self)
        height = get(Offset.height, UInt32.self)
        stride = get(Offset.stride, UInt32.self)
        fourcc = get(Offset.fourcc, UInt32.self)
        bufferCount = get(Offset.bufferCount, UInt32.self)
        bufferOffset = get(Offset.bufferOffset, UInt64.self)
        bufferSize = get(Offset.bufferSize, UInt64.self)
        frame = get(Offset.frame, UInt64.self)
        frameTimeNanoseconds = get(Offset.frameTimeNanoseconds, UInt64.self)
        focalX = Float(bitPattern: get(Offset.focalX, UInt32.self))
        focalY = Float(bitPattern: get(Offset.focalY, UInt32.self))
        writerPID = get(Offset.writerPID, UInt32.self)
        // Every field bounded before any arithmetic on it (a crafted header must not trap).
        guard (1...Self.maximumDimension).contains(width), (1...Self.maximumDimension).contains(height),
            UInt64(stride) >= UInt64(width) * 4,
            UInt64(stride) <= UInt64(Self.maximumDimension) * 4 + UInt64(Self.alignment),
            (UInt32(Self.minimumBufferCount)...Self.maximumBufferCount).contains(bufferCount),
            bufferOffset >= UInt64(Self.size), bufferOffset <= Self.maximumBufferOffset,
            bufferOffset % UInt64(Self.alignment) == 0,
            bufferSize % UInt64(Self.alignment) == 0, UInt64(stride) * UInt64(height) <= bufferSize,
            bufferSize <= UInt64(Self.roundUp(Int(stride) * Int(height)))
        else { return nil }
    }

    /// Why a `width` x `height` card cannot be shared in this format; nil when it can.
    package static func unsupportedSize(width: Int, height: Int) -> String? {
        guard width < 1 || height < 1 || width > Int(maximumDimension) || height > Int(maximumDimension) else {
            return nil
        }
        return "the card is \(width) x \(height) px; a shared-memory segment holds at most "
            + "\(maximumDimension) x \(maximumDimension)"
    }

    /// Same geometry and buffers (what a restarted writer needs to reuse an object).
    package func hasSameLayout(as other: SharedMemoryHeader) -> Bool {
        width == other.width && height == other.height && stride == other.stride && fourcc == other.fourcc
            && bufferCount == other.bufferCount && bufferOffset == other.bufferOffset && bufferSize == other.bufferSize
    }
}
