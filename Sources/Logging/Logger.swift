// Logging: the logger (swift-log's shape, hand-written) and the rate limiter of its lines.
//
// Logs are for people and journald: one line per event, never per frame. Per-frame
// detail goes to the trace (Tracing). When journald reads stderr (JOURNAL_STREAM
// matches), lines carry sd-daemon priority prefixes ("<4>") so the journal keeps levels.
// Must not import: any shimmerd module but LinuxSystem (layer 1a).
import Glibc
import LinuxSystem

/// A logger value: a label, a shared handler and metadata that every line carries.
/// Messages are autoclosures, built only when the level is enabled; metadata keys are
/// dotted (`sensor.device`).
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        // sd-daemon(3) priorities.
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        package static func < (a: Level, b: Level) -> Bool { a.rawValue > b.rawValue }

        package var description: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    package let label: String
    package let handler: any LogHandler
    /// Added to every line's own metadata (a line's own value wins for the same key).
    package var metadata: [String: String] = [:]

    package init(label: String, handler: any LogHandler) {
        self.label = label
        self.handler = handler
    }

    /// The same logger with `more` added to the metadata of each of its lines (a sink
    /// given one that names its device).
    package func with(_ more: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(more) { $1 }
        return copy
    }

    package func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= handler.minimumLevel else { return }
        let all = self.metadata.isEmpty ? metadata : self.metadata.merging(metadata) { $1 }
        handler.emit(level: level, label: label, message: message(), metadata: all)
    }

    package func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }

    package func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }

    package func notice(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.notice, message(), metadata)
    }

    package func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }

    package func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }
}

/// Where a logger's lines go: the descriptor of the running daemon
/// (`DescriptorLogHandler`), or memory in the tests of the loop.
package protocol LogHandler: Sendable {
    /// Lines below this level are not built (`Logger`'s messages are autoclosures).
    var minimumLevel: Logger.Level { get }
    func emit(level: Logger.Level, label: String, message: String, metadata: [String: String])
}

extension Logger.Level {
    /// One event as one line without its newline: "<4>text key=value" for journald
    /// (`priorityPrefix`), else "label: warning: text key=value" (the level from warning
    /// up).
    package func line(label: String, message: String, metadata: [String: String], priorityPrefix: Bool) -> String {
        var line = priorityPrefix ? "<\(rawValue)>" : "\(label): "
        if !priorityPrefix && self >= .warning { line += "\(self): " }
        // One event, one line: a newline inside a message would split it in the journal
        // (and forge the next line), an escape sequence would reach whoever reads it on a
        // terminal; device names, labels and values from outside carry both.
        line += message.escapingControlCharacters()
        for key in metadata.keys.sorted() {
            line += " \(key)=\(metadata[key]!.escapingControlCharacters())"
        }
        return line
    }
}

/// Writes log lines to a file descriptor (stderr by default), one `write(2)` per line so
/// lines from several threads never interleave.
package struct DescriptorLogHandler: LogHandler {
    package let minimumLevel: Logger.Level
    /// Prefix lines with "<N>" for journald.
    package let priorityPrefixes: Bool
    private let fd: Int32

    package init(minimumLevel: Logger.Level = .info, fd: Int32 = 2, priorityPrefixes: Bool? = nil) {
        self.minimumLevel = minimumLevel
        self.fd = fd
        self.priorityPrefixes = priorityPrefixes ?? DescriptorLogHandler.journaldReads(fd: fd)
    }

    /// True when `fd` is the stream journald gave us: JOURNAL_STREAM is "DEV:INODE" of it
    /// (systemd.exec(5), "$JOURNAL_STREAM").
    package static func journaldReads(fd: Int32) -> Bool {
        guard let env = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: env).split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    package func emit(level: Logger.Level, label: String, message: String, metadata: [String: String]) {
        let line =
            level.line(label: label, message: message, metadata: metadata, priorityPrefix: priorityPrefixes) + "\n"
        // A failure means stderr is gone: there is nowhere left to report it.
        _ = FileSystem.writeAsMuchAsPossible(fd, Array(line.utf8))
    }
}

/// "1 frame", "2 frames", "0 samples": a count and its noun, for log lines.
package func counted(_ n: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? noun : plural ?? noun + "s")
}
