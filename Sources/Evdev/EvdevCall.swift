import Glibc

/// The one place that turns libevdev's return convention (a negative errno; a few calls
/// return -1 and set errno) into `EvdevError`, retrying EINTR.
enum EvdevCall {
    /// A call that returns >= 0 on success: the value.
    @discardableResult
    static func value(_ operation: @autoclosure () -> String, _ device: String, _ body: () -> Int32) throws(EvdevError)
        -> Int32
    {
        while true {
            errno = 0
            let r = body()
            if r >= 0 { return r }
            let code = r == -1 && errno != 0 ? errno : -r
            if code == EINTR { continue }
            throw EvdevError(operation: operation(), device: device, code: code)
        }
    }

    /// A C string, nil for NULL.
    static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
}

extension EvdevCall {
    /// A call whose negative `allowed` errno is an answer, not a failure (EAGAIN:
    /// nothing to read now): returned as is.
    static func value(
        _ operation: @autoclosure () -> String, _ device: String, allowing allowed: Int32,
        _ body: () -> Int32
    ) throws(EvdevError) -> Int32 {
        while true {
            errno = 0
            let r = body()
            if r >= 0 || r == -allowed { return r }
            let code = r == -1 && errno != 0 ? errno : -r
            if code == EINTR { continue }
            throw EvdevError(operation: operation(), device: device, code: code)
        }
    }
}
