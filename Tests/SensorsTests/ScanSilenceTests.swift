import Testing

@testable import Sensors

/// A node that stops delivering is said once past the threshold (never per read), and its
/// return once, with how long it was silent.
@Test func aSilenceIsSaidOnceAndItsEndOnce() {
    var s = ScanSilence(attachedAt: 0)
    #expect(s.read(gotData: true, at: 0.01, interval: 0.016) == nil)
    var changes: [ScanSilence.Change] = []
    var t = 0.01
    while t < 10 {  // 10 s of empty reads, every 16 ms
        t += 0.016
        if let c = s.read(gotData: false, at: t, interval: 0.016) { changes.append(c) }
    }
    #expect(changes.count == 1)
    if case .silent(let seconds)? = changes.first {
        #expect(seconds > 2 && seconds < 2.05)
    } else {
        Issue.record("\(changes)")
    }
    #expect(s.read(gotData: true, at: 12, interval: 0.016) == .delivering(afterSeconds: 12 - 0.01))
    #expect(s.read(gotData: true, at: 12.016, interval: 0.016) == nil)
}

/// The threshold follows the read interval: a still device read every 2 s is not silent
/// after 3 s; a short gap is never reported.
@Test func theThresholdFollowsTheReadInterval() {
    #expect(ScanSilence.threshold(interval: 0.01) == ScanSilence.minimumSeconds)
    #expect(ScanSilence.threshold(interval: 2) == 40)
    var s = ScanSilence(attachedAt: 0)
    #expect(s.read(gotData: false, at: 3, interval: 2) == nil)
    #expect(s.read(gotData: true, at: 4, interval: 2) == nil)
    #expect(s.read(gotData: false, at: 5.5, interval: 0.01) == nil)
}
