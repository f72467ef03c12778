import Logging
import SharedMemory

/// The segment a viewer shows (the window or the background), followed as the daemon
/// starts, stops, restarts or replaces it: opened when there is none or when NAME names
/// another object once its writer left (`SharedMemoryReader.replaced`), with the reason
/// it cannot be opened kept for the waiting screen and logged when it changes (a missing
/// segment is the normal state before the daemon starts, not an error).
final class SegmentFollower {
    let settings: ViewerSettings
    let log: Logger
    private(set) var reader: SharedMemoryReader?
    /// Why the segment could not be opened, last time it was tried.
    private(set) var lastOpenFailure: String?

    init(settings: ViewerSettings, log: Logger, reader: SharedMemoryReader? = nil) {
        self.settings = settings
        self.log = log
        self.reader = reader
    }

    /// Opens the segment if there is none or it was replaced; returns the new reader
    /// when there is one.
    func refresh() -> SharedMemoryReader? {
        guard reader == nil || (reader!.writerPID == 0 && reader!.replaced()), let r = open() else { return nil }
        reader = r
        return r
    }

    /// The reader read a segment that shrank under it: open it again at the next `refresh`.
    func forget() {
        reader = nil
    }

    /// Hands the newest frame of `reader` to `body` (`SharedMemoryReader.readNewest`) and
    /// returns its number, or nil without one: none yet; a segment that shrank under the
    /// reader (truncated by its owner), which is forgotten here and in `watcher`, to be
    /// opened again; a copy torn on every try, one line each.
    func readNewest<E: Error>(
        _ reader: SharedMemoryReader, watcher: FrameWatcher,
        _ body: (UnsafeRawPointer) throws(E) -> Void
    ) throws(E) -> UInt64? {
        switch try reader.readNewest(body) {
        case .frame(let number, _, _):
            return number
        case .noFrame:
            return nil
        case .gone:
            log.warning("view: \(reader.path) shrank below its layout (truncated by its owner); reopening it")
            forget()
            watcher.watch(nil)
            return nil
        case .torn:
            log.warning(
                "view: no consistent copy of a frame of \(reader.path) in 8 "
                    + "tries; trying again on the next one")
            return nil
        }
    }

    /// What is there to show.
    var status: ViewerStatus {
        guard let reader else { return .waiting(reason: lastOpenFailure ?? "\(settings.path) does not exist yet") }
        if reader.frame == 0 { return .noFrameYet }
        let pid = reader.writerPID
        return pid == 0 ? .stopped : .live(writerPID: pid)
    }

    private func open() -> SharedMemoryReader? {
        do {
            let r = try SharedMemoryReader(name: settings.name, directory: settings.directory)
            lastOpenFailure = nil
            log.info(
                "view: opened \(r.path) read-only (\(r.header.width) x \(r.header.height) px, "
                    + "\(r.header.bufferCount) buffers, inode \(r.inode))")
            return r
        } catch {
            let text = error.description
            if text != lastOpenFailure, case .refused = error {
                log.warning("view: \(text)")
            }
            lastOpenFailure = text
            return nil
        }
    }
}
