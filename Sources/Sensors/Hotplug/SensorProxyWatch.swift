import LinuxSystem
import Systemd

/// Watches iio-sensor-proxy's name on the system bus (`BufferSharing.sensorProxyBusName`),
/// which comes and goes with the service: whether it runs now, and when that changes.
/// Without a system bus at start iio-sensor-proxy cannot run (it serves only over it)
/// and `state` stays `.noBus`. A bus that goes away later is connected to again
/// (`ReconnectingBus`); until then nothing is known (`.disconnected`), so iio-sensor-proxy
/// may be running. Never blocks: the caller polls `fileDescriptor`, waits at most
/// `timeout(now:)` and then calls `process`.
final class SensorProxyWatch {
    private var known: BufferSharing.SensorProxy
    private let link: ReconnectingBus?
    /// Readable when the connection has the events sd-bus waits for.
    private let readiness: WritabilityWatch?
    /// When `process` is due even without the descriptor (sd-bus's timeout, a reconnect).
    private var dueAt = -Double.infinity
    /// The state changed since the last `process()` returned.
    private var changed = false

    /// - Parameter noBus: told why there is no bus (one log line).
    init(noBus: (String) -> Void) {
        do {
            let r = try WritabilityWatch(), l = try ReconnectingBus()
            (known, link, readiness) = (.bus(running: nil), l, r)
        } catch {
            (known, link, readiness) = (.noBus, nil, nil)
            noBus("\(error)")
            return
        }
        do {
            try link?.setUp { [unowned self] bus throws(SystemBusError) in
                try bus.watchName(BufferSharing.sensorProxyBusName) { [unowned self] running in
                    let new = BufferSharing.SensorProxy.bus(running: running)
                    if new != known { (known, changed) = (new, true) }
                }
            }
        } catch {
            // The match or the call could not even be queued: nothing will be known.
            known = .disconnected
            noBus("\(error)")
        }
    }

    /// Readable when `process` has something to do; nil without a bus.
    /// Whether iio-sensor-proxy runs now, as far as is known.
    var state: BufferSharing.SensorProxy { known }

    var fileDescriptor: Int32? { link == nil ? nil : readiness?.fileDescriptor }

    /// Seconds from `now` after which `process` is due anyway (nil: never), and what
    /// `fileDescriptor` waits for until then: call it before each wait.
    func timeout(now: Double) -> Double? {
        guard let link, let readiness else { return nil }
        let request = link.pollRequest(now: now)
        readiness.watch(request.fd, events: request.events)
        dueAt = request.timeoutSeconds.map { now + $0 } ?? .infinity
        return request.timeoutSeconds
    }

    /// Takes what the bus sent, when `readable` holds `fileDescriptor` or the timeout has
    /// passed; true when the state changed. A lost connection is `.disconnected` until a
    /// new one has asked the bus again.
    func process(now: Double, readable: [Int32]) -> Bool {
        guard let link, let readiness, readable.contains(readiness.fileDescriptor) || now >= dueAt else { return false }
        switch link.process(now: now) {
        case .lost?:
            readiness.watch(nil)  // a new connection may get the same descriptor number
            (known, changed) = (.disconnected, true)
        case .reconnected?, .stillGone?, nil:
            break
        }
        defer { changed = false }
        return changed
    }
}
