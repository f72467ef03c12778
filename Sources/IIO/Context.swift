import CIIO

/// An IIO context: the devices of this machine or of a remote `iiod`.
package final class Context {
    let raw: OpaquePointer
    /// The URI it was created from (`local:` for the local backend).
    package let uri: String

    /// `iio_create_local_context()`: the devices under /sys/bus/iio. libiio 0.24 fails
    /// for the whole machine if one channel name cannot be parsed.
    package init() throws(IIOError) {
        raw = try IIOCall.pointer("iio_create_local_context", "local:") { iio_create_local_context() }
        uri = "local:"
    }

    /// `iio_create_context_from_uri()`: `local:`, `ip:HOST[:PORT]`, `usb:...`, `xml:FILE`.
    package init(uri: String) throws(IIOError) {
        raw = try IIOCall.pointer("iio_create_context_from_uri", uri) { iio_create_context_from_uri(uri) }
        self.uri = uri
    }

    deinit { iio_context_destroy(raw) }

    /// `iio_context_get_name()`: `local`, `network`, ...
    package var backendName: String { IIOCall.string(iio_context_get_name(raw)) ?? "" }

    /// `iio_context_get_description()`.
    package var contextDescription: String { IIOCall.string(iio_context_get_description(raw)) ?? "" }

    /// `iio_context_set_timeout()`, milliseconds (0 = none).
    package func setTimeout(milliseconds: UInt32) throws(IIOError) {
        try IIOCall.check("iio_context_set_timeout", uri) { iio_context_set_timeout(raw, milliseconds) }
    }

    /// `iio_context_get_devices_count()` and `iio_context_get_device()`: devices and
    /// triggers.
    package var devices: [Device] {
        (0..<iio_context_get_devices_count(raw)).compactMap { i in
            iio_context_get_device(raw, i).map { Device(context: self, raw: $0) }
        }
    }

    /// `iio_context_find_device()`: by id (`iio:device0`), label or name.
    package func device(named name: String) -> Device? {
        iio_context_find_device(raw, name).map { Device(context: self, raw: $0) }
    }

    /// `iio_context_get_attrs_count()` / `iio_context_get_attr()`.
    package var attributes: [String: String] {
        var out: [String: String] = [:]
        for i in 0..<iio_context_get_attrs_count(raw) {
            var name: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            if iio_context_get_attr(raw, i, &name, &value) == 0, let n = name, let v = value {
                out[String(cString: n)] = String(cString: v)
            }
        }
        return out
    }
}
