import CIIO

/// libiio's view of a scan element's format (`iio_channel_get_data_format()`).
package struct DataFormat: Hashable, Sendable {
    /// Storage bits.
    package var length: Int
    package var bits: Int
    package var shift: Int
    package var isSigned: Bool
    package var isBigEndian: Bool
    package var repeatCount: Int
}

/// A channel of a `Device`, e.g. `accel_x`.
package struct Channel {
    package let device: Device
    let raw: OpaquePointer

    /// `iio_channel_get_id()`: `accel_x`, `timestamp`.
    package var id: String { IIOCall.string(iio_channel_get_id(raw)) ?? "" }
    /// `iio_channel_get_name()`: the extended name, rarely set.
    package var name: String? { IIOCall.string(iio_channel_get_name(raw)) }
    /// `iio_channel_is_output()`.
    package var isOutput: Bool { iio_channel_is_output(raw) }
    /// `iio_channel_is_scan_element()`: it has `scan_elements/*` files.
    package var isScanElement: Bool { iio_channel_is_scan_element(raw) }
    /// `iio_channel_get_index()`: the scan index, nil when not a scan element.
    package var index: Int? {
        let i = iio_channel_get_index(raw)
        return i >= 0 ? Int(i) : nil
    }

    private var target: String { "\(device.id)/\(id)" }

    /// `iio_channel_get_attrs_count()` / `iio_channel_get_attr()`: `raw`, `scale`, ...
    package var attributeNames: [String] {
        (0..<iio_channel_get_attrs_count(raw)).compactMap { IIOCall.string(iio_channel_get_attr(raw, $0)) }
    }

    /// `iio_channel_attr_get_filename()`: the sysfs file behind an attribute, e.g.
    /// `in_accel_scale` for `accel_x`'s `scale`.
    package func fileName(ofAttribute attr: String) -> String? {
        IIOCall.string(iio_channel_attr_get_filename(raw, attr))
    }

    /// `iio_channel_attr_read()`.
    package func readAttribute(_ attr: String) throws(IIOError) -> String {
        try IIOCall.readString("iio_channel_attr_read", "\(target)/\(attr)", name: attr) {
            iio_channel_attr_read(raw, $0, $1, $2)
        }
    }

    /// `iio_channel_attr_write()`.
    package func writeAttribute(_ attr: String, _ value: String) throws(IIOError) {
        try IIOCall.check("iio_channel_attr_write", "\(target)/\(attr)") { iio_channel_attr_write(raw, attr, value) }
    }

    /// `iio_channel_enable()`: takes effect when a buffer is created.
    package func enable() { iio_channel_enable(raw) }
    /// `iio_channel_disable()`.
    package func disable() { iio_channel_disable(raw) }
    /// `iio_channel_is_enabled()`.
    package var isEnabled: Bool { iio_channel_is_enabled(raw) }

    /// `iio_channel_get_data_format()`.
    package var dataFormat: DataFormat {
        let f = iio_channel_get_data_format(raw)!.pointee
        return DataFormat(
            length: Int(f.length), bits: Int(f.bits), shift: Int(f.shift), isSigned: f.is_signed,
            isBigEndian: f.is_be, repeatCount: Int(max(f.repeat, 1)))
    }
}
