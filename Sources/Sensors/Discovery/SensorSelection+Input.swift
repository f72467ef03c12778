/// Input accelerometers in the selection: `auto` takes one only where no IIO
/// accelerometer is usable, never a game controller's motion sensors (a pad must not
/// steer a screen unasked, iio-sensor-proxy's rule), and a built-in one before a virtual,
/// USB or Bluetooth one (`InputPlacement`), then the lowest event number; `input:eventN`
/// and `name:NAME` take any, controllers included.
extension SensorSelection {
    static func withInputDevices(
        _ iio: SensorSelection, _ selector: DeviceSelector,
        _ inputs: [AccelerometerDescription]
    ) -> SensorSelection {
        var s = iio
        for d in inputs where !d.isUsable { s.notChosen[d.id] = d.skipReason }
        let usable = inputs.filter(\.isUsable)
        let candidates: [AccelerometerDescription]
        let what: String
        switch selector {
        case .auto:
            for d in usable {
                if let why = d.input?.controller {
                    s.notChosen[d.id] =
                        "\(why); auto leaves game controllers alone (name it: Sensor.device = \(d.id) "
                        + "or name:\(d.name ?? "NAME"))"
                }
            }
            guard s.chosen == nil else {
                for d in usable where s.notChosen[d.id] == nil {
                    s.notChosen[d.id] = "auto takes an IIO accelerometer first (\(s.chosen!.id))"
                }
                return s
            }
            // Built in first; the order by event number is kept within each (a stable sort).
            candidates = usable.filter { $0.input?.controller == nil }.enumerated()
                .sorted { a, b in
                    let (x, y) = (
                        a.element.input?.placement.builtIn == true, b.element.input?.placement.builtIn == true
                    )
                    return x != y ? x : a.offset < b.offset
                }.map(\.element)
            what = "auto"
        case .inputEvent(let n):
            candidates = usable.filter { $0.index == n }
            what = "input:event\(n)"
        case .name(let n) where s.chosen == nil:
            candidates = usable.filter { $0.name == n }
            what = "name:\(n)"
        default:
            for d in usable {
                s.notChosen[d.id] =
                    s.chosen.map { c in
                        d.name != nil && d.name == c.name
                            ? "\(selector) also matches it, but \(c.id) "
                                + "(an IIO device) is taken first" : "does not match \(selector)"
                    }
                    ?? "does not match \(selector)"
            }
            return s
        }
        guard let first = candidates.first else {
            for d in usable where s.notChosen[d.id] == nil { s.notChosen[d.id] = "does not match \(what)" }
            if s.reason.isEmpty || selector != .auto { s.reason = "no usable accelerometer matches \(what)" }
            return s
        }
        let firstPlacement = first.input?.placement
        for d in usable where d.id != first.id && s.notChosen[d.id] == nil {
            guard candidates.contains(where: { $0.id == d.id }) else {
                s.notChosen[d.id] = "does not match \(what)"
                continue
            }
            if selector == .auto, let p = d.input?.placement, !p.builtIn, firstPlacement?.builtIn == true {
                s.notChosen[d.id] = "\(p); auto prefers a built-in device, \(first.id)"
            } else {
                s.notChosen[d.id] = "\(what) also matches it, but \(first.id) has the lower event number"
            }
        }
        let kind = first.input?.controller != nil ? "a game controller's motion sensors" : "an input accelerometer"
        let others = candidates.filter { $0.input?.placement.builtIn != true && $0.id != first.id }.count
        let placed =
            firstPlacement.map { p in
                ", \(p)"
                    + (!p.builtIn
                        ? "; no built-in input accelerometer"
                        : others > 0
                            ? "; preferred over \(others) virtual, USB or Bluetooth one\(others == 1 ? "" : "s")" : "")
            } ?? ""
        let why =
            selector == .auto
            ? "no usable IIO accelerometer; \(kind), not part of a game controller\(placed)"
            : candidates.count == 1
                ? "the only usable accelerometer matching \(what) (\(kind))"
                : "the lowest event number of \(candidates.count) usable input accelerometers matching \(what) (\(kind))"
        s.chosen = first
        s.reason = "\(first.displayName): \(why)"
        return s
    }
}

extension DeviceSelector {
    /// A selector that can name an input device whatever else there is.
    var namesInputDevice: Bool {
        switch self {
        case .inputEvent, .name: true
        default: false
        }
    }
}
