import Glibc
import LinuxSystem
import Raster
import TestSupport
import Testing

@testable import Output
@testable import SharedMemory

/// The reader against the sink, in a scratch directory standing in for /dev/shm.
@Suite(.serialized)
final class SharedMemoryReaderTests {
    let scratch = ScratchDirectory("shm-reader-test")
    var dir: String { scratch.path }

    func sink(_ name: String, width: Int = 6, height: Int = 4) throws -> SharedMemorySink {
        try SharedMemorySink(name: name, mode: 0o640, width: width, height: height, directory: dir, log: quietLog)
    }

    /// Paints the next buffer with one word and publishes it.
    func publish(_ s: SharedMemorySink, word: UInt32, focal: (Double, Double)) throws {
        let slot = s.nextSlot()
        s.target(slot: slot).pixmap.fill(word)
        try s.publish(slot: slot, FrameInfo(number: s.frame + 1, timeNanoseconds: 1, focalX: focal.0, focalY: focal.1))
    }

    /// The words of a frame handed to `readNewest`'s body.
    func words(_ r: SharedMemoryReader) -> ([UInt32], SharedMemoryReader.Read) {
        var got: [UInt32] = []
        let read = r.readNewest { (p: UnsafeRawPointer) in
            for y in 0..<Int(r.header.height) {
                for x in 0..<Int(r.header.width) {
                    got.append(p.load(fromByteOffset: y * Int(r.header.stride) + x * 4, as: UInt32.self))
                }
            }
        }
        return (got, read)
    }

    @Test func missingNotReadyAndRefusedObjects() throws {
        #expect(throws: SharedMemoryReader.OpenError.missing(dir + "/none does not exist")) {
            try SharedMemoryReader(name: "none", directory: self.dir)
        }
        // Being created: too short, then full length but no magic yet.
        let fd = open(dir + "/young", O_CREAT | O_WRONLY, 0o600)
        close(fd)
        #expect { try SharedMemoryReader(name: "young", directory: self.dir) } throws: {
            if case .notReady = $0 as? SharedMemoryReader.OpenError { return true } else { return false }
        }
        truncate(dir + "/young", 8192)
        #expect { try SharedMemoryReader(name: "young", directory: self.dir) } throws: {
            if case .notReady = $0 as? SharedMemoryReader.OpenError { return true } else { return false }
        }
        symlink(dir + "/young", dir + "/link")
        #expect { try SharedMemoryReader(name: "link", directory: self.dir) } throws: {
            if case .refused(let m) = $0 as? SharedMemoryReader.OpenError {
                return m.contains("symbolic link")
            } else {
                return false
            }
        }
        #expect { try SharedMemoryReader(name: "../etc", directory: self.dir) } throws: {
            if case .refused = $0 as? SharedMemoryReader.OpenError { return true } else { return false }
        }
    }

    @Test func readsTheNewestFrameAndItsFocalPoint() throws {
        let s = try sink("frames")
        let r = try SharedMemoryReader(name: "frames", directory: dir)
        #expect(r.header.hasSameLayout(as: s.header))
        #expect(r.writerPID == UInt32(getpid()))
        #expect(words(r).1 == .noFrame)
        for n in 1...5 {
            try publish(s, word: 0x0010_2030 &* UInt32(n), focal: (Double(n), 100 + Double(n)))
            let (got, read) = words(r)
            #expect(read == .frame(number: UInt64(n), focalX: Float(n), focalY: 100 + Float(n)))
            #expect(
                got == [UInt32](repeating: 0x0010_2030 &* UInt32(n), count: 24),
                "frame \(n) comes from buffer \((n - 1) % 3)")
        }
        s.close()
        #expect(r.writerPID == 0, "the writer left")
        #expect(words(r).1 == .frame(number: 5, focalX: 5, focalY: 105), "the last frame stays")
    }

    @Test func mapsTheObjectReadOnly() throws {
        let s = try sink("ro")
        let r = try SharedMemoryReader(name: "ro", directory: dir)
        let maps = try FileSystem.read("/proc/self/maps")
        let lines = String(decoding: maps, as: UTF8.self).split(separator: "\n").filter { $0.hasSuffix(r.path) }
        // The sink's own read-write mapping and the reader's read-only one.
        #expect(lines.contains { $0.split(separator: " ")[1] == "r--s" }, "\(lines)")
        #expect(lines.count == 2)
        _ = s
    }

    @Test func waitReportsChangesAndTimeouts() throws {
        let s = try sink("wait")
        let r = try SharedMemoryReader(name: "wait", directory: dir)
        #expect(try r.waitForChange(from: 0, timeoutSeconds: 0.01) == .timedOut)
        try publish(s, word: 1, focal: (0, 0))
        #expect(try r.waitForChange(from: 0, timeoutSeconds: 5) == .changed)
        #expect(try r.waitForChange(from: 1, timeoutSeconds: 0.01) == .timedOut)
    }

    @Test func noticesAReplacementButNotARestart() throws {
        do {
            let s = try sink("swap")
            try publish(s, word: 7, focal: (1, 2))
        }  // the writer exits
        let r = try SharedMemoryReader(name: "swap", directory: dir)
        #expect(r.writerPID == 0)
        let restarted = try sink("swap")
        #expect(restarted.reused && !r.replaced(), "a restart with the same layout keeps the object")
        restarted.close()
        let bigger = try sink("swap", width: 12, height: 4)
        #expect(!bigger.reused && r.replaced(), "another layout is a new object under the name")
        let again = try SharedMemoryReader(name: "swap", directory: dir)
        #expect(again.header.width == 12 && again.inode != r.inode)
        unlink(dir + "/swap")
        #expect(again.replaced(), "a removed object counts as replaced")
    }
}
