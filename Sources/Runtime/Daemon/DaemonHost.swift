import LinuxSystem
import Logging
import Systemd

/// What the daemon takes from the machine it runs on: its clocks, its waits, its signals,
/// the service manager and the system bus. `DaemonHost()` is the running process's; the
/// loop's tests give their own (Tests/LoopTestSupport), so that the daemon runs on their
/// time and signals.
package struct DaemonHost {
    /// CLOCK_MONOTONIC nanoseconds: the daemon's clock (seconds since its start), a paced
    /// trace's real time and the frames' time.
    package var monotonicNanoseconds: () -> UInt64
    /// Now (wall clock, UTC) as ISO 8601, for the trace's header.
    package var utcNow: () -> String
    /// Sleeps until a descriptor is readable or the timeout passes (a trace's clock
    /// replaces it while a trace is the sensor).
    package var wait: Pipeline.Wait
    /// Takes the signals the daemon acts on.
    package var takeSignals: ([Signal]) -> any SignalSource
    /// The process's own settings, made once at the start of `Daemon.run`.
    package var prepareProcess: () -> Void
    package var notifier: any ServiceNotifying
    /// The daemon on the system bus, on the daemon's clock; nil without one.
    package var statusChannel: (Logger, @escaping () -> Double) -> (any StatusChannel)?

    package init(
        monotonicNanoseconds: @escaping () -> UInt64, utcNow: @escaping () -> String,
        wait: @escaping Pipeline.Wait, takeSignals: @escaping ([Signal]) -> any SignalSource,
        prepareProcess: @escaping () -> Void, notifier: any ServiceNotifying,
        statusChannel: @escaping (Logger, @escaping () -> Double) -> (any StatusChannel)?
    ) {
        self.monotonicNanoseconds = monotonicNanoseconds
        self.utcNow = utcNow
        self.wait = wait
        self.takeSignals = takeSignals
        self.prepareProcess = prepareProcess
        self.notifier = notifier
        self.statusChannel = statusChannel
    }

    /// The running process: CLOCK_MONOTONIC, poll(2), a signalfd, sd_notify and the
    /// system bus.
    package init() {
        self.init(
            monotonicNanoseconds: MonotonicClock.nanoseconds, utcNow: RunDescription.utcNow,
            wait: { ReadinessPoll.waitReadable($0, timeoutSeconds: $1, into: &$2) },
            takeSignals: ProcessSignals.take,
            prepareProcess: {
                // A trace past RLIMIT_FSIZE must be a write error (EFBIG: logged, lines kept
                // queued), not the default action of SIGXFSZ, which kills without a flush.
                ProcessSignals.ignore([.fileSizeLimit])
                // A fault still writes the trace's queued lines before the process dies of it.
                CrashFlush.install()
            },
            notifier: ServiceNotifier(),
            statusChannel: { log, clock in
                // Any local user may send the bus object a message of up to 32 MiB (dbus-daemon's
                // limit): its memory goes back when it is freed instead of staying in the heap.
                Heap.mapBlocks(largerThan: 4 << 20)
                return StatusBus(log: log, clock: clock)
            })
    }

    /// Seconds on CLOCK_MONOTONIC (`MonotonicClock.seconds`).
    var monotonicSeconds: Double { Double(monotonicNanoseconds()) / 1e9 }
}
