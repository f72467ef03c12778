import LinuxSystem
import Logging
import Motion
import Udev

/// Hotplug: udev events, iio-sensor-proxy coming and going, tablet-mode switches, a
/// remote sensor that stops answering, a buffer handed over by udev.
extension AccelerometerService {
    /// A device polled because `Sensor.mode = auto` found its buffer attributes not
    /// writable is attached again once they are: the daemon started before udev ran
    /// 60-shimmerd.rules on it (the unit does not wait for udev-settle), and udev has now
    /// handed them over. Looked at once a second; a few access(2) calls.
    func attachAgainForBuffer(now: Double) -> [SensorEvent] {
        guard settings.mode == .auto, let a = attachment, a.mode == "poll", a.device.bufferCapable,
              BufferPermission.isPermission(a.modeReason), BufferPermission.problem(a.device, local: a.device.syspath != nil) == nil else { return [] }
        detach()
        log.notice("\(a.device.displayName): its buffer attributes are writable now (udev handed them over); attaching it again for buffer mode",
            ["sensor.device": a.device.id])
        nextAttachAttempt = now
        return [.detached(a.device.displayName, reason: "its buffer attributes became writable")]
    }

    /// A remote sensor (`uri:`) whose reads have failed for `remoteGiveUp` seconds is
    /// released, as a local one is on a udev `remove`: the card eases back to center and
    /// the context is opened again every second until iiod answers, with a new baseline.
    /// (A libiio network context does not reconnect by itself; local devices leave
    /// through udev and keep reporting read errors otherwise.)
    func dropUnreachableRemote(now: Double) -> [SensorEvent] {
        guard case .uri(let uri) = settings.device, let a = attachment else { return [] }
        if lastReadHadData || lastReadError == nil {
            failingSince = nil
            return []
        }
        let since = failingSince ?? now
        failingSince = since
        guard now - since >= Self.remoteGiveUp else { return [] }
        let reason = "every read from \(uri) failed for \(Int(Self.remoteGiveUp)) s (last: \(lastReadError ?? "?"))"
        detach(deviceGone: true)
        failingSince = nil
        nextAttachAttempt = now
        log.warning("accelerometer \(a.device.displayName) unreachable: \(reason); released it, reconnecting every second",
            ["sensor.device": a.device.id])
        return [.detached(a.device.displayName, reason: reason)]
    }

    /// Seconds of failing reads after which a remote sensor is released.
    static let remoteGiveUp = 2.0

    /// A change of a tablet-mode switch asks for a new baseline; a switch whose node
    /// fails is dropped with one line.
    func readTabletSwitches(_ readable: [Int32], now: Double, into events: inout [SensorEvent]) {
        var i = 0
        while i < tabletSwitches.count {
            let sw = tabletSwitches[i]
            guard readable.contains(sw.fileDescriptor) else {
                i += 1
                continue
            }
            do {
                if let value = try sw.read() {
                    let why = "tablet-mode switch \(sw.name): \(value != 0 ? "tablet mode" : "laptop mode")"
                    log.notice("\(why); capturing a new baseline", ["input.device": sw.devnode])
                    events.append(.motion(.recapture(why, at: now)))
                }
                i += 1
            } catch {
                log.warning("tablet-mode switch \(sw.devnode) (\(sw.name)) stopped: \(error)", ["input.device": sw.devnode])
                tabletSwitches.remove(at: i)
            }
        }
    }


    func hotplug(_ d: UdevDevice, now: Double) -> [SensorEvent] {
        let action = d.action ?? ""
        log.debug("udev \(action) \(d.sysname)", ["udev.action": action, "udev.syspath": d.syspath])
        if action == "remove" { removed.insert(d.syspath) }
        if action == "add" { removed.remove(d.syspath) }
        if action == "remove", let a = attachment, a.device.syspath == d.syspath {
            detach(deviceGone: true)
            let reason = "udev remove event for \(d.syspath)"
            log.warning("accelerometer \(a.device.displayName) disappeared (\(reason)); released it, waiting for it to come back",
                ["sensor.device": a.device.id])
            nextAttachAttempt = now
            return [.detached(a.device.displayName, reason: reason)]
        }
        if action == "remove", let g = gyro.sibling, g.device.syspath == d.syspath {
            return dropGyroscope(g.device.displayName, why: "udev remove event for \(d.syspath)", deviceGone: true)
        }
        if action == "add" || action == "change", driver == nil {
            nextAttachAttempt = now
        }
        if action == "change", let a = attachment, a.device.syspath == d.syspath, a.mode == "buffer",
           let s = Discovery.snapshot(of: d, triggerNames: []),
           let why = BufferSharing.reason(sensorProxyType: s.sensorProxyType, sensorProxy: sensorProxyState) {
            return giveBackBuffer(why: "udev change event: \(why)", now: now)
        }
        if action == "add" || action == "change", driver != nil, !gyro.isUsed, settings.gyro != .none {
            gyroLookupDue = true    // once the burst of events is taken
        }
        return []
    }

    /// What is known of iio-sensor-proxy; `.noBus` for a remote device.
    var sensorProxyState: BufferSharing.SensorProxy { sensorProxy?.state ?? .noBus }

    /// iio-sensor-proxy came or went on the system bus: said in one line; a buffer it may
    /// read is given back at once.
    func sensorProxyChanged(now: Double) -> [SensorEvent] {
        let state = sensorProxyState
        let text = switch state {
        case .noBus: "there is no system bus"
        case .disconnected: "the system bus connection was lost; until it is back, iio-sensor-proxy may be running"
        case .bus(running: true): "\(BufferSharing.sensorProxyBusName) appeared on the system bus"
        case .bus: "\(BufferSharing.sensorProxyBusName) is not on the system bus"
        }
        log.info("iio-sensor-proxy: \(text)")
        guard let a = attachment, a.mode == "buffer",
              let why = BufferSharing.reason(sensorProxyType: a.device.sensorProxyType, sensorProxy: state) else { return [] }
        return giveBackBuffer(why: why, now: now)
    }

    /// Releases a buffer another reader may want (disabled, its attributes put back) and
    /// attaches again at once, polling.
    func giveBackBuffer(why: String, now: Double) -> [SensorEvent] {
        guard let a = attachment else { return [] }
        detach()
        nextAttachAttempt = now
        log.notice("\(a.device.displayName): \(why); giving its buffer back, polling from now on",
            ["sensor.device": a.device.id])
        return [.detached(a.device.displayName, reason: why)]
    }
}
