/// A tablet-mode switch's changes, handed on at most every `interval` seconds, the newest
/// one last: a switch that flaps (a loose hinge sensor) or floods (a uinput device claiming
/// SW_TABLET_MODE, written in a loop) asks for at most one new baseline, and one trace
/// record, per interval, and where it comes to rest is followed. A change after a quiet
/// interval goes on at once. Pure: time is passed in.
struct TabletModeHold: Sendable {
    let interval: Double
    /// The newest change not handed on yet.
    private var held: String?
    /// When the last change was handed on.
    private var last = -Double.infinity

    init(interval: Double) { self.interval = interval }

    /// A change read from the switch (why, for the recapture).
    mutating func changed(_ why: String) { held = why }

    /// The change to hand on now, if one is held and the interval has passed.
    mutating func due(now: Double) -> String? {
        guard let why = held, now >= last + interval else { return nil }
        held = nil
        last = now
        return why
    }

    /// Seconds until a held change is due; infinity when none is held.
    func timeout(now: Double) -> Double { held == nil ? .infinity : max(0, last + interval - now) }
}
