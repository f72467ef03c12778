/// A view of XRGB8888 pixels: `height` rows of `width` 32-bit words, rows `stride`
/// bytes apart. It does not own its memory: the owner (a `PixelBuffer`, an mmap'd
/// framebuffer, a shared-memory segment) must outlive every use.
package struct Pixmap: @unchecked Sendable {
    package let base: UnsafeMutableRawPointer
    package let width: Int
    package let height: Int
    /// Bytes from one row to the next, at least `width * 4`.
    package let stride: Int

    package init(base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) {
        precondition(width >= 0 && height >= 0 && stride >= width * 4, "Pixmap: stride smaller than a row")
        precondition(Int(bitPattern: base) % 4 == 0, "Pixmap: base not 4-byte aligned")
        self.base = base
        self.width = width
        self.height = height
        self.stride = stride
    }

    /// The first word of row `y`.
    @inlinable
    package func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        (base + y * stride).assumingMemoryBound(to: UInt32.self)
    }

    @inlinable
    package subscript(x: Int, y: Int) -> UInt32 {
        get { row(y)[x] }
        nonmutating set { row(y)[x] = newValue }
    }

    /// Sets every pixel to `word`.
    package func fill(_ word: UInt32) {
        for y in 0..<height {
            row(y).update(repeating: word, count: width)
        }
    }
}

/// Heap memory for a `Pixmap`, freed with the buffer.
package final class PixelBuffer: @unchecked Sendable {
    package let pixmap: Pixmap
    private let memory: UnsafeMutableRawPointer

    package init(width: Int, height: Int, stride: Int? = nil) {
        let rowBytes = stride ?? width * 4
        let bytes = max(rowBytes * height, 4)
        memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        pixmap = Pixmap(base: memory, width: width, height: height, stride: rowBytes)
    }

    deinit { memory.deallocate() }

    /// A copy of the pixels, row by row without padding (for tests and PNG export).
    package var words: [UInt32] {
        var out = [UInt32]()
        out.reserveCapacity(pixmap.width * pixmap.height)
        for y in 0..<pixmap.height {
            out.append(contentsOf: UnsafeBufferPointer(start: pixmap.row(y), count: pixmap.width))
        }
        return out
    }
}
