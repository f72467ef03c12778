// IIO: a typed wrapper of libiio 0.24 (`iio.h`, imported as CIIO).
//
// Purpose: contexts (local, or any libiio URI such as `ip:127.0.0.1`), devices,
// channels, attributes, triggers and buffers, as Swift types whose doc comments name
// the C function behind each call.
// Invariants: every C call that can fail goes through `IIOCall` (IIOCall.swift), which
// turns libiio's conventions (NULL + errno, or a negative errno) into `IIOError` with
// the operation and the object. A `Device` or `Channel` keeps its `Context` alive.
// Nothing here is thread-safe: libiio objects are confined to the thread that uses them.
// Must not import: Motion, Udev, Sensors or anything above layer 1a.
