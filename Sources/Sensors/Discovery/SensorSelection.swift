/// Which accelerometer a selector picks, and why, including why the others were not
/// picked (`shimmerd sensors`).
package struct SensorSelection: Sendable {
    package var chosen: AccelerometerDescription?
    /// One sentence: why `chosen`, or why nothing.
    package var reason: String
    /// Per device id, why it was not chosen.
    package var notChosen: [String: String]

    /// attitude/interfaces: `auto` takes the display accelerometer over the base one,
    /// then the lowest index, of the IIO accelerometers; without one, the input
    /// accelerometer of the lowest event number that is not part of a game controller
    /// (`SensorSelection+Input.swift`). The other selectors match id, name or label.
    package static func select(_ selector: DeviceSelector, from devices: [AccelerometerDescription]) -> SensorSelection
    {
        let inputs = devices.filter(\.isInput)
        let iio = selectIIO(selector, from: devices.filter { !$0.isInput })
        return inputs.isEmpty && !selector.namesInputDevice ? iio : withInputDevices(iio, selector, inputs)
    }

    /// Among IIO devices only.
    private static func selectIIO(_ selector: DeviceSelector, from devices: [AccelerometerDescription])
        -> SensorSelection
    {
        var notChosen: [String: String] = [:]
        for d in devices where !d.isUsable { notChosen[d.id] = d.skipReason }
        let usable = devices.filter(\.isUsable)
        func pick(_ candidates: [AccelerometerDescription], what: String) -> SensorSelection {
            guard let first = candidates.first else {
                return SensorSelection(
                    chosen: nil, reason: "no usable accelerometer matches \(what)", notChosen: notChosen)
            }
            for d in usable where d.id != first.id && notChosen[d.id] == nil {
                notChosen[d.id] =
                    candidates.contains { $0.id == d.id }
                    ? "\(what) also matches it, but \(first.id) has the lower index"
                    : "does not match \(what)"
            }
            let why =
                candidates.count == 1
                ? "the only usable accelerometer matching \(what)"
                : "the lowest index of \(candidates.count) usable accelerometers matching \(what)"
            return SensorSelection(chosen: first, reason: "\(first.displayName): \(why)", notChosen: notChosen)
        }
        switch selector {
        case .auto, .uri:
            let displays = usable.filter { $0.location == .display }
            if let d = displays.first {
                var s = pick(displays, what: "auto")
                for b in usable where b.location == .base {
                    s.notChosen[b.id] =
                        "base accelerometer (\(b.locationSource)); auto "
                        + "prefers the display one, \(d.id)"
                }
                let loc =
                    d.locationSource == "default"
                    ? "display (no location given, the default)"
                    : "display accelerometer (\(d.locationSource))"
                s.reason =
                    "\(d.displayName): \(loc)"
                    + (displays.count > 1 ? ", lowest index of \(displays.count) display accelerometers" : "")
                    + (usable.count > displays.count ? ", preferred over base" : "")
                return s
            }
            var s = pick(usable, what: "auto")
            if let c = s.chosen {
                s.reason =
                    "\(c.displayName): no display accelerometer; "
                    + "lowest-index base accelerometer"
            }
            return s
        case .iioDevice(let n):
            return pick(usable.filter { $0.index == n }, what: "iio:device\(n)")
        case .inputEvent:
            return SensorSelection(chosen: nil, reason: "", notChosen: notChosen)
        case .name(let n):
            return pick(usable.filter { $0.name == n }, what: "name:\(n)")
        case .label(let l):
            return pick(usable.filter { $0.label == l }, what: "label:\(l)")
        case .trace:
            return SensorSelection(chosen: nil, reason: "trace replay is not an IIO device", notChosen: notChosen)
        }
    }
}
