import CIIO
import Glibc

/// An IIO device or trigger of a `Context` (which it keeps alive).
package struct Device {
    package let context: Context
    let raw: OpaquePointer

    init(context: Context, raw: OpaquePointer) {
        self.context = context
        self.raw = raw
    }

    /// `iio_device_get_id()`: `iio:device0`, `trigger0`.
    package var id: String { IIOCall.string(iio_device_get_id(raw)) ?? "" }
    /// `iio_device_get_name()`: the sysfs `name`, if any.
    package var name: String? { IIOCall.string(iio_device_get_name(raw)) }
    /// `iio_device_get_label()`: the sysfs `label`, if any.
    package var label: String? { IIOCall.string(iio_device_get_label(raw)) }
    /// `iio_device_is_trigger()`.
    package var isTrigger: Bool { iio_device_is_trigger(raw) }

    private var target: String { id }

    /// `iio_device_get_channels_count()` / `iio_device_get_channel()`.
    package var channels: [Channel] {
        (0..<iio_device_get_channels_count(raw)).compactMap { i in
            iio_device_get_channel(raw, i).map { Channel(device: self, raw: $0) }
        }
    }

    /// `iio_device_find_channel()`: by id or name, input channels.
    package func channel(_ id: String, output: Bool = false) -> Channel? {
        iio_device_find_channel(raw, id, output).map { Channel(device: self, raw: $0) }
    }

    /// `iio_device_get_attrs_count()` / `iio_device_get_attr()`: device attribute names.
    package var attributeNames: [String] {
        (0..<iio_device_get_attrs_count(raw)).compactMap { IIOCall.string(iio_device_get_attr(raw, $0)) }
    }

    /// `iio_device_get_buffer_attrs_count()` / `iio_device_get_buffer_attr()`.
    package var bufferAttributeNames: [String] {
        (0..<iio_device_get_buffer_attrs_count(raw)).compactMap { IIOCall.string(iio_device_get_buffer_attr(raw, $0)) }
    }

    /// `iio_device_attr_read()`.
    package func readAttribute(_ name: String) throws(IIOError) -> String {
        try IIOCall.readString("iio_device_attr_read", "\(target)/\(name)", name: name) {
            iio_device_attr_read(raw, $0, $1, $2)
        }
    }

    /// `iio_device_attr_write()`.
    package func writeAttribute(_ name: String, _ value: String) throws(IIOError) {
        try IIOCall.check("iio_device_attr_write", "\(target)/\(name)") { iio_device_attr_write(raw, name, value) }
    }

    /// `iio_device_buffer_attr_read()`.
    package func readBufferAttribute(_ name: String) throws(IIOError) -> String {
        try IIOCall.readString("iio_device_buffer_attr_read", "\(target)/buffer/\(name)", name: name) {
            iio_device_buffer_attr_read(raw, $0, $1, $2)
        }
    }

    /// `iio_device_buffer_attr_write()`.
    package func writeBufferAttribute(_ name: String, _ value: String) throws(IIOError) {
        try IIOCall.check("iio_device_buffer_attr_write", "\(target)/buffer/\(name)") {
            iio_device_buffer_attr_write(raw, name, value)
        }
    }

    /// `iio_device_get_trigger()`: the current trigger, nil when none is set.
    package func trigger() throws(IIOError) -> Device? {
        var t: OpaquePointer?
        let r = iio_device_get_trigger(raw, &t)
        if r == -Int32(ENOENT) { return nil }
        try IIOCall.check("iio_device_get_trigger", target) { r }
        return t.map { Device(context: context, raw: $0) }
    }

    /// `iio_device_set_trigger()`; nil detaches.
    package func setTrigger(_ trigger: Device?) throws(IIOError) {
        try IIOCall.check("iio_device_set_trigger", "\(target) <- \(trigger?.id ?? "none")") {
            iio_device_set_trigger(raw, trigger?.raw)
        }
    }

    /// `iio_device_get_sample_size()`: bytes per scan with the enabled channels.
    package func sampleSize() throws(IIOError) -> Int {
        Int(try IIOCall.check("iio_device_get_sample_size", target) { iio_device_get_sample_size(raw) })
    }

    /// `iio_device_set_kernel_buffers_count()`: the kernel buffer holds this many blocks
    /// of `samples` scans (`buffer/length` = blocks x samples) once a buffer is created.
    package func setKernelBuffersCount(_ blocks: Int) throws(IIOError) {
        try IIOCall.check("iio_device_set_kernel_buffers_count", "\(target) \(blocks)") {
            iio_device_set_kernel_buffers_count(raw, UInt32(blocks))
        }
    }
}
