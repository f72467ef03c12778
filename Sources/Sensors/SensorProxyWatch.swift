import Systemd

/// Watches iio-sensor-proxy's name on the system bus (`BufferSharing.sensorProxyBusName`),
/// which comes and goes with the service: whether it runs now, and when that changes.
/// Connects once; without a system bus iio-sensor-proxy cannot run (it serves only over
/// it) and `state` stays `.noBus`. Never blocks: the caller polls `fileDescriptor` and
/// calls `process()` when it is readable.
final class SensorProxyWatch {
    private(set) var state: BufferSharing.SensorProxy
    private var bus: SystemBus?
    /// The state changed since the last `process()` returned.
    private var changed = false

    /// - Parameter noBus: told why there is no bus (one log line).
    init(noBus: (String) -> Void) {
        do {
            let b = try SystemBus()
            state = .bus(running: nil)
            bus = b
            try b.watchName(BufferSharing.sensorProxyBusName) { [unowned self] running in
                let new = BufferSharing.SensorProxy.bus(running: running)
                if new != state { (state, changed) = (new, true) }
            }
        } catch {
            state = .noBus
            bus = nil
            noBus("\(error)")
        }
    }

    var fileDescriptor: Int32? { bus?.fileDescriptor }

    /// Takes what the bus sent; true when the state changed. A lost connection is
    /// `.noBus` from then on.
    func process() -> Bool {
        guard let b = bus else { return false }
        if !b.process() {
            bus = nil
            state = .noBus
            return true
        }
        defer { changed = false }
        return changed
    }
}
