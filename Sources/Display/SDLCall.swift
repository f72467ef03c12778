import CSDL2

// Every SDL call that can fail goes through these helpers: SDL reports failure as a
// negative int or a NULL pointer and leaves its message in SDL_GetError.

/// SDL's last error message (`SDL_GetError`).
func lastSDLError() -> String {
    guard let p = SDL_GetError() else { return "unknown SDL error" }
    let s = String(cString: p)
    return s.isEmpty ? "unknown SDL error" : s
}

/// A negative SDL return code becomes a `DisplayError` naming the operation.
@discardableResult
func sdlCheck(_ operation: @autoclosure () -> String, _ result: Int32) throws(DisplayError) -> Int32 {
    guard result >= 0 else { throw DisplayError(operation(), lastSDLError()) }
    return result
}

/// A NULL SDL pointer becomes a `DisplayError` naming the operation.
func sdlNonNull<T>(_ operation: @autoclosure () -> String, _ pointer: T?) throws(DisplayError) -> T {
    guard let pointer else { throw DisplayError(operation(), lastSDLError()) }
    return pointer
}
