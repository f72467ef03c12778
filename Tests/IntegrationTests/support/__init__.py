"""What the end-to-end tests share. Test modules import from here, never from each other.

- harness: umockdev testbeds (Bed, Device, ScanPipe), the daemon run in them (Daemon,
  monitor, run_shimmerd), private system buses (SystemBus), the waiters (wait_until,
  wait_trace), trace reading, and independent re-implementations of the tilt and the
  mapper to compute expectations; the fixtures most tests run on (BMC150, IMU, HUB, HID).
- runs: `Run`, a daemon with a trace that is tilted to show the sink answers.
- bus: the shipped policy's bus, busctl on it, the daemon started on it, a Claimant.
- sinks: the tilt path and Tilter, framebuffer devices, shm_daemon, the reference card,
  tools/shmread.py as a module.
- viewer: `shimmerd view` on an X server of its own (Viewer), checked by screenshots.
- privileges, motion_paths, rest, traces, images: an unprivileged user's testbed, a
  hand-held path, the rest watch's devices, traces written by hand, PNGs read back.
- the emulated kernel interfaces: drm_emulation, evdev_emulation, iio_events_emulation,
  refusing_file (a FUSE file that answers EBUSY); raw_dbus, a D-Bus client on a bare
  socket; scene_colors and xshot, the expected colors and X screenshots.
Shared fixtures are in ../conftest.py."""
import gi

gi.require_version("UMockdev", "1.0")     # before the modules here import it
