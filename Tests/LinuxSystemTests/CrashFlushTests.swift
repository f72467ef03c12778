import Glibc
import LinuxSystem
import Testing

/// The crash handler's restore work, made the way the handler makes it
/// (`CrashFlush.restoreRegistered`) but without a crash: ioctl(2) calls on a pipe whose
/// FIONBIO flag shows which calls were made, and in what order. Serialized: the restore
/// slots are the process's.
@Suite(.serialized)
final class CrashFlushTests {
    let fds: [Int32]
    /// FIONBIO's arguments: the address of an int, 1 (non-blocking) or 0.
    let on = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    let off = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    init() throws {
        var p: [Int32] = [-1, -1]
        #expect(pipe(&p) == 0)
        fds = p
        on.initialize(to: 1)
        off.initialize(to: 0)
    }

    deinit {
        for fd in fds { close(fd) }
        on.deallocate()
        off.deallocate()
    }

    func nonBlocking(_ value: UnsafeMutablePointer<Int32>) -> CrashFlush.Restore {
        CrashFlush.Restore(fileDescriptor: fds[0], request: UInt(FIONBIO), argument: UInt(bitPattern: value))
    }

    var isNonBlocking: Bool { fcntl(fds[0], F_GETFL) & O_NONBLOCK != 0 }

    @Test func registeredCallsAreMadeInTheirOrderUntilReleased() throws {
        var registration = CrashFlush.register(restoring: [nonBlocking(on), nonBlocking(off)], keeping: [])
        #expect(registration != nil)
        CrashFlush.restoreRegistered()
        #expect(!isNonBlocking, "the second call is made last")

        registration = CrashFlush.register(restoring: [nonBlocking(off), nonBlocking(on)], keeping: [])
        CrashFlush.restoreRegistered()
        #expect(isNonBlocking)

        registration = nil
        _ = fcntl(fds[0], F_SETFL, 0)
        CrashFlush.restoreRegistered()
        #expect(!isNonBlocking, "a released registration makes no call")
        _ = registration
    }

    @Test func aRegistrationThatDoesNotFitArmsNothing() throws {
        let full = CrashFlush.register(restoring: Array(repeating: nonBlocking(off), count: 7), keeping: [])
        #expect(full != nil)
        #expect(CrashFlush.register(restoring: [nonBlocking(on), nonBlocking(on)], keeping: []) == nil)
        CrashFlush.restoreRegistered()
        #expect(!isNonBlocking, "nothing of the refused registration was armed")
        let last = CrashFlush.register(restoring: [nonBlocking(on)], keeping: [])
        #expect(last != nil, "the eighth slot was left free")
        CrashFlush.restoreRegistered()
        #expect(isNonBlocking)
        _ = (full, last)
    }

    @Test func ownersLiveAsLongAsTheRegistration() throws {
        final class Owner {}
        weak var watched: Owner?
        var registration: CrashFlush.Registration?
        do {
            let owner = Owner()
            watched = owner
            registration = CrashFlush.register(restoring: [nonBlocking(off)], keeping: [owner])
        }
        #expect(watched != nil)
        registration = nil
        #expect(watched == nil)
        _ = registration
    }
}
