extension StringProtocol {
    /// The text for a log line: whole up to 80 characters, else its first 80 and its size
    /// (a 10 MB value is one short line, not 10 MB of log).
    package var abbreviated: String {
        let limit = 80
        guard count > limit else { return String(self) }
        return String(prefix(limit)) + "... (\(utf8.count) bytes)"
    }
}
