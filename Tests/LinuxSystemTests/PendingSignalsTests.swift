import Glibc
import LinuxSystem
import Testing

// The daemon's signals: blocked, and readable on a signalfd the loop polls with the
// sensor's descriptors. raise(3) sends to the calling thread, in which PendingSignals
// blocked the signal, so nothing else in the test process sees it.
@Test func aBlockedSignalMakesTheSignalfdReadableAndIsDrainedOnce() {
    let signals = ProcessSignals.take([.user2])
    guard let fd = signals.fileDescriptor else {
        Issue.record("signalfd failed")
        return
    }
    #expect(ReadinessPoll.waitReadable([fd], timeoutSeconds: 0) == [])
    #expect(!signals.mayBePending(readable: []))
    raise(SIGUSR2)
    raise(SIGUSR2)  // standard signals coalesce: one is pending
    let readable = ReadinessPoll.waitReadable([fd], timeoutSeconds: 5)
    #expect(readable == [fd])
    #expect(signals.mayBePending(readable: readable))
    #expect(signals.drain() == [.user2])
    #expect(signals.drain() == [])
    #expect(ReadinessPoll.waitReadable([fd], timeoutSeconds: 0) == [])
}
