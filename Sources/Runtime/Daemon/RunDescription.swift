import Glibc
import Tracing

/// The `run` object of a trace's header: when, where and how the trace was recorded.
enum RunDescription {
    /// Now (wall clock, UTC) as ISO 8601, to the second.
    static func utcNow() -> String {
        var t = time(nil)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func current(argv: [String], started: String) -> TraceRecord.Run {
        var host = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&host, host.count) == 0 ? string(host) : nil
        var names = utsname()
        let kernel =
            uname(&names) == 0
            ? withUnsafeBytes(of: &names.release) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            } : nil
        return TraceRecord.Run(
            started: started, host: hostName, kernel: kernel, pid: Int(getpid()),
            argv: argv.isEmpty ? nil : argv)
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
