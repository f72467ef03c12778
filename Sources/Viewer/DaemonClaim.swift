import Glibc
import LinuxSystem
import Logging
import Systemd

/// The viewer tells the daemon that someone looks: while the window is open it holds a
/// claim (`Claim()` on org.shimmerd.Shimmerd1) on a system bus connection of its own, so
/// a daemon with `Sink.demand = auto` reads the sensor and paints the segment. The claim
/// ends when the connection does (the window closed, the viewer killed); a daemon that
/// (re)appears on the bus, started or restarted, is claimed again at once, and so is the
/// daemon on a bus that came back after a restart (`ReconnectingBus`; a bus restarting
/// over and over is told for at most three restarts a minute, `FlapLimiter`). A refused claim (the
/// daemon's table full of others' claims, the daemon just leaving) is asked again every
/// `retryInterval` while the daemon is on the bus: within that of a place coming free,
/// which is less than the second the daemon waits before it idles.
///
/// The connection is served on a thread of its own (`run`), which sleeps in poll(2) on
/// the bus and a pipe `stop` writes to; it never touches the window.
final class DaemonClaim: @unchecked Sendable {
    static let name = "org.shimmerd.Shimmerd1"
    static let path = "/org/shimmerd/Shimmerd1"

    /// Seconds between two `Claim()` calls while the daemon refuses them.
    static let retryInterval = 0.5

    private let link: ReconnectingBus
    private let log: Logger
    private let stopPipe: (read: Int32, write: Int32)
    /// The daemon's name has an owner (as the bus said last).
    private var daemonPresent = false
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
    init?(log: Logger) {
        self.log = log
        do { link = try ReconnectingBus() } catch {
            log.warning("view: no system bus (\(error)): the daemon cannot be told that someone looks, so it paints "
                        + "the segment only while another reader claims it or with Sink.demand = always")
            return nil
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stopPipe = (fds[0], fds[1])
        do {
            try link.setUp { [unowned self] bus throws(SystemBusError) in
                try bus.watchName(Self.name) { [unowned self, unowned bus] present in
                    daemonPresent = present
                    retryAt = nil
                    if present { claim(on: bus) }
                }
            }
        } catch {
            log.warning("view: system bus: cannot follow \(Self.name) (\(error)); the daemon is not told that someone looks")
            return nil
        }
    }

    deinit {
        close(stopPipe.read)
        close(stopPipe.write)
    }

    private func claim(on bus: SystemBus) {
        do {
            try bus.callMethod(destination: Self.name, path: Self.path, interface: Self.name, member: "Claim") { [unowned self] why in
                if let why {
                    refusals += 1
                    if refusals == 1 {
                        log.warning("view: Claim() refused (\(why)); asking again every \(Self.retryInterval) s while the "
                                    + "daemon is on the bus (meanwhile it paints only while others claim, or with "
                                    + "Sink.demand = always)")
                    }
                    retryAt = MonotonicClock.seconds() + Self.retryInterval
                } else {
                    if !outage || outages.back() {
                        log.info("view: claimed the frames of \(Self.name): the daemon paints while this window is open"
                                 + (refusals > 0 ? " (after \(refusals) refused Claim() calls)" : ""))
                    }
                    (refusals, outage) = (0, false)
                }
            }
        } catch {
            log.warning("view: Claim() not sent: \(error)")
        }
    }

    /// The thread's body: serves the connection, and a new one after the bus came back,
    /// until `stop`.
    func run() {
        while true {
            let now = MonotonicClock.seconds()
            switch link.process(now: now) {
            case .lost(let retry)?:
                let told = outages.gone(now: now)
                if told.say {
                    log.warning("view: the system bus connection was lost; trying again every \(Int(retry)) s"
                                + (told.untold > 0 ? " (lost \(told.untold) more times since the last such line)" : ""))
                }
                outage = true
            case .reconnected?:
                break    // the claim's line says so
            case .stillGone, nil:
                break
            }
            if let at = retryAt, now >= at {
                retryAt = nil
                if daemonPresent, let bus = link.bus { claim(on: bus) }
            }
            let request = link.pollRequest(now: now)
            var fds = [pollfd(fd: request.fd ?? -1, events: request.events, revents: 0),
                       pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            var timeout = request.timeoutSeconds
            if let at = retryAt { timeout = min(timeout ?? .infinity, max(0, at - now)) }
            let ms = timeout.map { Int32((min($0, 60) * 1000).rounded(.up)) } ?? -1
            _ = poll(&fds, 2, ms)
            if fds[1].revents != 0 { return }
        }
    }

    /// Ends `run` (from another thread).
    func stop() {
        var one: UInt8 = 1
        _ = write(stopPipe.write, &one, 1)
    }
}
