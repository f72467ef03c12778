import Glibc
import LinuxSystem
import SharedMemory
import Synchronization

/// The viewer's helper thread: blocks in FUTEX_WAIT on the watched segment's frame word
/// and wakes the main thread (`wake`: an SDL user event, a byte in a pipe) when the frame
/// moves on, when the word is woken without a new frame (the writer left), or after
/// `housekeepingSeconds` without either (`searchSeconds` while there is no segment), so
/// the main thread can look for a segment that appeared or was replaced. It never reads
/// pixels, and touches nothing of the main thread's but `wake`.
///
/// Pacing: at most one wake-up per `minimumInterval` (one display refresh), and never a
/// second one while the main thread has not taken the first (`pending`), so a fast
/// writer cannot flood the event queue: the main thread always paints the newest frame.
final class FrameWatcher: Sendable {
    private struct Watched: Sendable {
        var reader: SharedMemoryReader?
        /// Bumped by `watch`, so the loop notices a new reader.
        var generation = 0
        var stopping = false
    }

    private let watched = Mutex(Watched())
    private let pending = Atomic<Bool>(false)
    private let wake: @Sendable () -> Void
    let minimumInterval: Double
    let housekeepingSeconds: Double
    let searchSeconds: Double

    init(
        wake: @escaping @Sendable () -> Void, minimumInterval: Double, housekeepingSeconds: Double,
        searchSeconds: Double? = nil
    ) {
        self.wake = wake
        self.minimumInterval = minimumInterval
        self.housekeepingSeconds = housekeepingSeconds
        self.searchSeconds = searchSeconds ?? housekeepingSeconds
    }

    /// Main thread: watch this segment from now on (nil: none).
    func watch(_ reader: SharedMemoryReader?) {
        watched.withLock {
            $0.reader = reader
            $0.generation += 1
        }
    }

    /// Main thread: the wake-up was taken; the next change may post another.
    func acknowledge() {
        pending.store(false, ordering: .sequentiallyConsistent)
    }

    /// Main thread: end `run` (within `housekeepingSeconds`, or `searchSeconds`).
    func stop() {
        watched.withLock { $0.stopping = true }
    }

    /// The thread's body.
    func run() {
        var generation = -1
        var seen: UInt64 = 0
        var lastPost = -Double.infinity
        while true {
            let now = watched.withLock { $0 }
            if now.stopping { return }
            if now.generation != generation {
                // A new segment: post at once so the main thread shows its newest frame.
                generation = now.generation
                seen = now.reader?.frame ?? 0
            } else if let reader = now.reader {
                let outcome = (try? reader.waitForChange(from: seen, timeoutSeconds: housekeepingSeconds)) ?? .timedOut
                if outcome == .interrupted { continue }
                seen = reader.frame
            } else {
                Self.sleep(searchSeconds)
            }
            if watched.withLock({ $0.stopping }) { return }
            let wait = lastPost + minimumInterval - MonotonicClock.seconds()
            if wait > 0 { Self.sleep(wait) }
            if !pending.exchange(true, ordering: .sequentiallyConsistent) {
                wake()
            }
            lastPost = MonotonicClock.seconds()
        }
    }

    static func sleep(_ seconds: Double) {
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }
}
