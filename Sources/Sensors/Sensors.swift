// Sensors: accelerometers as sources of m/s^2 samples.
//
// Purpose: find every IIO accelerometer (libudev, or libiio for a remote context) and
// every accelerometer the kernel exposes as an input device (lis3lv02d, a game
// controller's motion sensors: `InputDiscovery`, through Evdev), describe it (scale,
// offset, mount matrix and where each came from, location, sampling frequencies,
// poll/buffer capability), choose one per `Sensor.device`, read it through a driver
// (`IIOPolledAccelerometer`, `IIOBufferedAccelerometer`, `SysfsPolledAccelerometer`,
// `InputDeviceAccelerometer`), follow hotplug, and turn raw
// counts into device-frame m/s^2 for the attitude (`AccelerometerService`).
// Invariants: bad input (empty, non-numeric, NaN, inf, huge raw values, a zero vector,
// a malformed mount matrix, read errors) never reaches the attitude: the sample is
// skipped and one log line names device, attribute and value, at most once per second
// per cause (Logging's `RateLimiter`). Nothing is global: everything is built by the caller.
// Must not import: Runtime, Commands, Output, Card or anything above layer 2. Never
// prints: messages go to the `Logger` the caller passes in.
// Folders: Drivers, ScanFormat (the IIO buffer), Discovery, Service (`AccelerometerService`
// and its parts), Hotplug, Rest, Readings (docs/ARCHITECTURE.md, section 3).
