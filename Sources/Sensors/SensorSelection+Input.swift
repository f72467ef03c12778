/// Input accelerometers in the selection: `auto` takes one only where no IIO
/// accelerometer is usable, and never a game controller's motion sensors (a pad must not
/// steer a screen unasked, iio-sensor-proxy's rule); `input:eventN` and `name:NAME` take
/// any, controllers included.
extension SensorSelection {
    static func withInputDevices(_ iio: SensorSelection, _ selector: DeviceSelector,
                                 _ inputs: [AccelerometerDescription]) -> SensorSelection {
        var s = iio
        for d in inputs where !d.isUsable { s.notChosen[d.id] = d.skipReason }
        let usable = inputs.filter(\.isUsable)
        let candidates: [AccelerometerDescription]
        let what: String
        switch selector {
        case .auto:
            for d in usable {
                if let why = d.input?.controller {
                    s.notChosen[d.id] = "\(why); auto leaves game controllers alone (name it: Sensor.device = \(d.id) "
                        + "or name:\(d.name ?? "NAME"))"
                }
            }
            guard s.chosen == nil else {
                for d in usable where s.notChosen[d.id] == nil {
                    s.notChosen[d.id] = "auto takes an IIO accelerometer first (\(s.chosen!.id))"
                }
                return s
            }
            candidates = usable.filter { $0.input?.controller == nil }
            what = "auto"
        case .inputEvent(let n):
            candidates = usable.filter { $0.index == n }
            what = "input:event\(n)"
        case .name(let n) where s.chosen == nil:
            candidates = usable.filter { $0.name == n }
            what = "name:\(n)"
        default:
            for d in usable { s.notChosen[d.id] = s.chosen.map { c in d.name != nil && d.name == c.name
                ? "\(selector) also matches it, but \(c.id) (an IIO device) is taken first" : "does not match \(selector)" }
                ?? "does not match \(selector)" }
            return s
        }
        guard let first = candidates.first else {
            for d in usable where s.notChosen[d.id] == nil { s.notChosen[d.id] = "does not match \(what)" }
            if s.reason.isEmpty || selector != .auto { s.reason = "no usable accelerometer matches \(what)" }
            return s
        }
        for d in usable where d.id != first.id && s.notChosen[d.id] == nil {
            s.notChosen[d.id] = candidates.contains { $0.id == d.id }
                ? "\(what) also matches it, but \(first.id) has the lower event number" : "does not match \(what)"
        }
        let kind = first.input?.controller != nil ? "a game controller's motion sensors" : "an input accelerometer"
        let why = selector == .auto ? "no usable IIO accelerometer; \(kind), not part of a game controller"
            : candidates.count == 1 ? "the only usable accelerometer matching \(what) (\(kind))"
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
