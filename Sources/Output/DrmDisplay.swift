import DRM
import LinuxSystem
import Udev

/// Which display of which card the DRM sink drives, found by probing: the connector,
/// the CRTC routed to it, the mode to use, the CRTC as it was (to restore it), the
/// panel's orientation.
package struct DrmDisplay {
    package let card: DRMCard
    package let connector: DRMConnector
    package let crtcID: UInt32
    package let mode: DRMMode
    /// True when `mode` is what the CRTC already showed on this connector (no mode set,
    /// no flicker); false when the CRTC was off or elsewhere and the preferred mode is used.
    package let keepsMode: Bool
    package let saved: DRMCrtc
    package let orientation: PanelOrientation

    /// Setting the CRTC back as it was found, prepared now (`DRMPreparedSetCrtc`: made on
    /// release, and by the crash handler): its framebuffer, position and mode on this
    /// connector; off when it had no framebuffer or no mode (nothing was shown there).
    package func prepareRestore() -> DRMPreparedSetCrtc {
        if let mode = saved.mode, saved.framebufferID != 0 {
            return card.prepareSetCrtc(
                crtcID, framebufferID: saved.framebufferID, x: saved.x, y: saved.y,
                connectors: [connector.id], mode: mode)
        }
        return card.prepareSetCrtc(crtcID, framebufferID: 0, connectors: [], mode: nil)
    }

    /// Opens `path` and finds the display: `connectorName` "auto" is the first connected
    /// connector in the card's order, else the one named (`eDP-1`, `HDMI-A-1`).
    /// Fails with one sentence that names what is missing.
    package static func probe(path: String, connectorName: String) throws(SinkError) -> DrmDisplay {
        func fail(_ e: DRMError) -> SinkError { SinkError(sink: "drm", "\(e)") }
        let card: DRMCard
        do { card = try DRMCard(path: path) } catch { throw fail(error) }
        do {
            let resources = try card.resources()
            var connectors: [DRMConnector] = []
            for id in resources.connectorIDs { connectors.append(try card.connector(id)) }
            let names = connectors.map { "\($0.name) (\($0.connection == .connected ? "connected" : "disconnected"))" }
                .joined(separator: ", ")
            let chosen: DRMConnector
            if connectorName == "auto" {
                guard let c = connectors.first(where: { $0.connection == .connected && !$0.modes.isEmpty }) else {
                    throw SinkError(
                        sink: "drm", "\(path) has no connected display (connectors: \(names.isEmpty ? "none" : names))")
                }
                chosen = c
            } else {
                guard let c = connectors.first(where: { $0.name == connectorName }) else {
                    throw SinkError(
                        sink: "drm",
                        "\(path) has no connector \(connectorName) (connectors: \(names.isEmpty ? "none" : names))")
                }
                guard c.connection == .connected, !c.modes.isEmpty else {
                    throw SinkError(sink: "drm", "\(path) connector \(connectorName) has no display connected")
                }
                chosen = c
            }
            // The CRTC already routed to the connector, else the first idle one an encoder
            // of the connector can take (possible_crtcs: a bit per index into the CRTC
            // list); a CRTC that is on drives another display and is left alone.
            var crtcID: UInt32 = 0
            if chosen.encoderID != 0 { crtcID = try card.encoder(chosen.encoderID).crtcID }
            if crtcID == 0 {
                search: for id in chosen.encoderIDs {
                    let e = try card.encoder(id)
                    for (i, c) in resources.crtcIDs.enumerated() where e.possibleCRTCs & (1 << UInt32(i)) != 0 {
                        if try card.crtc(c).mode == nil {
                            crtcID = c
                            break search
                        }
                    }
                }
            }
            guard crtcID != 0 else { throw SinkError(sink: "drm", "\(path) \(chosen.name): no idle CRTC can drive it") }
            let saved = try card.crtc(crtcID)
            let keeps = chosen.encoderID != 0 && saved.mode != nil && saved.framebufferID != 0
            guard let mode = keeps ? saved.mode : (chosen.modes.first(where: \.isPreferred) ?? chosen.modes.first)
            else {
                throw SinkError(sink: "drm", "\(path) \(chosen.name) reports no modes")
            }
            let orientationName = try card.enumProperty("panel orientation", of: chosen)
            let orientation = orientationName.flatMap(PanelOrientation.init(rawValue:)) ?? .normal
            return DrmDisplay(
                card: card, connector: chosen, crtcID: crtcID, mode: mode, keepsMode: keeps, saved: saved,
                orientation: orientation)
        } catch let e as DRMError {
            throw fail(e)
        } catch let e as SinkError {
            throw e
        } catch {
            throw SinkError(sink: "drm", "\(error)")
        }
    }

    /// Whether this process has the card open on another descriptor than the probe's:
    /// during a reload the running DRM sink holds master until the new pipeline replaces
    /// it, and its EBUSY is not another program's. Compares the node's st_dev and st_ino
    /// with what each of /proc/self/fd names.
    package var isOpenElsewhereInThisProcess: Bool {
        guard let node = try? FileStatus.of(card.path), let fds = try? FileSystem.list("/proc/self/fd") else {
            return false
        }
        return fds.contains { name in
            guard let fd = Int32(name), fd != card.fileDescriptor,
                let s = try? FileStatus.of("/proc/self/fd/\(name)")
            else { return false }
            return s.device == node.device && s.inode == node.inode
        }
    }

    /// The card nodes (/dev/dri/cardN) udev knows, by number.
    package static func cardPaths() throws(SinkError) -> [String] {
        do {
            let udev = try UdevContext()
            return try udev.devices(subsystem: "drm")
                .filter { $0.sysname.hasPrefix("card") && Int($0.sysname.dropFirst(4)) != nil }
                .sorted { ($0.sysnum ?? 0) < ($1.sysnum ?? 0) }
                .compactMap(\.devnode)
        } catch {
            throw SinkError(sink: "drm", "cannot list DRM cards through udev: \(error)")
        }
    }

    /// `path` itself, or for "auto" the first card with a connected display. The error
    /// of the last card tried says why none fits.
    package static func find(device: String, connector: String) throws(SinkError) -> DrmDisplay {
        guard device == "auto" else { return try probe(path: device, connectorName: connector) }
        let paths = try cardPaths()
        guard !paths.isEmpty else { throw SinkError(sink: "drm", "no DRM card (/dev/dri/card*) in udev") }
        var reasons: [String] = []
        for p in paths {
            do { return try probe(path: p, connectorName: connector) } catch { reasons.append(error.message) }
        }
        throw SinkError(sink: "drm", reasons.joined(separator: "; "))
    }
}
