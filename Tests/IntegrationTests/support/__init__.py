"""What the end-to-end tests share: umockdev testbeds and the daemon run in them
(harness), the emulated kernel interfaces (drm_emulation, evdev_emulation,
iio_events_emulation, refusing_file), a bare D-Bus client (raw_dbus), and the
independent expectations the tests compare against (scene_colors, xshot).
Test modules import from here, never from each other."""
import gi

gi.require_version("UMockdev", "1.0")     # before the modules here import it
