import LinuxSystem
import Output

/// A frame the sink could not write whole (a raw reader's full pipe) goes on as soon as
/// the reader takes more: the loop waits for the sink's `pendingWrite` to take writes
/// (POLLOUT) through a `WritabilityWatch`, whose descriptor any `Wait` polls for
/// readability like the others (a `TraceClock`'s too), and hands the wakeup to the sink.
/// A reader that stalls and resumes thus gets the rest of the frame, then the newest
/// picture, at the pipe's speed.
extension Pipeline {
    /// Adds the watch to the descriptors of the next wait while the sink has a write
    /// pending (and stops watching once it has none).
    func appendSinkWriteWatch(to fds: inout [Int32]) {
        guard let writability else { return }
        let pending = parts.sink.pendingWrite
        guard writability.watch(pending), pending != nil else { return }
        fds.append(writability.fileDescriptor)
    }

    /// Goes on with the sink's frame in flight when the last wait said its output takes
    /// writes.
    func continueSinkWrite(readable: [Int32]) {
        guard let writability, writability.isWritable(in: readable) else { return }
        parts.sink.continueWriting()
    }
}
