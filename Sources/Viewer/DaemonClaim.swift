import Glibc
import LinuxSystem
import Logging
import Synchronization
import Systemd

/// The viewer tells the daemon that someone looks: while it is wanted (the window is
/// open; a background surface is seen) it holds a claim (`Claim()` on
/// org.shimmerd.Shimmerd1) on a system bus connection of its own, so a daemon with
/// `Sink.demand = auto` reads the sensor and paints the segment; `want(false)` gives it
/// back (`Release()`). The claim also ends when the connection does (the viewer closed
/// or killed); a daemon that (re)appears on the bus, started or restarted, is claimed
/// again at once while wanted, and so is the daemon on a bus that came back after a
/// restart (`ReconnectingBus`; a bus restarting over and over is told for at most three
/// restarts a minute, `FlapLimiter`). A refused claim (the daemon's table full of others'
/// claims, the daemon just leaving) is asked again every `retryInterval` while the daemon
/// is on the bus and the claim is wanted: within that of a place coming free, which is
/// less than the second the daemon waits before it idles.
///
/// The connection is served on a thread of its own (`run`), which sleeps in poll(2) on
/// the bus and a pipe `want` and `stop` write to; it never touches the window or the
/// surfaces.
final class DaemonClaim: @unchecked Sendable {
    static let name = "org.shimmerd.Shimmerd1"
    static let path = "/org/shimmerd/Shimmerd1"

    /// Seconds between two `Claim()` calls while the daemon refuses them.
    static let retryInterval = 0.5

    private let link: ReconnectingBus
    private let log: Logger
    /// What the claim is for, in the log lines: "this window is open".
    private let purpose: String
    private let wakes: WakePipe
    private let wanted: Atomic<Bool>
    /// The claim thread's own state: the daemon's name has an owner; a claim was sent to it.
    private var present = false
    private var held = false
    /// When to ask again after a refusal (monotonic seconds); nil while none is due.
    private var retryAt: Double?
    /// Refusals since the last claim held: the first is said, the rest counted.
    private var refusals = 0
    /// The bus going away and coming back: at most three such episodes told a minute, each
    /// whole (the loss, then the claim held again).
    private var outages = FlapLimiter()
    /// The connection was lost and no claim held since.
    private var outage = false

    /// Nil, with one line, without a system bus: the daemon cannot be told that someone
    /// looks, and paints only with `Sink.demand = always`.
    init?(log: Logger, purpose: String, wanted: Bool) {
        self.log = log
        self.purpose = purpose
        self.wanted = Atomic(wanted)
        do { link = try ReconnectingBus() } catch {
            log.warning(
                "view: no system bus (\(error)): the daemon cannot be told that someone looks, so it paints "
                    + "the segment only while another reader claims it or with Sink.demand = always")
            return nil
        }
        guard let pipe = WakePipe() else { return nil }
        wakes = pipe
        do {
            try link.setUp { [unowned self] bus throws(SystemBusError) in
                held = false
                try bus.watchName(Self.name) { [unowned self, unowned bus] present in
                    self.present = present
                    retryAt = nil
                    if !present { held = false }
                    reconcile(on: bus)
                }
            }
        } catch {
            log.warning(
                "view: system bus: cannot follow \(Self.name) (\(error)); the daemon "
                    + "is not told that someone looks")
            return nil
        }
    }

    /// Claims (true) or releases (false), from any thread; the claim thread acts on it.
    func want(_ on: Bool) {
        guard wanted.exchange(on, ordering: .sequentiallyConsistent) != on else { return }
        wakes.post(UInt8(ascii: "w"))
    }

    /// Sends what `wanted` asks for to a present daemon: Claim() or Release().
    private func reconcile(on bus: SystemBus) {
        let on = wanted.load(ordering: .sequentiallyConsistent)
        if !on { retryAt = nil }
        guard present, on != held else { return }
        held = on
        let member = on ? "Claim" : "Release"
        do {
            try bus.callMethod(destination: Self.name, path: Self.path, interface: Self.name, member: member) {
                [unowned self] why in
                if let why {
                    guard on else {
                        log.warning("view: Release() refused (\(why))")
                        return
                    }
                    refused(why)
                } else if on {
                    if !outage || outages.back() {
                        log.info(
                            "view: claimed the frames of \(Self.name): the daemon paints while \(purpose)"
                                + (refusals > 0 ? " (after \(refusals) refused Claim() calls)" : ""))
                    }
                    (refusals, outage) = (0, false)
                } else {
                    log.info("view: released the frames of \(Self.name): nothing of them is seen")
                }
            }
        } catch {
            held = !on
            log.warning("view: \(member)() not sent: \(error)")
        }
    }

    /// A refused Claim(): said once, asked again after `retryInterval`.
    private func refused(_ why: String) {
        held = false
        refusals += 1
        if refusals == 1 {
            log.warning(
                "view: Claim() refused (\(why)); asking again every \(Self.retryInterval) s while the "
                    + "daemon is on the bus (meanwhile it paints only while others claim, or with "
                    + "Sink.demand = always)")
        }
        retryAt = MonotonicClock.seconds() + Self.retryInterval
    }

    /// The thread's body: serves the connection, and a new one after the bus came back,
    /// until `stop`.
    func run() {
        while true {
            let now = MonotonicClock.seconds()
            switch link.process(now: now) {
            case .lost(let retry)?:
                present = false
                held = false
                let told = outages.gone(now: now)
                if told.say {
                    log.warning(
                        "view: the system bus connection was lost; trying again every \(Int(retry)) s"
                            + (told.untold > 0 ? " (lost \(told.untold) more times since the last such line)" : ""))
                }
                outage = true
            case .reconnected?:
                break  // the claim's line says so
            case .stillGone, nil:
                break
            }
            if let at = retryAt, now >= at {
                retryAt = nil
                if let bus = link.bus { reconcile(on: bus) }
            }
            let request = link.pollRequest(now: now)
            var fds = [
                pollfd(fd: request.fd ?? -1, events: request.events, revents: 0),
                pollfd(fd: wakes.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            var timeout = request.timeoutSeconds
            if let at = retryAt { timeout = min(timeout ?? .infinity, max(0, at - now)) }
            let ms = timeout.map { Int32((min($0, 60) * 1000).rounded(.up)) } ?? -1
            _ = poll(&fds, 2, ms)
            guard fds[1].revents != 0 else { continue }
            if wakes.drain().contains(UInt8(ascii: "s")) { return }
            if let bus = link.bus { reconcile(on: bus) }
        }
    }

    /// Ends `run` (from another thread).
    func stop() {
        wakes.post(UInt8(ascii: "s"))
    }
}
