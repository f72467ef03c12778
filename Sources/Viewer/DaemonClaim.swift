import Glibc
import LinuxSystem
import Logging
import Systemd

/// The viewer tells the daemon that someone looks: while the window is open it holds a
/// claim (`Claim()` on org.shimmerd.Shimmerd1) on a system bus connection of its own, so
/// a daemon with `Sink.demand = auto` reads the sensor and paints the segment. The claim
/// ends when the connection does (the window closed, the viewer killed); a daemon that
/// (re)appears on the bus, started or restarted, is claimed again at once, and so is the
/// daemon on a bus that came back after a restart (`ReconnectingBus`).
///
/// The connection is served on a thread of its own (`run`), which sleeps in poll(2) on
/// the bus and a pipe `stop` writes to; it never touches the window.
final class DaemonClaim: @unchecked Sendable {
    static let name = "org.shimmerd.Shimmerd1"
    static let path = "/org/shimmerd/Shimmerd1"

    private let link: ReconnectingBus
    private let log: Logger
    private let stopPipe: (read: Int32, write: Int32)

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
                try bus.watchName(Self.name) { [unowned self, unowned bus] present in if present { claim(on: bus) } }
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
            try bus.callMethod(destination: Self.name, path: Self.path, interface: Self.name, member: "Claim") { [log] why in
                if let why {
                    log.warning("view: Claim() refused (\(why)): the daemon paints the segment only with Sink.demand = always")
                } else {
                    log.info("view: claimed the frames of \(Self.name): the daemon paints while this window is open")
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
                log.warning("view: the system bus connection was lost; trying again in \(Int(retry)) s")
            case .reconnected?:
                log.info("view: connected to the system bus again")
            case .stillGone, nil:
                break
            }
            let request = link.pollRequest(now: now)
            var fds = [pollfd(fd: request.fd ?? -1, events: request.events, revents: 0),
                       pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            let ms = request.timeoutSeconds.map { Int32((min($0, 60) * 1000).rounded(.up)) } ?? -1
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
