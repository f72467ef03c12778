import Glibc

/// A progress bar on stderr when it is a terminal; nothing otherwise.
struct ProgressBar {
    let total: Int
    let unit: String
    let enabled: Bool
    let context: CommandContext
    let step: Int

    init(total: Int, unit: String, context: CommandContext, enabled: Bool = isatty(2) != 0) {
        self.total = total
        self.unit = unit
        self.enabled = enabled
        self.context = context
        step = max(1, total / 200)
    }

    func update(_ done: Int) {
        guard enabled, done % step == 0 || done == total else { return }
        let width = 40, filled = total > 0 ? width * done / total : width
        context.err(
            "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                + "] \(done)/\(total) \(unit)")
    }

    func finish() {
        if enabled { context.err("\n") }
    }
}
