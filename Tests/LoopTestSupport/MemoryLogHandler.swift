import Logging
import Synchronization

/// Keeps log lines in memory instead of writing them to a descriptor: a test reads what
/// the daemon said, line by line, as `DescriptorLogHandler` would have written it
/// ("shimmerd: warning: text key=value", without the newline).
package final class MemoryLogHandler: LogHandler {
    package struct Entry: Sendable, Equatable {
        package var level: Logger.Level
        package var label: String
        package var message: String
        package var metadata: [String: String]

        /// The line `DescriptorLogHandler` writes for it off journald.
        package var line: String {
            level.line(label: label, message: message, metadata: metadata, priorityPrefix: false)
        }
    }

    package let minimumLevel: Logger.Level
    private let entries = Mutex<[Entry]>([])

    package init(minimumLevel: Logger.Level = .debug) {
        self.minimumLevel = minimumLevel
    }

    package func emit(level: Logger.Level, label: String, message: String, metadata: [String: String]) {
        entries.withLock { $0.append(Entry(level: level, label: label, message: message, metadata: metadata)) }
    }

    /// Everything logged so far, in order.
    package var logged: [Entry] { entries.withLock { $0 } }

    /// The lines logged so far.
    package var lines: [String] { logged.map(\.line) }

    /// The messages that contain `text`.
    package func messages(containing text: String) -> [String] {
        logged.map(\.message).filter { $0.contains(text) }
    }

    /// A logger on this handler.
    package func logger(label: String = "shimmerd") -> Logger { Logger(label: label, handler: self) }
}
