/// The lines of a state that can flap: something goes away and comes back (the system bus
/// restarting, a display switched off and on, the console switched to another VT and
/// back), each time with a line when it goes and one when it is back. At most `burst`
/// such episodes within any `interval` seconds are told; the others are not, neither
/// their going nor their coming back, so the last line said is always true of the state
/// (a "gone" line is never the last word while it is back). The next episode told counts
/// those that were not. Time is a parameter.
package struct FlapLimiter: Sendable {
    private var limiter: RateLimiter
    /// Whether the episode under way is told.
    private var telling = true
    /// Episodes not told since the last one that was.
    private var untold = 0

    /// - Parameters: interval and burst: at most `burst` episodes told within any `interval` seconds.
    package init(interval: Double = 60, burst: Int = 3) {
        limiter = RateLimiter(interval: interval, burst: burst)
    }

    /// Something went away at `now`: whether to say so, and how many episodes were not
    /// told since the last one that was (for "N more since the last such line").
    package mutating func gone(now: Double) -> (say: Bool, untold: Int) {
        telling = limiter.allow("episode", now: now).allowed
        guard telling else {
            untold += 1
            return (false, 0)
        }
        defer { untold = 0 }
        return (true, untold)
    }

    /// Whether the episode under way (or the last one) is told.
    package var isTelling: Bool { telling }

    /// It came back: said when its going was.
    package mutating func back() -> Bool {
        defer { telling = true }
        return telling
    }
}
