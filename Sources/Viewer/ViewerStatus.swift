/// What the window shows, derived from the segment; the title and the waiting screen's
/// text are functions of it (pure, so tests pin the wording).
enum ViewerStatus: Equatable {
    /// No usable segment (yet): `reason` says why, in a few words.
    case waiting(reason: String)
    /// The segment exists but no frame has been published.
    case noFrameYet
    /// Frames of a live writer.
    case live(writerPID: UInt32)
    /// The writer left (writer_pid 0): its last frame stays on screen.
    case stopped

    /// The window title for segment `name`.
    func title(name: String) -> String {
        switch self {
        case .waiting, .noFrameYet: return "shimmer (\(name)): waiting for shimmerd"
        case .live: return "shimmer (\(name))"
        case .stopped: return "shimmer (\(name)): shimmerd stopped"
        }
    }

    /// The waiting screen's two lines; nil when frames are shown.
    func waitingLines(path: String) -> (headline: String, detail: String)? {
        switch self {
        case .waiting(let reason): return ("Waiting for shimmerd", reason)
        case .noFrameYet: return ("Waiting for shimmerd", "\(path): no frame yet")
        case .live, .stopped: return nil
        }
    }

    /// One log line when the status changes (never per frame).
    func logLine(path: String) -> String {
        switch self {
        case .waiting(let reason): return "view: waiting for shimmerd: \(reason)"
        case .noFrameYet: return "view: waiting for the first frame in \(path)"
        case .live(let pid): return "view: showing \(path) (writer pid \(pid))"
        case .stopped: return "view: the writer of \(path) stopped; keeping its last frame"
        }
    }
}
