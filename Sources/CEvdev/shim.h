// libevdev (Debian libevdev-dev, pkg-config libevdev): an input device's event node read
// without blocking, its capabilities, and the resynchronisation after SYN_DROPPED; the
// event codes of linux/input.h (included by libevdev.h).
#include <time.h>
#include <libevdev/libevdev.h>
