/// What a device's event stream said in one read (`EventStream`): its records are
/// `struct iio_event_data` (include/uapi/linux/iio/events.h), 16 bytes each: the event
/// code, a u64 whose fields are the event type (bits 56-63), the direction (48-54), the
/// channel's modifier (40-47) and the channel type (32-39; include/uapi/linux/iio/types.h),
/// then the timestamp in ns. A motion is an acceleration event of any type; the timestamp
/// is not used (the device is read at once). Pure.
package struct MotionEventRecords: Sendable, Equatable {
    /// Acceleration events among the records.
    package var motions = 0
    /// What was not a motion event, for one log line; nil when everything was.
    package var problem: String?

    /// `sizeof(struct iio_event_data)`.
    package static let recordSize = 16
    /// `IIO_ACCEL` in enum iio_chan_type (include/uapi/linux/iio/types.h).
    static let accelerationChannel: UInt64 = 3

    /// Decodes the bytes of one read of the stream (host byte order, as the kernel writes).
    package init(_ bytes: UnsafeRawBufferPointer) {
        let whole = bytes.count / Self.recordSize
        for k in 0..<whole {
            let code = bytes.loadUnaligned(fromByteOffset: k * Self.recordSize, as: UInt64.self)
            let channelType = (code >> 32) & 0xFF
            if channelType == Self.accelerationChannel {
                motions += 1
            } else if problem == nil {
                problem =
                    "an event of channel type \(channelType), not an acceleration "
                    + "(code 0x\(String(code, radix: 16)))"
            }
        }
        if bytes.count % Self.recordSize != 0 {
            problem = "\(bytes.count) bytes, not a whole number of \(Self.recordSize)-byte records"
        }
    }
}
